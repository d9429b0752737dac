"""Pruning checkpoints (checkpoints/prune.py) with real tools, real session files and real git:
what a kept session refers to survives and still rewinds; what only an old or a deleted session
referred to goes; an open session, a rewind journal, a held lock and a damaged session file each
keep data from going."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tui_agent.checkpoints.files import git_blob_id

from .checkpoint_helpers import picture
from .prune_helpers import World, command, write


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def test_a_recent_session_keeps_its_blobs_and_an_old_one_does_not(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    (world.workspace / "b.txt").write_text("b before\n")
    old = await world.session(write("b.txt", "b by the agent\n"))
    recent = await world.session(write("a.txt", "a by the agent\n"))
    assert world.kept_blobs() == {sha("a before\n"), sha("b before\n")}
    world.age(old, 31)
    world.age_checkpoints()
    report = world.prune(30)
    [store] = report.stores
    assert (store.action, store.blobs, store.objects) == ("pruned", 1, 0)
    assert store.bytes_freed > 0 and store.workspace == str(world.workspace)
    assert world.kept_blobs() == {sha("a before\n")}
    # The kept session still rewinds; the old one says its content is no longer kept.
    done = world.rewind(recent)
    assert [(f["path"], f["action"]) for f in done.files] == [("a.txt", "restored")]
    assert (world.workspace / "a.txt").read_text() == "a before\n"
    done = world.rewind(old)
    assert [(f["path"], f["action"], f["why"]) for f in done.files] == [
        ("b.txt", "skipped", "its earlier content is no longer kept")
    ]
    assert (world.workspace / "b.txt").read_text() == "b by the agent\n"


async def test_snapshots_only_old_sessions_name_are_removed_the_git_way(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "base.txt").write_text("base\n")
    (world.workspace / ".git").mkdir()  # the workspace's own repository: never touched
    (world.workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    own_git = picture(world.workspace / ".git")
    old = await world.session(command("echo gone > g.txt"))
    (world.workspace / "g.txt").unlink()
    (world.workspace / "z.txt").write_text("the person's\n")
    recent = await world.session(command("echo new > y.txt"))
    old_trees, recent_trees = world.trees_of(old), world.trees_of(recent)
    assert len(old_trees) == len(recent_trees) == 2 and not old_trees & recent_trees
    only_old = old_trees | {git_blob_id(b"gone\n")}
    assert world.present(only_old | recent_trees) == only_old | recent_trees
    world.age(old, 45)
    world.age_checkpoints()
    [store] = world.prune(30).stores
    assert store.action == "pruned" and store.objects >= 3, store
    assert world.present(only_old) == set()
    assert world.present(recent_trees) == recent_trees
    assert picture(world.workspace / ".git") == own_git
    done = world.rewind(recent)
    assert [(f["path"], f["action"]) for f in done.files] == [("y.txt", "deleted")]
    assert not (world.workspace / "y.txt").exists()
    # Nothing more to remove: the next prune leaves the repository alone.
    world.age_checkpoints()
    assert world.prune(30).stores[0].objects <= 1  # at most the list of what was kept


async def test_a_deleted_session_keeps_nothing_and_an_unused_folder_goes(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    (world.workspace / "b.txt").write_text("b before\n")
    first = await world.session(write("a.txt", "a1\n"), command("echo x > x.txt"))
    second = await world.session(write("b.txt", "b1\n"))
    trees = world.trees_of(first)
    assert world.present(trees) == trees
    world.store.delete(first)
    world.age_checkpoints()
    [store] = world.prune(30).stores
    # The snapshot after the command is the shadow index's (git keeps it and its files); the
    # one before it goes.
    assert (store.action, store.blobs, store.objects) == ("pruned", 1, 1)
    assert world.kept_blobs() == {sha("b before\n")}
    assert len(world.present(trees)) == 1
    world.store.delete(second)
    world.age_checkpoints()
    [store] = world.prune(30).stores
    assert (store.action, store.why) == ("removed", "no kept session refers to it")
    assert store.bytes_freed > 0
    assert not world.folder.path.exists()
    assert os.listdir(world.root) == []  # nothing set aside is left behind
    assert world.prune(30).stores == []


async def test_an_open_session_keeps_its_data_however_old(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 400)
    world.age_checkpoints()
    with world.store.open_for_append(old):  # open in the app, say
        [store] = world.prune(30).stores
        assert store.action == "unchanged", store
        assert world.kept_blobs() == {sha("a before\n")}
    world.age(old, 400)
    [store] = world.prune(30).stores
    assert store.action == "removed"


async def test_keep_days_0_keeps_every_saved_session(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 3650)
    world.age_checkpoints()
    assert world.prune(0).stores[0].action == "unchanged"
    assert world.kept_blobs() == {sha("a before\n")}


async def test_what_was_written_in_the_last_hour_stays(tmp_path: Path) -> None:
    """A capture whose record is not in any session yet (it is written just after) survives."""
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    await world.bench.call("write_file", '{"path": "a.txt", "content": "a1"}')  # no session
    [store] = world.prune(30).stores
    assert store.action == "unchanged"
    assert world.kept_blobs() == {sha("a before\n")}
    world.age_checkpoints()
    assert world.prune(30).stores[0].action == "removed"


async def test_a_rewind_journal_or_a_held_lock_leaves_the_folder_alone(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 40)
    world.folder.journal.write_text('{"id": "x", "phase": "staging", "items": []}')
    world.age_checkpoints()
    before = picture(world.root)
    [store] = world.prune(30).stores
    assert store.action == "skipped" and "rewind" in store.why
    assert picture(world.root) == before
    world.folder.journal.unlink()
    with world.folder.locked():  # a snapshot or a rewind is running
        [store] = world.prune(30).stores
    assert (store.action, store.why) == ("skipped", "in use (a checkpoint or a rewind is running)")
    assert world.kept_blobs() == {sha("a before\n")}
    assert world.prune(30).stores[0].action == "removed"


async def test_a_damaged_session_blocks_its_workspace(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 40)
    # Another session of the workspace, with a checkpoint line torn in the middle.
    damaged = await world.session(write("a.txt", "a2\n"))
    path = world.path(damaged)
    lines = path.read_bytes().splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if b'"type":"checkpoint"' in line)
    lines[at] = lines[at][:60] + b"\n"
    path.write_bytes(b"".join(lines))
    world.age(damaged, 40)
    world.age_checkpoints()
    before = picture(world.root)
    [store] = world.prune(30).stores
    assert store.action == "blocked"
    assert f"session {damaged} cannot be read whole (line {at + 1}: torn" in store.why
    assert store.why.endswith("fix or delete it")
    assert picture(world.root) == before
    # A torn line that cannot name checkpoint data (an answer's) blocks nothing.
    lines[at] = b'{"ts":1.0,"type":"assistant","text":"cut sh\n'
    path.write_bytes(b"".join(lines))
    world.age(damaged, 40)
    assert world.prune(30).stores[0].action == "removed"


async def test_a_session_of_unknown_workspace_blocks_every_folder(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 40)
    world.sessions.joinpath("garbage.jsonl").write_bytes(b"\x00\xff not a session\n")
    world.age_checkpoints()
    [store] = world.prune(30).stores
    assert store.action == "blocked"
    assert "session garbage cannot be read whole" in store.why
    assert "no readable header" in store.why
    assert world.kept_blobs() == {sha("a before\n")}


async def test_a_dry_run_removes_nothing_and_says_what_would_go(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    (world.workspace / "b.txt").write_text("b before\n")
    old = await world.session(write("a.txt", "a1\n"), command("echo gone > g.txt"))
    (world.workspace / "g.txt").unlink()
    await world.session(write("b.txt", "b1\n"), command("echo y > y.txt"))
    world.age(old, 40)
    world.age_checkpoints()
    before = picture(world.root)
    dry = world.prune(30, dry_run=True)
    assert dry.dry_run
    assert picture(world.root) == before
    [would] = dry.stores
    assert would.action == "pruned" and would.blobs == 1 and would.objects >= 3
    assert would.bytes_freed > 0
    [done] = world.prune(30).stores
    assert (done.blobs, done.objects) == (would.blobs, would.objects)
    assert done.bytes_freed > 0


async def test_a_symlink_in_the_blob_store_is_never_followed(tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.workspace / "a.txt").write_text("a before\n")
    (world.workspace / "b.txt").write_text("b before\n")
    old = await world.session(write("a.txt", "a1\n"))
    await world.session(write("b.txt", "b1\n"))
    world.age(old, 40)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ("0" * 62)).write_text("not ours\n")
    (world.folder.blobs.root / "00").symlink_to(outside)
    [store] = world.prune(30, grace=0).stores
    assert (store.action, store.blobs) == ("pruned", 1)
    assert (outside / ("0" * 62)).read_text() == "not ours\n"
