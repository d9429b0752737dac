"""Images drawn in the transcript: an attached image under its message, a tool's image under
its call, as a small colour thumbnail made of half blocks (``▀``, its top pixel the character's
colour, its bottom pixel the background).

Half blocks are text with colours, drawn by Textual like any other: they need no graphics
protocol, no query of the terminal (which the app's start, tmux, ``serve`` and tests could not
answer alike), and no escape sequence but the colours Textual writes itself, downgraded to what
the terminal has. Nothing of the image's bytes reaches the terminal but those colours.

Whether to draw is decided from ``[settings] images_inline`` and the environment alone, before
anything is drawn (``inline_renderer``): where the terminal has too few colours for a picture
(or says nothing of its colours), and with ``images_inline = "off"``, the chip is all there is.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from ...conversation import ImagePart

MAX_ROWS = 12  # a thumbnail's height in lines (two pixels each)
MAX_COLS = 48
BLOCKS = "blocks"
SETTINGS = ("auto", BLOCKS, "off")
_MATTE = (24, 24, 24)  # what a transparent pixel is drawn on
# Terminals that draw at least 256 colours and do not all say so in TERM or COLORTERM.
_TERMINALS = frozenset({"iTerm.app", "WezTerm", "ghostty", "vscode", "Apple_Terminal", "tmux"})


def inline_renderer(setting: str, environ: Mapping[str, str]) -> str | None:
    """How images are drawn: ``"blocks"``, or None where only their chip is shown."""
    if setting == "off":
        return None
    if setting == BLOCKS:
        return BLOCKS
    if environ.get("NO_COLOR"):
        return None
    system = environ.get("TEXTUAL_COLOR_SYSTEM", "auto").lower()  # serve sets "truecolor"
    if system != "auto":
        return BLOCKS if system in ("truecolor", "256") else None
    term = environ.get("TERM", "")
    if term in ("", "dumb", "linux", "vt100", "vt220"):
        return None
    if environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return BLOCKS
    if term.endswith(("256color", "-direct")) or term in ("xterm-kitty", "xterm-ghostty"):
        return BLOCKS
    if environ.get("KITTY_WINDOW_ID") or environ.get("WT_SESSION"):
        return BLOCKS
    if environ.get("TERM_PROGRAM", "") in _TERMINALS:
        return BLOCKS
    return None  # 8 or 16 colours, or a terminal not known: the chip only


def drawn_inline(host: Any) -> bool:
    """Whether this app draws images (its session's setting, the terminal's environment)."""
    if host is None:
        return False
    return inline_renderer(host.config.settings.images_inline, os.environ) is not None


def thumbnail_size(
    width: int, height: int, cols: int = MAX_COLS, rows: int = MAX_ROWS
) -> tuple[int, int]:
    """(columns, lines) of an image's thumbnail: the aspect kept (a line is two pixels), never
    larger than the image, at least 1x1."""
    scale = min(cols / width, 2 * rows / height, 1.0)
    return max(1, round(width * scale)), max(1, round(height * scale / 2))


def draw_blocks(image: ImagePart, cols: int, rows: int) -> Text:
    """The image as ``rows`` lines of ``cols`` half blocks (decoded here: run it off the loop)."""
    from PIL import Image

    with Image.open(io.BytesIO(image.data)) as opened:
        if opened.format == "JPEG":
            opened.draft("RGB", (cols, rows * 2))  # decoded at a fraction of its size
        opened.seek(0)
        frame = opened.convert("RGBA")
    matte = Image.new("RGBA", frame.size, (*_MATTE, 255))
    small = Image.alpha_composite(matte, frame).convert("RGB")
    small = small.resize((cols, rows * 2), Image.Resampling.BOX)
    data = small.tobytes()  # RGB, row after row
    line = cols * 3
    text = Text(no_wrap=True, overflow="crop", end="")
    for y in range(rows):
        if y:
            text.append("\n")
        top = data[2 * y * line : (2 * y + 1) * line]
        bottom = data[(2 * y + 1) * line : (2 * y + 2) * line]
        for x in range(0, line, 3):
            text.append("▀", Style(color=_hex(top[x : x + 3]), bgcolor=_hex(bottom[x : x + 3])))
    return text


def _hex(rgb: bytes) -> str:
    return "#" + rgb.hex()


@dataclass
class ImageSnapshot:
    """An image to draw in the transcript; its drawing is kept once made (a rebuilt widget
    does not decode it again)."""

    image: ImagePart
    caption: str = ""  # a line above it ("" for an attachment: its chip says what it is)
    drawn: Text | None = field(default=None, repr=False)

    def build(self) -> ImageThumbnail:
        return ImageThumbnail(self)


class ImageThumbnail(Static):
    """One image's thumbnail: its room is kept from the start, its pixels drawn in a worker
    thread."""

    DEFAULT_CSS = """
    ImageThumbnail { width: auto; height: auto; padding: 0 1 0 3; color: $text-muted; }
    """

    def __init__(self, snapshot: ImageSnapshot) -> None:
        super().__init__(markup=False)
        self._snapshot = snapshot
        image = snapshot.image
        self.cols, self.rows = thumbnail_size(image.width, image.height)

    @property
    def settled(self) -> bool:
        return True

    def snapshot(self) -> ImageSnapshot:
        return self._snapshot

    @property
    def drawn(self) -> bool:
        return self._snapshot.drawn is not None

    def on_mount(self) -> None:
        if self._snapshot.drawn is not None:
            self._show(self._snapshot.drawn)
            return
        self._show(Text("\n" * (self.rows - 1)))  # its room, before the pixels come
        self.run_worker(self._draw(), group="thumbnail", exit_on_error=False)

    async def _draw(self) -> None:
        try:
            drawn = await asyncio.to_thread(draw_blocks, self._snapshot.image, self.cols, self.rows)
        except Exception:  # a prepared image decodes; if not, its chip says what it was
            self.display = False
            return
        self._snapshot.drawn = drawn
        self._show(drawn)

    def _show(self, picture: Text) -> None:
        caption = self._snapshot.caption
        self.update(Text.assemble(caption, "\n", picture) if caption else picture)


def image_caption(tool: str, image: ImagePart) -> str:
    """The line above a tool's image: ``🖼 read_file returned PNG 640x480, 12 KB``."""
    from ..sanitize import visible_line

    return f"🖼 {visible_line(tool)} returned {image.describe()}"
