"""An image's bytes made into what a model receives: a PNG, JPEG, GIF or WebP the providers all
take, its long side at most ``MAX_SIDE`` pixels and its file at most ``MAX_BYTES``.

The limits are the strictest provider's: Anthropic scales anything with a long side past 1568
pixels down itself (paying for the larger upload) and refuses an image over 5 MB of base64, which
``MAX_BYTES`` of data stays under. An image within them is sent byte for byte as it is; a larger
one is decoded, scaled and encoded again (PNG when it has transparency, else JPEG). The whole
image is decoded either way, so a corrupt or truncated file is refused here, before anything is
sent, with a message naming it.
"""

from __future__ import annotations

import hashlib
import io
from typing import Any, BinaryIO

from ..conversation import ImagePart

MAX_SIDE = 1568
MAX_BYTES = 3_750_000  # 5,000,000 bytes once base64-encoded
MAX_INPUT_BYTES = 20 * 1024 * 1024  # the largest file (or tool image) read to be decoded
MAX_PIXELS = 64_000_000  # a larger canvas is refused before it is decoded (a "bomb")
_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
_JPEG_QUALITY = 85


class ImageError(ValueError):
    """Why an image cannot be sent (one line, naming it)."""


def image_type(head: bytes) -> str | None:
    """The media type a file's first bytes (12 are enough) say it has, among those sent."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def sniffed_image(handle: BinaryIO) -> str | None:
    """The media type an open file's first bytes say it has (among those sent); rewinds it."""
    head = handle.read(12)
    handle.seek(0)
    return image_type(head)


def read_image(handle: BinaryIO, name: str) -> ImagePart:
    """The image in an open file, read up to the limit; ImageError when it cannot be sent."""
    return prepare_image(handle.read(MAX_INPUT_BYTES + 1), name)


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def prepare_image(data: bytes, name: str) -> ImagePart:
    """``data`` as the model gets it; ImageError when it is no image that can be sent."""
    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(f"{name} is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MB")
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = _TYPES.get(image.format or "")
            if kind is None:
                raise ImageError(
                    f"{name} is a {image.format or 'unknown'} image; "
                    "only PNG, JPEG, GIF and WebP are sent"
                )
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise ImageError(f"{name} is {width}x{height} pixels, too large to decode")
            if max(width, height) <= MAX_SIDE and len(data) <= MAX_BYTES:
                image.load()  # decoded whole: a corrupt file is refused here
                return ImagePart(kind, data, digest_of(data), width, height)
            if kind == "image/jpeg":  # decoded straight to about the size it is scaled to
                image.draft("RGB", (MAX_SIDE, MAX_SIDE))
            image.load()
            return _scaled(image, name)
    except ImageError:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError):
        raise ImageError(f"{name} is not an image that can be read") from None
    except (OSError, SyntaxError, ValueError, EOFError, MemoryError) as exc:
        raise ImageError(f"{name} is a corrupt or truncated image ({exc})") from None


def _scaled(image: Any, name: str) -> ImagePart:
    """The image (its first frame) scaled to fit, encoded until it is small enough."""
    from PIL import Image, ImageOps

    image.seek(0)
    frame = ImageOps.exif_transpose(image) or image
    alpha = frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info
    frame = frame.convert("RGBA" if alpha else "RGB")
    side = min(MAX_SIDE, max(frame.size))
    for _ in range(12):
        fitted = frame.copy()
        # reducing_gap: a box reduction first, then Lanczos on what is left (as good, faster).
        fitted.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)
        out = io.BytesIO()
        if alpha:
            fitted.save(out, "PNG", optimize=True)
        else:
            fitted.save(out, "JPEG", quality=_JPEG_QUALITY, optimize=True)
        data = out.getvalue()
        if len(data) <= MAX_BYTES:
            kind = "image/png" if alpha else "image/jpeg"
            width, height = fitted.size
            return ImagePart(kind, data, digest_of(data), width, height, scaled=True)
        side = int(side * 0.75)
    raise ImageError(f"{name} could not be made smaller than {MAX_BYTES:,} bytes")
