"""Deleting a session deletes the images only it named; one another session names stays, and
so does one saved a moment ago (a message being written may name it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.conversation import Attachment, ImagePart
from tui_agent.images import prepare_image
from tui_agent.images.cleanup import delete_session
from tui_agent.images.records import attached_file, keep_images
from tui_agent.images.store import images_dir, stored
from tui_agent.session import SessionStore
from tui_agent.session.records import ToolResultRecord, UserRecord

from .image_helpers import png


def _session(
    store: SessionStore, *attached: Attachment, results: tuple[ImagePart, ...] = ()
) -> str:
    writer = store.create(profile="p", protocol="anthropic", model="m", workspace="ws")
    writer.append(UserRecord(text="look", attachments=[attached_file(a) for a in attached]))
    for image in results:
        writer.append(
            ToolResultRecord(call_id="c", name="read_file", output="", images=[stored(image)])
        )
    writer.close()
    return writer.session_id


def test_only_the_images_no_other_session_names_are_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = SessionStore(tmp_path / "data" / "tui-agent" / "sessions")
    shared, own, returned, fresh = (
        prepare_image(png(4, 4, (i * 40, 0, 0)), f"{i}.png") for i in range(4)
    )
    assert keep_images([shared, own, returned, fresh]) is None
    for image in (shared, own, returned):  # saved long ago
        os.utime(images_dir() / f"{image.digest}.png", (1_000_000, 1_000_000))
    first = _session(
        store,
        Attachment("a.png", "", image=shared),
        Attachment("b.png", "", image=own),
        Attachment("c.png", "", image=fresh),
        results=(returned,),
    )
    _session(store, Attachment("a.png", "", image=shared))
    assert delete_session(store, first) == 2
    left = sorted(p.name for p in images_dir().iterdir())
    assert left == sorted(f"{image.digest}.png" for image in (shared, fresh))
    assert len(list(store.directory.glob("*.jsonl"))) == 1
