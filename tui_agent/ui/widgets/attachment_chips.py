"""The files attached to the message being written, as chips above the message box.

A chip shows the file's path and the size sent (an image's type and pixel size too). Click it
(or focus it and press Enter) to see what will be sent; click its ✕ (or press Delete, Backspace
or x on it) to remove it."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from ...conversation import Attachment, ImagePart
from ..sanitize import safe_text, visible_line

if TYPE_CHECKING:
    from .transcript import Transcript


def chip_label(attachment: Attachment) -> str:
    """``@notes.txt (1.2 KB)``, ``@shot.png (PNG 1568x882, 240.0 KB, scaled down)``: the
    size sent, never the image's bytes."""
    return f"@{visible_line(attachment.path)} {attachment.sent()}"


def image_note(image: ImagePart) -> str:
    scaled = " It was scaled down to fit what providers take." if image.scaled else ""
    return (
        f"An image: {image.describe()}, sent to the model as an image.{scaled} "
        "Its pixels are not drawn here."
    )


def show_attachments(transcript: Transcript, attachments: tuple[Attachment, ...]) -> None:
    """Under a message in the transcript: the files that went with it."""
    for attachment in attachments:
        transcript.add_notice(f"📎 attached {chip_label(attachment)}", "info")


class AttachmentChip(Static, can_focus=True):
    DEFAULT_CSS = """
    AttachmentChip {
        width: auto; height: 1; margin: 0 1 0 0; padding: 0 1;
        background: $accent 30%; color: $text;
    }
    AttachmentChip:focus { background: $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Show"),
        Binding("delete,backspace,x", "remove", "Remove"),
    ]

    class Removed(Message):
        def __init__(self, chip: AttachmentChip) -> None:
            super().__init__()
            self.chip = chip

    def __init__(self, attachment: Attachment) -> None:
        super().__init__(f"{chip_label(attachment)} ✕", markup=False)
        self.attachment = attachment

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if event.x >= self.size.width - 3:  # the ✕ and the padding after it
            self.action_remove()
        else:
            self.action_open()

    def action_open(self) -> None:
        self.app.push_screen(AttachmentView(self.attachment))

    def action_remove(self) -> None:
        self.post_message(self.Removed(self))


class AttachmentChips(Horizontal):
    DEFAULT_CSS = """
    AttachmentChips { height: auto; max-height: 3; display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.attachments: list[Attachment] = []

    def add(self, attachment: Attachment) -> None:
        self.attachments = [a for a in self.attachments if a.path != attachment.path]
        for chip in self.query(AttachmentChip):
            if chip.attachment.path == attachment.path:
                chip.remove()
        self.attachments.append(attachment)
        self.mount(AttachmentChip(attachment))
        self.display = True

    def take_all(self) -> tuple[Attachment, ...]:
        """The attachments (for the message being sent); the chips go."""
        taken = tuple(self.attachments)
        self.attachments = []
        self.remove_children()
        self.display = False
        return taken

    def on_attachment_chip_removed(self, message: AttachmentChip.Removed) -> None:
        message.stop()
        self.attachments = [a for a in self.attachments if a is not message.chip.attachment]
        message.chip.remove()
        self.display = bool(self.attachments)
        self.app.notify(f"removed {message.chip.attachment.path}", markup=False)


class AttachmentView(ModalScreen[None]):
    """What will be sent for an attached file; Esc (or q) closes."""

    DEFAULT_CSS = """
    AttachmentView { align: center middle; }
    AttachmentView > VerticalScroll {
        width: 90%; height: 80%; border: round $accent; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, attachment: Attachment) -> None:
        super().__init__()
        self.attachment = attachment

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            note = " — only its start is attached" if self.attachment.truncated else ""
            yield Static(f"{chip_label(self.attachment)}{note} · Esc closes", markup=False)
            if self.attachment.image is not None:
                yield Static(image_note(self.attachment.image), markup=False)
            else:
                yield Static(safe_text(self.attachment.text))

    def action_close(self) -> None:
        self.dismiss(None)
