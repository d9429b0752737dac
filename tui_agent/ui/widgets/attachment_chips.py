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


def image_note(image: ImagePart, *, drawn: bool = False) -> str:
    scaled = " It was scaled down to fit what providers take." if image.scaled else ""
    shown = "" if drawn else " Its pixels are not drawn here."
    return f"An image: {image.describe()}, sent to the model as an image.{scaled}{shown}"


def show_attachments(
    transcript: Transcript, attachments: tuple[Attachment, ...], *, drawn: bool = False
) -> None:
    """Under a message in the transcript: the files that went with it (an image's thumbnail
    too when ``drawn``: see image_thumbnail)."""
    from .image_thumbnail import ImageSnapshot

    for attachment in attachments:
        transcript.add_notice(f"📎 attached {chip_label(attachment)}", "info")
        if drawn and attachment.image is not None:
            transcript.add_item(ImageSnapshot(attachment.image))


class AttachmentChip(Static, can_focus=True):
    DEFAULT_CSS = """
    AttachmentChip {
        width: auto; height: 1; margin: 0 1 0 0; padding: 0 1;
        background: $accent 30%; color: $text;
    }
    AttachmentChip:focus { background: $accent; }
    AttachmentChip.-preparing { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Show"),
        Binding("delete,backspace,x", "remove", "Remove"),
    ]

    class Removed(Message):
        def __init__(self, chip: AttachmentChip) -> None:
            super().__init__()
            self.chip = chip

    def __init__(self, attachment: Attachment | None, path: str = "") -> None:
        """A chip for ``attachment``; None while the image at ``path`` is being prepared."""
        self.path = attachment.path if attachment is not None else path
        self.attachment = attachment
        super().__init__(self._label(), markup=False, classes="" if attachment else "-preparing")

    def _label(self) -> str:
        if self.attachment is None:
            return f"@{visible_line(self.path)} (preparing…) ✕"
        return f"{chip_label(self.attachment)} ✕"

    def prepared(self, attachment: Attachment) -> None:
        self.attachment = attachment
        self.remove_class("-preparing")
        self.update(self._label())

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if event.x >= self.size.width - 3:  # the ✕ and the padding after it
            self.action_remove()
        else:
            self.action_open()

    def action_open(self) -> None:
        if self.attachment is None:
            self.app.notify(f"{self.path} is still being prepared", markup=False)
            return
        self.app.push_screen(AttachmentView(self.attachment))

    def action_remove(self) -> None:
        self.post_message(self.Removed(self))


class AttachmentChips(Horizontal):
    """The chips, in the order they were attached. An image is prepared (checked, scaled) in a
    worker thread: its chip says "preparing" until ``prepared`` or ``failed`` is called, and
    ``Settled`` is posted whenever the last one still being prepared is done (or removed)."""

    DEFAULT_CSS = """
    AttachmentChips { height: auto; max-height: 3; display: none; }
    """

    class Settled(Message):
        """No attachment is being prepared any more; ``failed`` names those that could not be
        attached since the last time."""

        def __init__(self, failed: list[str]) -> None:
            super().__init__()
            self.failed = failed

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chips: list[AttachmentChip] = []
        self._failed: list[str] = []

    @property
    def attachments(self) -> list[Attachment]:
        """The attachments ready to be sent, in order."""
        return [chip.attachment for chip in self.chips if chip.attachment is not None]

    @property
    def preparing(self) -> list[str]:
        """The paths of the images still being prepared."""
        return [chip.path for chip in self.chips if chip.attachment is None]

    def add(self, attachment: Attachment) -> None:
        self._mount(AttachmentChip(attachment))

    def add_preparing(self, path: str) -> AttachmentChip:
        """A chip that says the image at ``path`` is being prepared (see ``prepared``)."""
        chip = AttachmentChip(None, path)
        self._mount(chip)
        return chip

    def prepared(self, chip: AttachmentChip, attachment: Attachment) -> None:
        """The image of ``chip`` is ready (ignored when the chip was removed meanwhile)."""
        if chip in self.chips:
            chip.prepared(attachment)
            self._settle()

    def failed(self, chip: AttachmentChip) -> None:
        """The image of ``chip`` cannot be sent: its chip goes."""
        if chip in self.chips:
            self._drop(chip)
            self._failed.append(chip.path)
            self._settle()

    def _mount(self, chip: AttachmentChip) -> None:
        for old in [c for c in self.chips if c.path == chip.path]:
            self._drop(old)
        self.chips.append(chip)
        self.mount(chip)
        self.display = True

    def _drop(self, chip: AttachmentChip) -> None:
        self.chips.remove(chip)
        chip.remove()
        self.display = bool(self.chips)

    def _settle(self) -> None:
        if not self.preparing:
            failed, self._failed = self._failed, []
            self.post_message(self.Settled(failed))

    def take_all(self) -> tuple[Attachment, ...]:
        """The attachments (for the message being sent); the chips go."""
        taken = tuple(self.attachments)
        self.chips = []
        self.remove_children()
        self.display = False
        return taken

    def on_attachment_chip_removed(self, message: AttachmentChip.Removed) -> None:
        message.stop()
        if message.chip not in self.chips:
            return
        was_preparing = message.chip.attachment is None
        self._drop(message.chip)
        self.app.notify(f"removed {message.chip.path}", markup=False)
        if was_preparing:
            self._settle()


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
            image = self.attachment.image
            if image is not None:
                from .image_thumbnail import ImageSnapshot, drawn_inline

                drawn = drawn_inline(getattr(self.app, "host", None))
                yield Static(image_note(image, drawn=drawn), markup=False)
                if drawn:
                    yield ImageSnapshot(image).build()
            else:
                yield Static(safe_text(self.attachment.text))

    def action_close(self) -> None:
        self.dismiss(None)
