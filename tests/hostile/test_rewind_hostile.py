"""Rewind against a workspace changed under it: a folder the agent wrote into swapped for a
symlink to a folder outside (or for a file), before the plan or between the plan and the writes.
Never a traceback, never a write through the link, each file that could not be restored named,
the rest restored, no journal left behind; `tui-agent rewind` end to end on a real session."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent.agent.rewind import apply_plan
from tui_agent.session.records import RewindRecord

from ..checkpoint_helpers import Bench, picture
from ..sessions_cli_helpers import TIMEOUT_S, Cli


async def _agent_wrote(tmp_path: Path) -> tuple[Bench, Path]:
    """d/a.txt changed, d/b.txt made (by file tools), d/c.txt changed by a command, top.txt
    changed: all by the agent. ``outside``: a folder beside the workspace holding look-alikes."""
    bench = Bench(tmp_path)
    ws = bench.workspace
    (ws / "d").mkdir()
    (ws / "d" / "a.txt").write_text("old a\n")
    (ws / "d" / "c.txt").write_text("old c\n")
    (ws / "top.txt").write_text("old top\n")
    for rel, text in (("d/a.txt", "new a\n"), ("d/b.txt", "made b\n"), ("top.txt", "new top\n")):
        out = await bench.call("write_file", json.dumps({"path": rel, "content": text}))
        assert not out.is_error, out.text
    out = await bench.call("run_command", json.dumps({"command": "echo new c > d/c.txt"}))
    assert not out.is_error, out.text
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (outside / name).write_bytes((ws / "d" / name).read_bytes())
    return bench, outside


def _swap(ws: Path, outside: Path, kind: str) -> None:
    os.rename(ws / "d", ws.parent / "d-moved")
    if kind == "symlink":
        os.symlink(outside, ws / "d")
    else:
        (ws / "d").write_text("now a file\n")


@pytest.mark.parametrize("kind", ["symlink", "file"])
async def test_a_folder_swapped_before_the_plan(tmp_path: Path, kind: str) -> None:
    bench, outside = await _agent_wrote(tmp_path)
    ws = bench.workspace
    _swap(ws, outside, kind)
    outside_before = picture(outside)
    plan = bench.plan()
    why = {f.path: (f.action, f.why) for f in plan.files}
    for rel in ("d/a.txt", "d/b.txt", "d/c.txt"):
        assert why[rel] == ("skipped", "d is now a symbolic link or a file (never followed)")
    result = bench.rewind(overwrite=True)  # even when told to overwrite conflicts
    rows = {row["path"]: row for row in result.files}
    assert rows["top.txt"]["action"] == "restored"
    assert rows["d/a.txt"]["action"] == "skipped" and "d is now" in rows["d/a.txt"]["why"]
    assert (ws / "top.txt").read_text() == "old top\n"
    assert picture(outside) == outside_before
    assert not bench.folder.journal.exists()
    assert not list((tmp_path / "d-moved").glob(".tui-agent-rewind-*"))


async def test_a_folder_swapped_between_the_plan_and_the_writes(tmp_path: Path) -> None:
    """The plan saw a real folder; the restorer meets the symlink: the files under it are
    named, the others restored, the record keeps only what was changed, no journal."""
    bench, outside = await _agent_wrote(tmp_path)
    ws = bench.workspace
    plan = bench.plan()
    assert {f.path: f.action for f in plan.files} == {
        "d/a.txt": "restore",
        "d/b.txt": "delete",
        "d/c.txt": "restore",
        "top.txt": "restore",
    }
    _swap(ws, outside, "symlink")
    outside_before = picture(outside)
    records: list[RewindRecord] = []
    result = apply_plan(bench.folder, plan, lambda _item: False, records.append, to=1)
    rows = {row["path"]: row for row in result.files}
    assert rows["top.txt"]["action"] == "restored"
    for rel in ("d/a.txt", "d/b.txt", "d/c.txt"):
        assert rows[rel]["action"] == "conflict", rows[rel]
        assert (
            rows[rel]["why"] == "not changed: d is now a symbolic link or a file (never followed)"
        )
    assert picture(outside) == outside_before  # nothing written, made or deleted through d
    assert (ws / "top.txt").read_text() == "old top\n"
    assert not bench.folder.journal.exists()
    assert not list(Path(tmp_path / "d-moved").glob(".tui-agent-rewind-*"))
    (record,) = records
    assert [f.after.path for f in record.files] == ["top.txt"]


async def test_nothing_restorable_records_no_rewind(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    ws = bench.workspace
    (ws / "d").mkdir()
    await bench.call("write_file", json.dumps({"path": "d/a.txt", "content": "x\n"}))
    plan = bench.plan()
    outside = tmp_path / "outside"
    outside.mkdir()
    _swap(ws, outside, "symlink")
    records: list[RewindRecord] = []
    result = apply_plan(bench.folder, plan, lambda _item: True, records.append, to=1)
    assert [row["action"] for row in result.files] == ["conflict"]
    assert records == [] and list(outside.iterdir()) == []
    assert not bench.folder.journal.exists()


def test_the_rewind_command_with_a_swapped_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tui-agent run` on the demo model writes into a folder; the folder becomes a symlink to
    one outside; `tui-agent rewind` (a real process) says per file what it did, exits cleanly."""
    cli = Cli(tmp_path, monkeypatch)
    ws = cli.workspace
    (ws / "sub").mkdir()
    (ws / "sub" / "keep.txt").write_text("keep\n")
    flags = ["--profile", "demo", "--approve", "all", "--workspace", str(ws)]
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "run", *flags, "$ echo changed > sub/keep.txt"],
        cwd=ws,
        env={**cli.env(), "TUI_AGENT_DEMO_PACE": "0"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = re.match(r"session ([0-9a-z]+) ", done.stderr)
    assert found, done.stderr
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("changed\n")
    os.rename(ws / "sub", tmp_path / "sub-moved")
    os.symlink(outside, ws / "sub")
    for extra in ([], ["--overwrite-conflicts"]):
        out = cli.spawn("rewind", found.group(1), "--to", "1", "--files-only", *extra)
        assert "Traceback" not in out.stderr + out.stdout, out.stderr
        assert "sub/keep.txt" in out.stdout and "symbolic link" in out.stdout, out.stdout
        assert (outside / "keep.txt").read_text() == "changed\n"
        assert list(outside.iterdir()) == [outside / "keep.txt"]
        assert not list((cli.data / "tui-agent" / "checkpoints").glob("*/journal.json"))
