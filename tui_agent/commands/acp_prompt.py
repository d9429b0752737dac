"""What `tui-agent acp` sends for an ACP prompt: its text, and the files it names as the app's
``@path`` attachments.

A resource link to a file inside the workspace is read as the app reads an ``@`` mention
(``prompting/attachments.py``: the workspace and sandbox rules, text only, capped); an
embedded text resource is the client's copy of a file, attached as it came (capped the same
way); an image is checked and scaled as the app's pasted images are. Anything else (a link
outside the workspace, a file that cannot be attached) stays in the message as its address,
and the reason is said on stderr.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import RequestError
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

from ..conversation import Attachment
from ..images import ImageError, prepare_image
from ..prompting.attachments import MAX_ATTACHMENT_BYTES, AttachError, read_attachment
from ..tools.spec import ToolContext


@dataclass(frozen=True)
class PromptMessage:
    text: str
    attachments: tuple[Attachment, ...] = ()


def prompt_message(
    blocks: list[Any], ctx: ToolContext, say: Callable[[str], None]
) -> PromptMessage:
    """The user message of a ``session/prompt``; RequestError when it holds nothing to send."""
    parts: list[str] = []
    attachments: list[Attachment] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            attached = _linked(block.uri, ctx, say)
            if attached is None:
                parts.append(block.uri)
            else:
                attachments.append(attached)
        elif isinstance(block, ImageContentBlock):
            attachments.append(_image(block, 1 + sum(a.image is not None for a in attachments)))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                attachments.append(_embedded(resource.uri, text, ctx))
            else:
                say(f"not attached: {resource.uri} is not text")
                parts.append(resource.uri)
    text = "\n".join(part for part in parts if part)
    if not text.strip() and not attachments:
        raise RequestError.invalid_params({"message": "the prompt has no text"})
    return PromptMessage(text, tuple(attachments))


def _workspace_path(uri: str, ctx: ToolContext) -> str | None:
    """The workspace-relative path a ``file:`` URI (or a plain path) names, when it is inside."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("", "file") or (parsed.scheme == "file" and parsed.netloc):
        return None
    path = unquote(parsed.path)
    for workspace in dict.fromkeys((str(ctx.workspace), os.path.realpath(ctx.workspace))):
        absolute = os.path.normpath(os.path.join(workspace, path))
        if absolute == workspace or absolute.startswith(workspace.rstrip(os.sep) + os.sep):
            return Path(absolute).relative_to(workspace).as_posix()
    return None


def _linked(uri: str, ctx: ToolContext, say: Callable[[str], None]) -> Attachment | None:
    path = _workspace_path(uri, ctx)
    if path is None:
        say(f"not attached: {uri} is not a file in the workspace")
        return None
    try:
        return read_attachment(path, ctx)
    except AttachError as exc:
        say(f"not attached: {exc}")
        return None


def _image(block: ImageContentBlock, number: int) -> Attachment:
    """An image the client sent (a screenshot, a pasted picture), checked and scaled as the
    app's pasted images are; RequestError when it cannot be sent."""
    name = f"the prompt's image {number}"
    try:
        data = base64.b64decode(block.data, validate=True)
    except binascii.Error:
        raise RequestError.invalid_params({"message": f"{name} is not base64"}) from None
    try:
        image = prepare_image(data, name)
    except ImageError as exc:
        raise RequestError.invalid_params({"message": str(exc)}) from None
    kind = image.media_type.removeprefix("image/").replace("jpeg", "jpg")
    return Attachment(f"image-{image.digest[:8]}.{kind}", "", image=image)


def _embedded(uri: str, text: str, ctx: ToolContext) -> Attachment:
    shown = _workspace_path(uri, ctx) or uri
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_ATTACHMENT_BYTES:
        return Attachment(shown, text)
    return Attachment(shown, data[:MAX_ATTACHMENT_BYTES].decode("utf-8", "ignore"), True)
