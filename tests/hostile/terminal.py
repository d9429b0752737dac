"""What an app really writes to the terminal, and the hostile strings that must never reach it.

``RecordingDriver`` is Textual's headless driver that says it is not headless, so the app renders
every frame and writes it, and keeps what it writes: the bytes a terminal would receive, from the
first frame to the last (unlike a one-off repaint, text that scrolled away is in it too).
``record(app)`` installs it; run the app with ``app.run_test(headless=False)``.

``stray_sequences(output)`` removes the sequences Textual itself writes (SGR colours, absolute
cursor moves, the pointer shape) and returns every control character left: an untrusted ESC, C1
or other C0 byte. A payload must not use an SGR or a cursor move, which could hide among
Textual's own; ``assert_clean`` also looks for each payload's distinctive bytes.
"""

from __future__ import annotations

import json
import re

from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.widget import Widget

from tui_agent.text.sanitize import visible

from ..approval_prompt_app import screen_lines

C1 = re.compile("[\x80-\x9f]")

# Default_Ignorable_Code_Point, from Unicode 15.1's DerivedCoreProperties.txt (written out here,
# apart from the sanitizer, so that a range it forgets shows up): nothing a terminal draws.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
IGNORABLE = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in DEFAULT_IGNORABLE) + "]")

# Textual's own: SGR, absolute cursor moves, the kitty pointer shape.
_OWN = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[[0-9]+;[0-9]+H|\x1b\]22;[a-z-]+\x07")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


# name -> the raw string; each stays under ~60 columns once shown, and has no space, so a
# word-wrapping widget never breaks it.
PAYLOADS: dict[str, str] = {
    "OSC 52": "\x1b]52;c;SGVsbG8=\x07",
    "OSC 8": "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\",
    "OSC 0": "\x1b]0;pwned-title\x07",
    "OSC 2": "\x1b]2;pwned-title2\x1b\\",
    "CSI 2J": "\x1b[2J\x1b[H",
    "ESC c": "\x1bc",
    "DCS": "\x1bP+q544e\x1b\\",
    "APC": "\x1b_Gf=100;AAAA\x1b\\",
    "8-bit C1": "\x9b2J\x9d0;c1-title\x9c\x90+q\x9c\x9f_G\x9c",
    "bidi": "abc\u202e\u2066\u2067\u2068\u2069\u200f\u200e\u061cxyz",
    "zero-width": "pass\u200bw\ufeffo\u2060r\u200cd\u200d!",
    "default-ignorable": "e\ufe0fm\u034fo\u180bj\u17b4i\u2065!",
    "default-ignorable 2": "t\ufff0a\U000e0000g\U000e0fffs\U0001d173.",
    "[@click=app.quit]": "[@click=app.quit]QUITNOW[/]",
    "[link=...]": "[link=https://evil.example/]evil[/link]",
    "[/": "[/",
    "[TODO]": "[TODO]",
    "unterminated OSC": "\x1b]0;never-ends",  # last: nothing after it ends it
}
# Bytes only a payload that got through would write (checked besides every stray ESC and C1).
RAW_FRAGMENTS = ("\x1b]52;", "\x1b]8;", "\x1b]0;", "\x1b]2;", "\x1b[2J", "\x1bc", "\x1bP", "\x1b_")


def paragraph(payloads: dict[str, str]) -> str:
    """Every payload in one markdown paragraph (a word ends it: a final backslash would not)."""
    return one_line(payloads) + " ok\n"


def one_line(payloads: dict[str, str]) -> str:
    return " ".join(payloads.values())


class RecordingDriver(HeadlessDriver):
    """A headless driver that keeps, in ``written``, everything the app writes to it."""

    written: list[str]

    @property
    def is_headless(self) -> bool:
        return False  # so the app renders and writes each frame

    def write(self, data: str) -> None:
        self.__dict__.setdefault("written", []).append(data)


def record(app: App[None]) -> App[None]:
    """Make ``app`` write to a RecordingDriver (run it with ``run_test(headless=False)``)."""
    app.driver_class = RecordingDriver
    return app


def output(app: App[None]) -> str:
    """Everything written to the terminal so far."""
    driver = app._driver
    assert isinstance(driver, RecordingDriver)
    return "".join(driver.__dict__.get("written", []))


def stray_sequences(written: str) -> list[str]:
    """Control characters left once Textual's own sequences are removed (with context)."""
    rest = _OWN.sub("", written)
    return [repr(rest[max(0, m.start() - 20) : m.end() + 20]) for m in _CONTROL.finditer(rest)]


def assert_clean(app: App[None], raw_fragments: tuple[str, ...]) -> str:
    """No untrusted ESC, C1 or C0 byte was written, nor any of ``raw_fragments``, nor any
    default-ignorable code point (no payload puts one where ``markdown_safe`` keeps it)."""
    written = output(app)
    assert written, "nothing was written: is the app running with headless=False?"
    assert stray_sequences(written) == []
    assert [f"U+{ord(char):04X}" for char in IGNORABLE.findall(written)] == []
    assert [f for f in raw_fragments if f in written] == []
    assert C1.findall(written) == []
    return written


def shown(raw: str, *, json_string: bool = False) -> str:
    """How ``raw`` looks on screen: escapes visible; inside a JSON preview, as JSON spells it."""
    if json_string:
        raw = json.dumps(raw, ensure_ascii=False)[1:-1]
    return visible(raw)


def region_text(app: App[None], widget: Widget) -> str:
    """The text ``widget`` shows on screen, its rows joined without spaces (undoes wrapping)."""
    region = widget.region
    rows = screen_lines(app)[region.y : region.y + region.height]
    return "".join("".join(row[region.x : region.x + region.width].split()) for row in rows)


def missing(text: str, payloads: dict[str, str], *, json_string: bool = False) -> list[str]:
    """Names of the payloads whose visible form is not in ``text`` (from ``region_text``)."""
    return [
        name
        for name, raw in payloads.items()
        if "".join(shown(raw, json_string=json_string).split()) not in text
    ]


def where(app: App[None], needle: str, within: Widget | None = None) -> tuple[int, int]:
    """Screen offset of ``needle`` (inside ``within``'s region if given)."""
    for y, line in enumerate(screen_lines(app)):
        x = line.find(needle)
        if x >= 0 and (within is None or within.region.contains(x, y)):
            return x, y
    raise AssertionError(f"{needle!r} is not on screen")


async def assert_clicks_do_nothing(
    pilot: Pilot[None], within: Widget, needles: tuple[str, ...] = ("QUITNOW", "evil[/link]")
) -> None:
    """Clicking the would-be "[@click=app.quit]" and "[link=...]" neither quits nor copies."""
    app = pilot.app
    for needle in needles:
        x, y = where(app, needle, within)
        await pilot.click(offset=(x + 1, y))
        await pilot.pause()
        assert app.is_running, needle
    assert app.clipboard == ""
    assert "pwned" not in app.title and "pwned" not in app.sub_title
    update = app.screen._compositor.render_full_update()
    actions = [
        str(segment.style.meta.get("@click", ""))
        for row in update.strips
        for strip in row
        for segment in strip
        if segment.style is not None and segment.style.meta
    ]
    assert [a for a in actions if "quit" in a or "evil" in a] == []
