"""The one store of what the person trusted of a workspace (``workspace_trust.py``): per folder
and per kind, by digest; the files of earlier versions (one per kind) still count; a folder is
inside the workspace only when it resolves there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.workspace_trust import (
    STORE_FILE,
    inside_workspace,
    is_trusted,
    trust,
    trusted_digest,
)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "tui-agent"


def test_each_kind_is_kept_apart_and_changed_content_is_not_trusted(
    data: Path, tmp_path: Path
) -> None:
    here, there = tmp_path / "a", tmp_path / "b"
    trust(here, {"instructions": "d1", "mcp": "m1"})
    trust(here, {"templates": "t1"})  # adds, keeps the others
    trust(there, {"instructions": "d2"})
    assert is_trusted(here, "instructions", "d1") and is_trusted(here, "mcp", "m1")
    assert is_trusted(here, "templates", "t1")
    assert not is_trusted(here, "instructions", "d2")  # other content
    assert not is_trusted(there, "mcp", "m1")  # other folder
    trust(here, {"instructions": "d3"})
    assert not is_trusted(here, "instructions", "d1")
    assert data.stat().st_mode & 0o077 == 0  # the data folder is private


def test_unknown_kinds_are_refused(data: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown kinds"):
        trust(tmp_path, {"plugins": "x"})


def test_earlier_files_still_count_and_a_broken_store_trusts_nothing(
    data: Path, tmp_path: Path
) -> None:
    data.mkdir(parents=True)
    (data / "trusted_mcp_workspaces.json").write_text(json.dumps({str(tmp_path): "m0"}))
    (data / "trusted_command_workspaces.json").write_text(json.dumps({str(tmp_path): "t0"}))
    assert trusted_digest(tmp_path, "mcp") == "m0"
    assert trusted_digest(tmp_path, "templates") == "t0"
    assert trusted_digest(tmp_path, "instructions") is None
    (data / STORE_FILE).write_text("[" * 5000)
    (data / "trusted_mcp_workspaces.json").write_text("not json")
    assert trusted_digest(tmp_path, "mcp") is None


def test_inside_workspace_follows_symlinks(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "real").mkdir(parents=True)
    outside.mkdir()
    (workspace / "out").symlink_to(outside)
    (workspace / "in").symlink_to(workspace / "real")
    (workspace / "loop").symlink_to(workspace / "loop")
    assert inside_workspace(workspace / "real", workspace)
    assert inside_workspace(workspace / "in" / "x", workspace)
    assert inside_workspace(workspace / "missing" / "x", workspace)
    assert not inside_workspace(workspace / "out", workspace)
    assert not inside_workspace(workspace / "out" / "commands", workspace)
    assert not inside_workspace(workspace / "loop", workspace)
