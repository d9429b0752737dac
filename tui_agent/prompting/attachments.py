"""Reading a file to attach to a message (@path), under the rules ``read_file`` follows.

The path must resolve inside the workspace (no symlink leading out), outside the app's own
folders and outside the sandbox's denied paths; the file is opened from the workspace down with
``O_NOFOLLOW`` at every step, must be a regular file with one hard link, and must not look
binary. Only the first ``MAX_ATTACHMENT_BYTES`` are attached (the block says it was cut). A PNG,
JPEG, GIF or WebP file is attached as an image (checked and scaled down: images/).

``mentioned_paths`` finds the ``@path`` words of a message, for ``tui-agent run``. A file the
person names themselves (``run --attach``, a path pasted or dropped in the message box) may also
be an image from outside the workspace (a screenshot folder): never one in the app's own folders
or the sandbox's denied paths, never through a symlink.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..conversation import Attachment
from ..images import MAX_INPUT_BYTES, ImageError, prepare_image, sniffed_image
from ..sandbox.policy import denied_real_paths
from ..tools.file_access import open_regular_file
from ..tools.sandbox import SandboxError, resolve_in_workspace, shown_path
from ..tools.spec import ToolContext, ToolFailure
from ..tools.text_files import is_binary_file

MAX_ATTACHMENT_BYTES = 64 * 1024


class AttachError(Exception):
    """Why a file cannot be attached (one line, naming the workspace path)."""


@dataclass(frozen=True)
class ImageToPrepare:
    """An image file's bytes, read under the rules, not yet checked and scaled (that takes a
    while for a large photo: the app does it in a worker thread)."""

    path: str  # as the chip and the model name it
    data: bytes = field(repr=False)

    def prepare(self) -> Attachment:
        """The attachment as sent; AttachError when the image cannot be sent."""
        try:
            return Attachment(self.path, "", image=prepare_image(self.data, self.path))
        except ImageError as exc:
            raise AttachError(str(exc)) from None


def prepared(found: Attachment | ImageToPrepare) -> Attachment:
    return found.prepare() if isinstance(found, ImageToPrepare) else found


def read_attachment(path: str, ctx: ToolContext, cap: int = MAX_ATTACHMENT_BYTES) -> Attachment:
    """The file at ``path`` as attached (an image checked and scaled); AttachError if it
    cannot be."""
    return prepared(open_attachment(path, ctx, cap))


def open_attachment(
    path: str, ctx: ToolContext, cap: int = MAX_ATTACHMENT_BYTES
) -> Attachment | ImageToPrepare:
    """As ``read_attachment``, but an image is returned as read, still to be prepared."""
    try:
        real = resolve_in_workspace(path, ctx)
    except SandboxError as exc:
        raise AttachError(str(exc)) from None
    shown = shown_path(real, ctx)
    if _denied(real, ctx):
        raise AttachError(f"{shown} is in a path the sandbox denies; it cannot be attached")
    try:
        with open_regular_file(real, shown, ctx.workspace) as handle:
            if sniffed_image(handle) is not None:
                return ImageToPrepare(shown, handle.read(MAX_INPUT_BYTES + 1))
            if is_binary_file(handle):
                raise AttachError(f"{shown} looks like a binary file; only text is attached")
            data = handle.read(cap + 1)
    except ToolFailure as exc:
        raise AttachError(str(exc)) from None
    except OSError as exc:
        raise AttachError(f"{shown}: {exc.strerror or type(exc).__name__}") from None
    truncated = len(data) > cap
    text = data[:cap].decode("utf-8", "replace")
    return Attachment(shown, text, truncated)


_MENTION = re.compile(r"(?<!\S)@(\S+)")
_TRAILING = ",.;:!?)]}'\""


def mentioned_paths(text: str, workspace: Path) -> list[str]:
    """The ``@path`` words of ``text`` that name an existing file (trailing punctuation left
    out); any other ``@word`` (a handle, a decorator) is only text."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        path = match.group(1).rstrip(_TRAILING)
        if path and path not in found and (workspace / path).is_file():
            found.append(path)
    return found


def read_attachments(paths: Iterable[str], ctx: ToolContext) -> tuple[Attachment, ...]:
    """Each file attached in order (once); AttachError for the first that cannot be."""
    attached: dict[str, Attachment] = {}
    for path in paths:
        attachment = read_attachment(path, ctx)
        attached.setdefault(attachment.path, attachment)
    return tuple(attached.values())


def read_chosen_file(path: str, ctx: ToolContext) -> Attachment:
    """A file the person chose (``--attach``, a pasted path): as ``read_attachment`` inside the
    workspace; outside it, only an image, under the same refusals."""
    return prepared(open_chosen_file(path, ctx))


def open_chosen_file(path: str, ctx: ToolContext) -> Attachment | ImageToPrepare:
    """As ``read_chosen_file``, but an image is returned as read, still to be prepared."""
    real = Path(os.path.realpath(Path(ctx.workspace) / os.path.expanduser(path)))
    workspace = Path(os.path.realpath(ctx.workspace))
    if real.is_relative_to(workspace):
        return open_attachment(str(real), ctx)
    shown = real.name
    if _denied(real, ctx) or any(real.is_relative_to(p) for p in ctx.protected):
        raise AttachError(f"{path} is in a folder that is refused; it cannot be attached")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise AttachError(f"{path} is not a regular file")
            if sniffed_image(handle) is None:
                raise AttachError(
                    f"{path} is outside the workspace; only an image from outside it is attached"
                )
            return ImageToPrepare(shown, handle.read(MAX_INPUT_BYTES + 1))
    except OSError as exc:
        raise AttachError(f"{path}: {exc.strerror or type(exc).__name__}") from None


def pasted_path(text: str) -> str | None:
    """The file path a paste is, when it is one (a terminal pastes a dropped file as its path:
    quoted, with backslash-escaped spaces, or as a file:// URI), else None."""
    text = text.strip()
    if not text or "\n" in text or len(text) > 4096:
        return None
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if text.startswith("file://"):
        text = unquote(urlsplit(text).path)
    else:
        text = re.sub(r"\\(.)", r"\1", text)
    if not text.startswith(("/", "~")):
        return None
    return text if os.path.isfile(os.path.expanduser(text)) else None


def pasted_image(text: str) -> str | None:
    """The path a paste is when it names an image file (PNG, JPEG, GIF, WebP), else None."""
    path = pasted_path(text)
    if path is None:
        return None
    try:
        with open(os.path.expanduser(path), "rb") as handle:
            return path if sniffed_image(handle) is not None else None
    except OSError:
        return None


def _denied(real: Path, ctx: ToolContext) -> bool:
    return any(real.is_relative_to(p) for p in denied_real_paths(ctx.sandbox.denied))
