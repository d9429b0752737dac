"""Limits and what is not covered: a tree over the file-count limit is not snapshotted, a file
over the size limit is left out (with a notice naming it), nested repositories are left out."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tui_agent.agent.events import Notice
from tui_agent.checkpoints import Limits, plan_rewind

from .checkpoint_helpers import Bench


async def test_a_tree_over_the_file_count_limit_is_not_snapshotted(tmp_path: Path) -> None:
    bench = Bench(tmp_path, limits=Limits(max_files=5))
    for n in range(6):
        (bench.workspace / f"f{n}.txt").write_text("x")
    out = await bench.call("run_command", json.dumps({"command": "rm f0.txt"}))
    assert not out.is_error
    start = bench.kept.records[0]
    assert start.tree is None and "over the limit of 5" in (start.notice or "")
    assert [r.type for r in bench.kept.records] == ["checkpoint"]  # nothing to compare after
    notices = [e.text for e in bench.events if isinstance(e, Notice)]
    assert any("6 files" in text for text in notices), notices
    assert bench.plan().files == []


async def test_ignored_files_do_not_count_toward_the_limit(tmp_path: Path) -> None:
    bench = Bench(tmp_path, limits=Limits(max_files=5))
    (bench.workspace / ".gitignore").write_text("build/\n")
    (bench.workspace / "build").mkdir()
    for n in range(50):
        (bench.workspace / "build" / f"o{n}").write_text("x")
    await bench.call("run_command", json.dumps({"command": "echo a > a.txt"}))
    assert bench.kept.records[0].tree is not None


async def test_a_file_over_the_size_limit_is_named_and_not_restored(tmp_path: Path) -> None:
    bench = Bench(tmp_path, limits=Limits(max_file_bytes=1000))
    (bench.workspace / "big.bin").write_bytes(b"b" * 5000)
    (bench.workspace / "small.txt").write_text("s\n")
    command = "echo changed > big.bin && echo changed > small.txt"
    await bench.call("run_command", json.dumps({"command": command}))
    assert "big.bin" in (bench.kept.records[0].notice or "")
    # write_file over a file past the limit: recorded as uncovered, never restored.
    (bench.workspace / "big2.bin").write_bytes(b"c" * 5000)
    await bench.call("write_file", json.dumps({"path": "big2.bin", "content": "small now"}))
    assert bench.kept.records[2].files[0].kind == "uncovered"
    plan = bench.plan()
    actions = {f.path: f.action for f in plan.files}
    assert actions["small.txt"] == "restore"
    assert actions["big2.bin"] == "skipped"
    # Left out of the first snapshot, in the second: its earlier state is unknown, never
    # taken for "did not exist" (which would delete it).
    assert actions["big.bin"] == "skipped"
    assert (bench.workspace / "big.bin").read_text() == "changed\n"
    bench.rewind()
    assert (bench.workspace / "big.bin").read_text() == "changed\n"
    assert (bench.workspace / "small.txt").read_text() == "s\n"


async def test_nested_repositories_are_left_out(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    nested = bench.workspace / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (nested / "code.txt").write_text("c")
    (bench.workspace / "top.txt").write_text("t")
    await bench.call("run_command", json.dumps({"command": "echo x > top.txt"}))
    start = bench.kept.records[0]
    assert start.tree is not None and "nested repositor" in (start.notice or "")
    assert [f.path for f in bench.plan().files] == ["top.txt"]


async def test_a_failed_capture_is_recorded_and_the_call_still_runs(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    bench.checkpoints_root.mkdir()
    os.chmod(bench.checkpoints_root, 0o500)
    try:
        if os.access(bench.checkpoints_root, os.W_OK):  # root ignores the bits
            return
        out = await bench.call("write_file", json.dumps({"path": "w.txt", "content": "w"}))
    finally:
        os.chmod(bench.checkpoints_root, 0o700)
    assert not out.is_error and (bench.workspace / "w.txt").exists()
    assert bench.kept.records[0].error
    assert any("without a checkpoint" in e.text for e in bench.events if isinstance(e, Notice))


def test_a_size_limit_is_named_in_a_readable_unit() -> None:
    from tui_agent.checkpoints.shadow import _notice

    assert "1 file(s) over 1,000 bytes (a)" in _notice(["a"], [], Limits(max_file_bytes=1000))
    assert "over 10 MB" in _notice(["a"], [], Limits())
    assert "over 1.5 KB" in _notice(["a"], [], Limits(max_file_bytes=1536))


def _shadow_has(bench: Bench, content: bytes) -> bool:
    """Whether the shadow repository holds a blob of ``content`` (in its object format)."""
    env = {**os.environ, "GIT_DIR": str(bench.folder.shadow)}
    blob = subprocess.run(
        ["git", "hash-object", "--stdin"], input=content, env=env, capture_output=True, check=True
    ).stdout.strip()
    done = subprocess.run(["git", "cat-file", "-e", blob.decode()], env=env, capture_output=True)
    return done.returncode == 0


BIG = b"b\n" * 2500  # what the command below writes: 5,000 bytes


async def test_a_large_file_stays_out_of_every_snapshot(tmp_path: Path) -> None:
    """Each snapshot measures the large files again: the last one's exclusions once hid them
    from the listing, so every second snapshot took them in whatever their size."""
    bench = Bench(tmp_path, limits=Limits(max_file_bytes=1000))
    (bench.workspace / "big.bin").write_bytes(BIG)
    for n in range(3):
        await bench.call("run_command", json.dumps({"command": f"echo {n} > small.txt"}))
    starts = [r for r in bench.kept.records if r.type == "checkpoint"]
    dones = [r for r in bench.kept.records if r.type == "checkpoint_done"]
    assert len(starts) == len(dones) == 3
    assert all("big.bin" in (r.notice or "") for r in starts), [r.notice for r in starts]
    assert not _shadow_has(bench, BIG)


async def test_the_snapshot_after_a_crashed_call_keeps_the_settings_limits(tmp_path: Path) -> None:
    """A call whose end was never recorded (a crash) is compared with the workspace as it is
    now: that snapshot keeps the configured limits, so a file over the size limit the call
    made is not copied into the shadow repository."""
    limits = Limits(max_file_bytes=1000)
    bench = Bench(tmp_path, limits=limits)
    (bench.workspace / "small.txt").write_text("s\n")
    command = "yes b | head -c 5000 > big.bin && echo changed > small.txt"
    await bench.call("run_command", json.dumps({"command": command}))
    assert (bench.workspace / "big.bin").read_bytes() == BIG
    crashed = [r for r in bench.kept.records if r.type != "checkpoint_done"]
    assert len(crashed) == len(bench.kept.records) - 1
    assert not _shadow_has(bench, BIG)
    plan = plan_rewind(bench.folder, crashed, limits)
    assert "small.txt" in {f.path for f in plan.files}
    assert not _shadow_has(bench, BIG)
    plan_rewind(bench.folder, crashed)  # the default limits (10 MiB) take it: the test is sound
    assert _shadow_has(bench, BIG)
