"""Reading a file to attach to a message (@path), under the rules ``read_file`` follows.

The path must resolve inside the workspace (no symlink leading out), outside the app's own
folders and outside the sandbox's denied paths; the file is opened from the workspace down with
``O_NOFOLLOW`` at every step, must be a regular file with one hard link, and must not look
binary. Only the first ``MAX_ATTACHMENT_BYTES`` are attached (the block says it was cut). A PNG,
JPEG, GIF or WebP file is attached as an image (checked and scaled down: images/).

``mentioned_paths`` finds the ``@path`` words of a message, for ``tui-agent run``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..conversation import Attachment
from ..images import ImageError, read_image, sniffed_image
from ..sandbox.policy import denied_real_paths
from ..tools.file_access import open_regular_file
from ..tools.sandbox import SandboxError, resolve_in_workspace, shown_path
from ..tools.spec import ToolContext, ToolFailure
from ..tools.text_files import is_binary_file

MAX_ATTACHMENT_BYTES = 64 * 1024


class AttachError(Exception):
    """Why a file cannot be attached (one line, naming the workspace path)."""


def read_attachment(path: str, ctx: ToolContext, cap: int = MAX_ATTACHMENT_BYTES) -> Attachment:
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
                return Attachment(shown, "", image=read_image(handle, shown))
            if is_binary_file(handle):
                raise AttachError(f"{shown} looks like a binary file; only text is attached")
            data = handle.read(cap + 1)
    except (ToolFailure, ImageError) as exc:
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


def _denied(real: Path, ctx: ToolContext) -> bool:
    return any(real.is_relative_to(p) for p in denied_real_paths(ctx.sandbox.denied))
