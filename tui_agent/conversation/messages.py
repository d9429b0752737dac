"""Messages of a conversation, as the agent keeps them and the providers send them.

An assistant message keeps the raw SSE events it was decoded from: each provider rebuilds its
own native message from them (thinking signatures, encrypted reasoning, thought signatures),
byte-exact. A message from another protocol falls back to its text and calls.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from ..stream.turn import ToolCall


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image as the model receives it, already checked and scaled down (images/prepare.py).

    ``digest`` (the SHA-256 of ``data``, hex) names its file in the data folder's image store:
    a session file refers to it, never holds it.
    """

    media_type: str  # image/png, image/jpeg, image/gif or image/webp
    data: bytes = field(repr=False)
    digest: str
    width: int
    height: int
    scaled: bool = False  # made smaller than the original to fit what providers take

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"

    def describe(self) -> str:
        """``PNG 640x480, 12 KB`` (the size sent)."""
        kind = self.media_type.removeprefix("image/").upper()
        return f"{kind} {self.width}x{self.height}, {shown_size(len(self.data))}"


def shown_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the person attached to a message (@path): its text, sent as a text block of it,
    or an image, sent as the protocol's image part after a text block naming it."""

    path: str  # relative to the workspace, '/'-separated
    text: str
    truncated: bool = False  # only the start of the file
    image: ImagePart | None = None

    def block(self) -> str:
        path = _quoted(self.path)
        if self.image is not None:
            image = self.image
            return (
                f'<attached_image path="{path}" media_type="{image.media_type}" '
                f'width="{image.width}" height="{image.height}"/>'
            )
        cut = ' truncated="true"' if self.truncated else ""
        return f'<attached_file path="{path}"{cut}>\n{self.text}\n</attached_file>'

    def sent(self) -> str:
        """What is sent of it, for a chip: ``(1.2 KB, cut)``, ``(PNG 1568x882, 240.0 KB,
        scaled down)``."""
        if self.image is not None:
            scaled = ", scaled down" if self.image.scaled else ""
            return f"({self.image.describe()}{scaled})"
        cut = ", cut" if self.truncated else ""
        return f"({shown_size(len(self.text.encode('utf-8', 'replace')))}{cut})"


def attachment_label(attachment: Attachment) -> str:
    """``notes.txt (1.2 KB)``: the file and what is sent of it."""
    return f"{attachment.path} {attachment.sent()}"


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str  # what the person wrote, and only that
    attachments: tuple[Attachment, ...] = ()
    # What the app tells the model with this message, from the tool side (an unconfined
    # re-run's result, agent/rerun.py): sent before the text, never shown as the person's.
    notes: tuple[str, ...] = ()

    def blocks(self) -> list[str]:
        """The text blocks the model receives: the notes, the message, each attached file."""
        return [*self.notes, self.text, *(attachment.block() for attachment in self.attachments)]

    def parts(self) -> list[str | ImagePart]:
        """What the model receives in order: the text blocks, each image after its own block."""
        out: list[str | ImagePart] = [*self.notes, self.text]
        for attachment in self.attachments:
            out.append(attachment.block())
            if attachment.image is not None:
                out.append(attachment.image)
        return out

    @property
    def images(self) -> tuple[ImagePart, ...]:
        return tuple(a.image for a in self.attachments if a.image is not None)


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    protocol: str
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    response_id: str | None = None
    raw: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (event, data)


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    call_id: str
    name: str
    output: str
    is_error: bool = False
    # Images the tool returned (read_file of an image, an MCP tool's image content): sent in
    # the protocol's tool result where it takes images, else in a user message right after.
    images: tuple[ImagePart, ...] = ()


Message = UserMessage | AssistantMessage | ToolResultMessage
