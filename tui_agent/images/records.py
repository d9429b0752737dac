"""Attachments and tool results with images, to and from session records: the image is kept in
the store when the record is made, and read back from it when the conversation is rebuilt."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from ..conversation import Attachment, ImagePart, shown_size
from ..session.records import AttachedFile, StoredImage
from .store import missing_note, restored, save_image, stored

log = logging.getLogger(__name__)


def keep_images(images: Iterable[ImagePart], root: Path | None = None) -> str | None:
    """Save each image in the store; a warning to show when the disk refused one."""
    for image in images:
        try:
            save_image(image, root)
        except OSError as exc:
            log.warning("an image could not be saved", exc_info=True)
            return (
                f"an image could not be saved in the data folder ({exc.strerror or exc}); "
                "it is sent, but a resumed session will not have it"
            )
    return None


def attached_file(attachment: Attachment) -> AttachedFile:
    image = stored(attachment.image) if attachment.image is not None else None
    return AttachedFile(
        path=attachment.path, text=attachment.text, truncated=attachment.truncated, image=image
    )


def record_label(record: AttachedFile) -> str:
    """``shot.png (PNG 1568x882, 240.0 KB)``, ``notes.txt (1.2 KB, cut)``: what was sent, read
    from the record alone (replay, export)."""
    image = record.image
    if image is None:
        cut = ", cut" if record.truncated else ""
        return f"{record.path} ({shown_size(len(record.text.encode('utf-8', 'replace')))}{cut})"
    kind = image.media_type.removeprefix("image/").upper()
    scaled = ", scaled down" if image.scaled else ""
    return f"{record.path} ({kind} {image.width}x{image.height}, {shown_size(image.size)}{scaled})"


def attachment(record: AttachedFile, root: Path | None = None) -> Attachment:
    """The attachment a record holds; an image whose file is gone becomes a note saying so."""
    if record.image is None:
        return Attachment(record.path, record.text, record.truncated)
    image = restored(record.image, root)
    if image is None:
        return Attachment(record.path, missing_note(record.path, record.image))
    return Attachment(record.path, "", image=image)


def result_images(
    refs: Iterable[StoredImage], root: Path | None = None
) -> tuple[tuple[ImagePart, ...], list[str]]:
    """A tool result's images read back, and a note for each one that is gone."""
    found: list[ImagePart] = []
    notes: list[str] = []
    for ref in refs:
        image = restored(ref, root)
        if image is None:
            notes.append(missing_note("returned by the tool", ref))
        else:
            found.append(image)
    return tuple(found), notes
