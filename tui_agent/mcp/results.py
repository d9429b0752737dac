"""A ``tools/call`` result as what the model gets: text as text, structured content as JSON,
images as images (checked and scaled down like any other: images/; a line names each), audio
and resources, and an image that cannot be sent, as a visible placeholder with type and size."""

from __future__ import annotations

import binascii
import json
from typing import Any

import mcp_types as types

from ..conversation import ImagePart
from ..images import ImageError, prepare_image
from ..tools.spec import ToolOutput


def result_output(result: types.CallToolResult) -> ToolOutput:
    """The model's view of ``result``; ``isError`` makes it an error result."""
    parts: list[str] = []
    texts: list[str] = []
    images: list[ImagePart] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
            parts.append(block.text)
        elif isinstance(block, types.ImageContent):
            shown = placeholder(block)
            try:
                image = prepare_image(_decoded(block.data), "the tool's image")
            except ImageError as exc:
                parts.append(f"{shown[:-1]}; not sent: {exc}]")
                continue
            images.append(image)
            scaled = ", scaled down to fit" if image.scaled else ""
            parts.append(f"{shown[:-1]}; attached as {image.describe()}{scaled}]")
        else:
            parts.append(placeholder(block))
    structured = result.structured_content
    if structured is not None and not any(_same_json(text, structured) for text in texts):
        try:
            shown = json.dumps(structured, ensure_ascii=False, indent=2)
        except (ValueError, RecursionError):
            shown = "(nested too deeply to show)"
        parts.append(f"structured content:\n{shown}" if parts else shown)
    text = "\n".join(parts) if parts else "(the tool returned no content)"
    return ToolOutput(text, is_error=bool(result.is_error), images=tuple(images))


def has_images(result: types.CallToolResult) -> bool:
    """Whether decoding the result's images is work to do off the event loop."""
    return any(isinstance(block, types.ImageContent) for block in result.content)


def placeholder(block: Any) -> str:
    """``[image: image/png, 1204 bytes]`` and the like: the model and user see it was there."""
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        mime = resource.mime_type or "unknown type"
        if isinstance(resource, types.TextResourceContents):
            size = len(resource.text.encode("utf-8", "surrogatepass"))
        else:
            size = _decoded_size(resource.blob)
        return f"[resource {resource.uri}: {mime}, {size} bytes]"
    if isinstance(block, types.ResourceLink):
        mime = block.mime_type or "unknown type"
        sized = f", {block.size} bytes" if block.size is not None else ""
        return f"[resource link {block.uri} ({block.name}): {mime}{sized}]"
    kind = getattr(block, "type", type(block).__name__)
    return f"[{kind} content, not shown]"


def _decoded(data: str) -> bytes:
    try:
        return binascii.a2b_base64(data)
    except (binascii.Error, ValueError):
        raise ImageError("its data is not base64") from None


def _decoded_size(data: str) -> int:
    try:
        return len(binascii.a2b_base64(data))
    except (binascii.Error, ValueError):
        return len(data)


def _same_json(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except (ValueError, RecursionError):  # a hostile server's 100,000 brackets
        return False
