"""The data folder's images, each in a file named by the SHA-256 of its bytes
(``images/<hex>.png`` beside ``sessions/``). A session record holds the name, media type and
size; resume, fork, export and replay read the file. Files are written 0600, atomically (a
temporary file renamed into place), once: the same image attached twice is one file."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from ..conversation import ImagePart
from ..session.paths import data_dir, ensure_private_dir
from ..session.records import StoredImage
from .prepare import digest_of

_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}
_DIGEST = re.compile(r"[0-9a-f]{64}")


def images_dir() -> Path:
    return data_dir() / "images"


def image_file(digest: str, media_type: str, root: Path | None = None) -> Path | None:
    """Where the image is kept; None for a name that is not a digest (a hostile record)."""
    suffix = _SUFFIX.get(media_type)
    if suffix is None or not _DIGEST.fullmatch(digest):
        return None
    return (root or images_dir()) / f"{digest}{suffix}"


def save_image(image: ImagePart, root: Path | None = None) -> Path:
    """Keep ``image`` in the store (once); raises OSError when the disk refuses."""
    path = image_file(image.digest, image.media_type, root)
    if path is None:
        raise ValueError(f"not an image the store keeps: {image.media_type}")
    folder = ensure_private_dir(path.parent)
    with contextlib.suppress(OSError):
        if path.stat().st_size == len(image.data):
            return path  # named by its content: the same bytes are there
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".incoming-")  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(image.data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path


def stored(image: ImagePart) -> StoredImage:
    """What a session record keeps of ``image``."""
    return StoredImage(
        digest=image.digest,
        media_type=image.media_type,
        width=image.width,
        height=image.height,
        size=len(image.data),
        scaled=image.scaled,
    )


def restored(ref: StoredImage, root: Path | None = None) -> ImagePart | None:
    """The image a record refers to, or None when its file is gone or is not that image."""
    path = image_file(ref.digest, ref.media_type, root)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if digest_of(data) != ref.digest:
        return None
    return ImagePart(ref.media_type, data, ref.digest, ref.width, ref.height, ref.scaled)


def missing_note(name: str, ref: StoredImage) -> str:
    """What the model is told instead of an image whose file is gone."""
    return (
        f"[image {name} ({ref.width}x{ref.height}) is no longer in tui-agent's data folder; "
        "it is not sent again]"
    )
