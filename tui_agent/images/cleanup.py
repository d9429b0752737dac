"""Deleting a session deletes the images only it named: a screenshot goes with the conversation
it was sent in, and stays while another session (a fork, a resume elsewhere) still names it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..session import SessionError, SessionStore
from ..session.records import StoredImage, SubagentRecord, ToolResultRecord, UserRecord
from .store import image_file

FRESH_S = 60.0  # an image this new may belong to a message being written right now: kept


def named_images(records: Iterable[Any]) -> list[StoredImage]:
    """The images a session's records name (a subagent's too)."""
    out: list[StoredImage] = []
    for record in records:
        inner = record.record if isinstance(record, SubagentRecord) else record
        if isinstance(inner, UserRecord):
            out += [a.image for a in inner.attachments if a.image is not None]
        elif isinstance(inner, ToolResultRecord):
            out += inner.images
    return out


def delete_session(store: SessionStore, session_id: str, root: Path | None = None) -> int:
    """Delete the session (raises SessionError as ``store.delete``), then each image it named
    that no other session file names; the number of images removed."""
    try:
        named = named_images(store.load(session_id).records)
    except SessionError:
        named = []
    store.delete(session_id)
    if not named:
        return 0
    wanted = {ref.digest: ref for ref in named}
    for path in sorted(store.directory.glob("*.jsonl")):
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            for digest in [d for d in wanted if d.encode() in data]:
                del wanted[digest]
        if not wanted:
            return 0
    removed = 0
    for ref in wanted.values():
        file = image_file(ref.digest, ref.media_type, root)
        with contextlib.suppress(OSError):
            if file is not None and time.time() - file.stat().st_mtime > FRESH_S:
                file.unlink()
                removed += 1
    return removed
