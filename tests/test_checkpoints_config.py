"""The checkpoint settings of config.toml: their defaults, their checks, and the limits reaching
the checkpointer of a real session (the host the app and `run` open, on the offline demo)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tui_agent.approval.approver import HeadlessApprover
from tui_agent.checkpoints import Limits
from tui_agent.config import ConfigFileError, load_config
from tui_agent.session import SessionStore
from tui_agent.session.records import CheckpointRecord, RewindRecord
from tui_agent.wiring.host import open_host
from tui_agent.wiring.host_options import HostOptions


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_defaults() -> None:
    settings = load_config(Path("/nonexistent/config.toml")).settings
    assert settings.checkpoint_max_files == 20_000 == Limits().max_files
    assert settings.checkpoint_max_file_bytes == 10 * 1024 * 1024 == Limits().max_file_bytes
    assert settings.checkpoint_keep_days == 30


def test_values_are_read(tmp_path: Path) -> None:
    text = (
        "[settings]\ncheckpoint_max_files = 50\ncheckpoint_max_file_bytes = 4096\n"
        "checkpoint_keep_days = 0\n"
    )
    settings = load_config(_config(tmp_path, text)).settings
    assert (settings.checkpoint_max_files, settings.checkpoint_max_file_bytes) == (50, 4096)
    assert settings.checkpoint_keep_days == 0


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "checkpoint_max_files = 0",
            "settings.checkpoint_max_files: Input should be greater than 0",
        ),
        (
            "checkpoint_max_file_bytes = -1",
            "settings.checkpoint_max_file_bytes: Input should be greater than 0",
        ),
        (
            'checkpoint_max_file_bytes = "10MB"',
            "settings.checkpoint_max_file_bytes: Input should be a valid integer",
        ),
        ("checkpoint_max_file = 3", "did you mean checkpoint_max_files?"),
        (
            "checkpoint_keep_days = -1",
            "settings.checkpoint_keep_days: Input should be greater than or equal to 0",
        ),
        ("checkpoint_keep_days = 1.5", "settings.checkpoint_keep_days: Input should be a valid"),
        ("checkpoint_keep_day = 3", "did you mean checkpoint_keep_days?"),
    ],
)
def test_bad_values_are_named(tmp_path: Path, line: str, expected: str) -> None:
    with pytest.raises(ConfigFileError) as caught:
        load_config(_config(tmp_path, f"[settings]\n{line}\n"))
    assert expected in str(caught.value)


def test_the_limits_reach_the_checkpointer_of_a_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("config", "data", "state", "cache"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    for name in [n for n in os.environ if n.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    text = "[settings]\ncheckpoint_max_files = 3\ncheckpoint_max_file_bytes = 2000\n"
    (tmp_path / "config" / "tui-agent").mkdir()
    _config(tmp_path / "config" / "tui-agent", text)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for n in range(4):
        (workspace / f"f{n}.txt").write_text("x")

    async def go() -> tuple[Limits, str]:
        approver = HeadlessApprover("all")
        options = HostOptions(profile="demo", workspace=str(workspace))
        host = await open_host(options, approver, mode=approver.mode)
        try:
            checkpoints = host.agent.calls.checkpoints
            assert checkpoints is not None
            async for _event in host.agent.send("$ echo hi > made.txt"):
                pass
            return checkpoints.checkpointer.limits, host.writer.session_id
        finally:
            await host.close()

    limits, session = asyncio.run(go())
    assert limits == Limits(max_files=3, max_file_bytes=2000)
    assert (workspace / "made.txt").read_text() == "hi\n"
    loaded = SessionStore().load(session)
    start = next(r for r in loaded.records if isinstance(r, CheckpointRecord))
    assert start.tree is None
    assert "4 files" in (start.notice or "") and "over the limit of 3" in (start.notice or "")


@pytest.mark.parametrize(("limit", "kept_as"), [(None, "file"), (1000, "uncovered")])
async def test_a_rewind_keeps_what_it_replaces_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int | None, kept_as: str
) -> None:
    """`tui-agent rewind` keeps the files it replaces (to be undone) up to config's limit."""
    from .prune_helpers import World, write
    from .sessions_cli_helpers import Cli

    cli = Cli(tmp_path, monkeypatch)
    if limit is not None:
        (cli.config / "tui-agent").mkdir()
        _config(cli.config / "tui-agent", f"[settings]\ncheckpoint_max_file_bytes = {limit}\n")
    data = cli.data / "tui-agent"
    world = World(tmp_path, checkpoints=data / "checkpoints", sessions=data / "sessions")
    (world.workspace / "a.txt").write_text("small\n")
    session = await world.session(write("a.txt", "x" * 5000))
    out = cli.main("rewind", session, "--to", "1", "--files-only", "--json")
    assert out.code == 0, out.stderr
    assert (world.workspace / "a.txt").read_text() == "small\n"
    [rewind] = [r for r in world.store.load(session).records if isinstance(r, RewindRecord)]
    assert [(f.before.kind, f.before.size) for f in rewind.files] == [(kept_as, 5000)]
