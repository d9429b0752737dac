"""Untrusted text reaches the screen with every control and hidden character made visible."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.widgets import Markdown, Static

from tui_agent.ui.sanitize import (
    ESCAPE_STYLE,
    escape_char,
    is_hidden,
    markdown_safe,
    safe_text,
    visible,
    visible_line,
)

from .approval_prompt_app import screen_text, stray_controls, terminal_output

HOSTILE = {
    "osc52 clipboard": "copy \x1b]52;c;cm0gLXJmIH4=\x07 done",
    "osc8 link": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "csi clear": "before\x1b[2J\x1b[Hafter",
    "reset": "x\x1bcy",
    "dcs": "\x1bP+q544e\x1b\\",
    "apc": "\x1b_Gf=100;AAAA\x1b\\",
    "unterminated osc": "\x1b]0;new title",
    "8-bit csi and osc": "\x9b2J\x9d0;title\x9c",
    "bell and backspace": "ding\x07\x08\x08xx",
    "carriage return overwrite": "safe command\rrm -rf ~",
    "bidi override": "access\u202e\u2066 level\u2069\u202c",
    "zero width": "pass\u200bword\u2060\ufeff",
    "tag characters": "hi\U000e0041\U000e0042",
}
# A sequence split between two streamed deltas, each sanitised on its own.
SPLIT = [("text\x1b", "[2J more"), ("\x1b]52;c;", "cm0=\x07"), ("line\r", "\nnext")]
MARKUP = ["[@click=app.quit]quit[/]", "[link=https://x]x[/link]", "[/", "[TODO] fix", "[b]bold"]


def test_controls_become_hex_escapes() -> None:
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("\x00\x07\x7f\x9b\x85") == "\\x00\\x07\\x7f\\x9b\\x85"
    assert visible("a\rb") == "a\\x0db"


def test_format_characters_become_code_point_escapes() -> None:
    assert visible("\u202e\u2066\u200e\u061c") == "<U+202E><U+2066><U+200E><U+061C>"
    assert visible("\u200b\u200c\u200d\u2060\ufeff") == ("<U+200B><U+200C><U+200D><U+2060><U+FEFF>")
    assert visible("\U000e0041") == "<U+E0041>"


def test_newline_tab_and_ordinary_text_are_kept() -> None:
    text = "línea 1\n\tçà 中文 emoji 🎉 ❤ [b]x[/b]"
    assert visible(text) == text
    # An emoji presentation selector is default-ignorable: escaped, kept only by markdown_safe.
    assert visible("❤\ufe0f") == "❤<U+FE0F>"
    assert markdown_safe("❤\ufe0f") == "❤\ufe0f"
    assert visible_line("a\tb\nc") == "a\\x09b\\x0ac"


def test_every_format_character_of_this_python_is_hidden() -> None:
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs", "Zl", "Zp")
        and chr(code) not in "\n\t"
        and not is_hidden(chr(code))
    ]
    assert missed == []


@given(st.text(alphabet=st.characters(blacklist_categories=())))
def test_no_hidden_character_survives(text: str) -> None:
    assert not any(is_hidden(char) for char in visible(text))
    assert not any(is_hidden(char) or char in "\n\t" for char in visible_line(text))
    kept = "\u200c\u200d\ufe0e\ufe0f"  # joiners and presentation selectors, where they join
    assert not any(is_hidden(char) for char in markdown_safe(text) if char not in kept)
    assert safe_text(text).plain == visible(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp"))))
def test_text_without_hidden_characters_is_unchanged(text: str) -> None:
    fillers = {"\u115f", "\u1160", "\u3164", "\uffa0"}  # letters that draw nothing
    # Default-ignorable code points outside Cf draw nothing either (U+034F, variation selectors).
    assume(not any(is_hidden(char) or char in fillers for char in text))
    assert visible(text) == text
    assert markdown_safe(text) == text


def test_safe_text_styles_only_the_escapes() -> None:
    text = safe_text("a\x1bb\u202ec", "italic")
    assert text.plain == "a\\x1bb<U+202E>c"
    assert str(text.style) == "italic"
    escaped = [(span.start, span.end) for span in text.spans if span.style == ESCAPE_STYLE]
    assert escaped == [(1, 5), (6, 14)]


@pytest.mark.parametrize("markup", MARKUP)
def test_markup_is_never_parsed(markup: str) -> None:
    text = safe_text(markup)
    assert text.plain == markup
    assert text.spans == []
    assert markdown_safe(markup) == markup


def test_markdown_safe_drops_cr_and_keeps_joiners() -> None:
    assert markdown_safe("a\r\nb\rc") == "a\nbc"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert markdown_safe(family) == family
    assert markdown_safe("x\u202ey\x1b") == "x<U+202E>y\\x1b"


@pytest.mark.parametrize(("first", "second"), SPLIT)
def test_a_sequence_split_between_deltas_is_neutralised(first: str, second: str) -> None:
    for sanitize in (visible, markdown_safe):
        joined = sanitize(first) + sanitize(second)
        assert not any(is_hidden(char) for char in joined)
    assert escape_char(first[-1]) in visible(first) or escape_char("\x1b") in visible(first)


class ShowApp(App[None]):
    def __init__(self, texts: list[str]) -> None:
        super().__init__()
        self.texts = texts

    def compose(self) -> ComposeResult:
        for text in self.texts:
            yield Static(safe_text(text))
            yield Markdown(markdown_safe(text))


async def test_hostile_strings_never_reach_the_terminal() -> None:
    texts = [*HOSTILE.values(), *MARKUP]
    app = ShowApp(texts)
    async with app.run_test(size=(120, 120)) as pilot:
        await pilot.pause()
        assert app.is_running  # "[@click=app.quit]" did not quit
        output = terminal_output(app)
        assert stray_controls(output) == []
        svg = app.export_screenshot()
        for char in "\x1b\x07\x9b\x9d\x9c\x90\x9f\r\u202e\u200b":
            assert char not in svg
        shown = screen_text(app)
    assert shown.count("\\x1b]52;c;cm0gLXJmIH4=\\x07") == 2  # as Static and as Markdown
    assert shown.count("<U+202E><U+2066>") == 2
    assert shown.count("\\x9b2J\\x9d0;title\\x9c") == 2
    lines = [line.strip() for line in shown.splitlines()]
    for markup in MARKUP:
        assert lines.count(markup) == 2, markup


async def test_deltas_sanitised_one_by_one_show_the_split_sequence() -> None:
    app = ShowApp(["".join(markdown_safe(part) for part in pair) for pair in SPLIT])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert stray_controls(terminal_output(app)) == []
        shown = screen_text(app)
    assert "text\\x1b[2J more" in shown
    assert "\\x1b]52;c;cm0=\\x07" in shown
