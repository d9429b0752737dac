"""`tui-agent checkpoints` and `tui-agent checkpoints prune`: the list, what a prune says it
removed (or would), the --json shapes, the exit statuses, and checkpoint_keep_days read from
config.toml. Real sessions and checkpoints in the XDG data folder of a user of the test's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .checkpoint_helpers import picture
from .prune_helpers import World, command, write
from .sessions_cli_helpers import Cli

pytestmark = pytest.mark.heavy

STORE_KEYS = {
    "store", "workspace", "path", "bytes", "blobs", "snapshots", "sessions", "sessions_kept",
    "blocked",
}  # fmt: skip
RESULT_KEYS = {"store", "workspace", "action", "why", "blobs", "objects", "bytes_freed"}


def _world(cli: Cli) -> World:
    data = cli.data / "tui-agent"
    return World(cli.root, checkpoints=data / "checkpoints", sessions=data / "sessions")


def _json(cli: Cli, *argv: str) -> Any:
    out = cli.main(*argv, "--json")
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)


async def _two_sessions(cli: Cli) -> tuple[World, str, str]:
    """An old session (40 days) and a recent one, each a file write and a command."""
    world = _world(cli)
    (world.workspace / "a.txt").write_text("a before\n")
    (world.workspace / "b.txt").write_text("b before\n")
    old = await world.session(write("a.txt", "a1\n"), command("echo gone > g.txt"))
    (world.workspace / "g.txt").unlink()
    recent = await world.session(write("b.txt", "b1\n"), command("echo y > y.txt"))
    world.age(old, 40)
    world.age_checkpoints()
    return world, old, recent


def test_nothing_kept_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    out = cli.main("checkpoints")
    assert (out.code, out.stdout, out.stderr) == (0, "", "no checkpoints are kept\n")
    assert _json(cli, "checkpoints") == {"keep_days": 30, "stores": []}
    out = cli.main("checkpoints", "prune")
    assert (out.code, out.stdout) == (0, "no checkpoints are kept\nfreed 0 bytes in all\n")
    body = _json(cli, "checkpoints", "prune", "--dry-run")
    assert body == {
        "dry_run": True, "keep_days": 30, "bytes_freed": 0, "stores": [], "notices": []
    }  # fmt: skip


async def test_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, _old, _recent = await _two_sessions(cli)
    [store] = _json(cli, "checkpoints")["stores"]
    assert set(store) == STORE_KEYS
    assert store["workspace"] == str(world.workspace)
    assert store["store"] == world.folder.name and store["path"] == str(world.folder.path)
    assert (store["blobs"], store["snapshots"]) == (2, 4)
    assert (store["sessions"], store["sessions_kept"], store["blocked"]) == (2, 1, [])
    assert store["bytes"] > 0
    out = cli.main("checkpoints")
    assert out.code == 0 and out.stderr == ""
    header, row, total = out.stdout.splitlines()
    assert header.split() == ["SIZE", "BLOBS", "SNAPSHOTS", "SESSIONS", "WORKSPACE"]
    assert row.split()[2:] == ["2", "4", "2", "(1", "kept)", str(world.workspace)]
    assert total.startswith("total ") and total.endswith(
        "in 1 workspace(s); sessions kept: changed in the last 30 days, or open"
    )


async def test_prune_dry_run_then_prune(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, _old, recent = await _two_sessions(cli)
    before = picture(world.root)
    body = _json(cli, "checkpoints", "prune", "--dry-run")
    assert picture(world.root) == before
    assert (body["dry_run"], body["keep_days"], body["notices"]) == (True, 30, [])
    [would] = body["stores"]
    assert set(would) == RESULT_KEYS
    assert (would["action"], would["blobs"], would["workspace"]) == (
        "pruned",
        1,
        str(world.workspace),
    )
    assert would["objects"] >= 2 and would["bytes_freed"] > 0
    assert body["bytes_freed"] == would["bytes_freed"]
    out = cli.main("checkpoints", "prune", "--dry-run")
    line, total = out.stdout.splitlines()
    assert line.startswith(f"{world.workspace}: would remove 1 file content(s) and ")
    assert " snapshot object(s), about " in line
    assert total.startswith("would free ") and total.endswith(" in all")
    out = cli.main("checkpoints", "prune")
    assert out.code == 0 and out.stderr == ""
    line, total = out.stdout.splitlines()
    assert line.startswith(f"{world.workspace}: removed 1 file content(s) and ")
    assert line.endswith(" freed") and total.startswith("freed ")
    assert world.kept_blobs() == world.blobs_of(recent)
    assert _json(cli, "checkpoints", "prune")["stores"][0]["action"] == "unchanged"
    assert cli.main("checkpoints", "prune").stdout.splitlines()[0] == (
        f"{world.workspace}: nothing to remove"
    )
    assert world.rewind(recent).files[0]["action"] == "restored"


async def test_keep_days_comes_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, _old, _recent = await _two_sessions(cli)
    config = cli.config / "tui-agent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[settings]\ncheckpoint_keep_days = 0\n")
    before = picture(world.root)
    body = _json(cli, "checkpoints", "prune")
    assert body["keep_days"] == 0 and body["stores"][0]["action"] == "unchanged"
    assert picture(world.root) == before
    assert _json(cli, "checkpoints")["stores"][0]["sessions_kept"] == 2
    config.write_text("[settings]\ncheckpoint_keep_days = 50\n")
    assert _json(cli, "checkpoints", "prune")["stores"][0]["action"] == "unchanged"
    config.write_text("[settings]\ncheckpoint_keep_days = 39\n")
    assert _json(cli, "checkpoints", "prune")["stores"][0]["action"] == "pruned"


async def test_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, _old, _recent = await _two_sessions(cli)
    config = cli.config / "tui-agent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[settings]\ncheckpoint_keep_days = -3\n")
    before = picture(world.root)
    out = cli.main("checkpoints", "prune")
    assert out.code == 1 and out.stdout == ""
    line = out.error_line()
    assert line.startswith("tui-agent checkpoints prune: config file ")
    assert "settings.checkpoint_keep_days: Input should be greater than or equal to 0" in line
    assert picture(world.root) == before
    listed = cli.main("checkpoints")  # the list still shows, with the default
    assert listed.code == 0 and "kept sessions: the default 30 days" in listed.stderr
    assert cli.main("checkpoints", "bogus").code == 1
    assert cli.main("checkpoints", "prune", "--keep").code == 1


async def test_a_blocked_workspace_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, old, _recent = await _two_sessions(cli)
    path = world.path(old)
    path.write_bytes(path.read_bytes() + b'{"ts":2.0,"type":"rewind","id":"x","sto\n')
    world.age(old, 40)
    why = f"session {old} cannot be read whole (line "
    listed = cli.main("checkpoints")
    assert listed.code == 0
    assert listed.stderr.startswith(f"note: {world.workspace}: not pruned: {why}")
    assert _json(cli, "checkpoints")["stores"][0]["blocked"][0].startswith(why)
    out = cli.main("checkpoints", "prune")
    assert out.code == 0
    assert out.stdout.startswith(f"{world.workspace}: nothing pruned: {why}")
    assert _json(cli, "checkpoints", "prune")["stores"][0]["action"] == "blocked"


async def test_a_folder_no_session_uses_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli = Cli(tmp_path, monkeypatch)
    world, old, recent = await _two_sessions(cli)
    assert cli.main("sessions", "delete", recent, "--yes").code == 0
    out = cli.main("checkpoints", "prune", "--dry-run")
    assert out.stdout.startswith(
        f"{world.workspace}: would be removed entirely (no kept session refers to it), about "
    )
    assert world.folder.path.is_dir()
    out = cli.main("checkpoints", "prune")
    line, _total = out.stdout.splitlines()
    assert line.startswith(f"{world.workspace}: removed entirely (no kept session refers to it), ")
    assert line.endswith(" freed") and not world.folder.path.exists()
    done = world.rewind(old)  # nothing left to rewind with: said, and nothing is changed
    assert [(f["path"], f["action"]) for f in done.files] == [("a.txt", "skipped")]
    assert (world.workspace / "a.txt").read_text() == "a1\n"


async def test_the_installed_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = Cli(tmp_path, monkeypatch)
    await _two_sessions(cli)
    out = cli.spawn("checkpoints", "prune", "--json")
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["stores"][0]["action"] == "pruned"
