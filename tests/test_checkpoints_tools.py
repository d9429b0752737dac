"""Round trips: each tool changes the workspace through the checkpoint hook; rewinding every
recorded change gives back the exact workspace (content, mode, existence, symlinks)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tui_agent.tools.user_defined import user_tool_specs

from .checkpoint_helpers import Bench, git_picture, picture


def _write(bench: Bench, path: str, content: str) -> str:
    return json.dumps({"path": path, "content": content})


async def test_write_file_round_trip_new_file_in_new_folders_and_a_replaced_one(
    tmp_path: Path,
) -> None:
    bench = Bench(tmp_path)
    (bench.workspace / "a.txt").write_text("first\n")
    os.chmod(bench.workspace / "a.txt", 0o640)
    before = bench.state()
    out = await bench.call("write_file", _write(bench, "a.txt", "second\n"))
    assert not out.is_error, out.text
    out = await bench.call("write_file", _write(bench, "deep/er/b.txt", "new\n"))
    assert not out.is_error, out.text
    kinds = [r.type for r in bench.kept.records]
    assert kinds == ["checkpoint", "checkpoint_done"] * 2
    assert bench.kept.records[0].files[0].mode == 0o640
    plan = bench.plan()
    assert {(f.path, f.action) for f in plan.files} == {
        ("a.txt", "restore"),
        ("deep/er/b.txt", "delete"),
    }
    result = bench.rewind()
    assert {(f["path"], f["action"]) for f in result.files} == {
        ("a.txt", "restored"),
        ("deep/er/b.txt", "deleted"),
    }
    assert bench.state() == before  # the folders write_file made are gone too


async def test_edit_file_round_trip_keeps_exact_bytes(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    original = "line one\r\nline two\r\n\u00e9t\u00e9\r\n"
    (bench.workspace / "e.txt").write_bytes(original.encode())
    before = bench.state()
    out = await bench.call(
        "edit_file", json.dumps({"path": "e.txt", "old": "line two", "new": "LINE 2"})
    )
    assert not out.is_error, out.text
    plan = bench.plan()
    assert [f.summary for f in plan.files] == ["+1 -1 lines"]
    bench.rewind()
    assert bench.state() == before


async def test_command_that_creates_changes_and_deletes_files(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    ws = bench.workspace
    (ws / "keep.txt").write_text("keep\n")
    (ws / "change.txt").write_text("old\n")
    (ws / "gone.txt").write_text("bye\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "x.bin").write_bytes(bytes(range(256)) * 4)
    before = bench.state()
    command = (
        "echo new > made.txt && echo changed >> change.txt && rm gone.txt && "
        "printf '\\000\\001\\377' > sub/x.bin && mkdir -p n/m && echo z > n/m/z.txt"
    )
    out = await bench.call("run_command", json.dumps({"command": command}))
    assert not out.is_error, out.text
    start = bench.kept.records[0]
    assert (start.type, start.method) == ("checkpoint", "snapshot") and start.tree
    actions = {f.path: f.action for f in bench.plan().files}
    assert actions == {
        "made.txt": "delete",
        "change.txt": "restore",
        "gone.txt": "restore",
        "sub/x.bin": "restore",
        "n/m/z.txt": "delete",
    }
    summaries = {f.path: f.summary for f in bench.plan().files}
    assert "binary" in summaries["sub/x.bin"]
    bench.rewind()
    after = bench.state()
    # A command's empty folders are not tracked: only n/ and n/m/ may be left over.
    assert {k: v for k, v in after.items() if not k.startswith("n")} == before


async def test_user_tool_of_write_risk_is_snapshotted(tmp_path: Path) -> None:
    specs = user_tool_specs(
        [
            {
                "name": "stamp",
                "description": "Write a stamp file.",
                "program": "sh",
                "args": ["-c", "echo stamped > stamp.txt; rm -f old.txt"],
                "risk": "write",
            }
        ]
    )
    bench = Bench(tmp_path, extra=specs)
    (bench.workspace / "old.txt").write_text("old\n")
    before = bench.state()
    out = await bench.call("stamp", "{}")
    assert not out.is_error, out.text
    assert bench.kept.records[0].method == "snapshot"
    bench.rewind()
    assert bench.state() == before


async def test_read_tools_and_read_only_commands_take_no_checkpoint(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    (bench.workspace / "r.txt").write_text("r\n")
    await bench.call("read_file", json.dumps({"path": "r.txt"}))
    await bench.call("list_dir", json.dumps({"path": "."}))
    assert bench.kept.records == []
    from dataclasses import replace

    from tui_agent.sandbox.policy import SandboxMode

    if bench.gate.caps.landlock_abi == 0:
        pytest.skip("read-only is not enforced on this machine")
    bench.context = replace(
        bench.context, sandbox=bench.context.sandbox.with_mode(SandboxMode.READ_ONLY)
    )
    await bench.call("run_command", json.dumps({"command": "true"}))
    assert bench.kept.records == []


async def test_permission_bits_are_restored(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    script = bench.workspace / "run.sh"
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o754)
    plain = bench.workspace / "plain.txt"
    plain.write_text("p\n")
    os.chmod(plain, 0o600)
    before = bench.state()
    await bench.call("write_file", _write(bench, "run.sh", "#!/bin/sh\necho hi\n"))
    await bench.call(
        "run_command", json.dumps({"command": "chmod 644 run.sh && chmod 755 plain.txt"})
    )
    bench.rewind()
    assert bench.state() == before


async def test_symlinks_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside, never touched\n")
    bench = Bench(tmp_path)
    ws = bench.workspace
    os.symlink(outside, ws / "link")
    os.symlink("target-missing", ws / "dangling")
    (ws / "real").mkdir()
    os.symlink(ws / "real", ws / "dirlink")
    before = bench.state()
    command = "rm link && echo replaced > link && rm dangling && echo in > real/f.txt"
    out = await bench.call("run_command", json.dumps({"command": command}))
    assert not out.is_error, out.text
    # write_file refuses to write through a symlink; its checkpoint captured nothing behind it.
    await bench.call("write_file", _write(bench, "dirlink/g.txt", "g\n"))
    bench.rewind()
    assert bench.state() == before
    assert outside.read_text() == "outside, never touched\n"
    assert os.readlink(ws / "link") == str(outside)


async def test_a_file_created_then_deleted_needs_nothing(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    before = bench.state()
    await bench.call("write_file", _write(bench, "tmp.txt", "t\n"))
    await bench.call("run_command", json.dumps({"command": "rm tmp.txt"}))
    plan = bench.plan()
    assert plan.files == [] and plan.checkpoints == 2
    assert bench.state() == before


async def test_a_file_changed_since_the_agents_last_write_is_a_conflict(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    (bench.workspace / "c.txt").write_text("mine\n")
    await bench.call("write_file", _write(bench, "c.txt", "agent's\n"))
    await bench.call("write_file", _write(bench, "d.txt", "agent's\n"))
    (bench.workspace / "c.txt").write_text("edited by the person after the agent\n")
    plan = bench.plan()
    conflict = [f for f in plan.files if f.action == "conflict"]
    assert [(f.path, f.why) for f in conflict] == [
        ("c.txt", "changed since the agent's last write")
    ]
    result = bench.rewind()
    assert result.conflicts_left == 1
    assert (bench.workspace / "c.txt").read_text() == "edited by the person after the agent\n"
    assert not (bench.workspace / "d.txt").exists()
    result = bench.rewind(overwrite=True)
    assert (bench.workspace / "c.txt").read_text() == "mine\n"


async def test_a_git_workspace_keeps_its_git_folder_byte_for_byte(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    ws = bench.workspace
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    (ws / "tracked.txt").write_text("t\n")
    (ws / ".gitignore").write_text("*.log\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t",
                 "commit", "-qm", "first"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=ws, env=env, check=True)
    (ws / "untracked.txt").write_text("u\n")
    git_before = git_picture(ws / ".git")
    before = bench.state()
    command = "echo more >> tracked.txt && echo l > debug.log && rm untracked.txt"
    await bench.call("run_command", json.dumps({"command": command}))
    plan = bench.plan()
    # Ignored files are not covered: debug.log is not in the plan.
    assert {f.path for f in plan.files} == {"tracked.txt", "untracked.txt"}
    bench.rewind()
    (ws / "debug.log").unlink()
    assert bench.state() == before
    assert git_picture(ws / ".git") == git_before


def test_picture_sees_links_without_following(tmp_path: Path) -> None:
    os.symlink("/nonexistent", tmp_path / "l")
    assert picture(tmp_path) == {"l": ("link", b"/nonexistent", 0)}
