"""`tui-agent mcp add` and `mcp remove` edit config.toml and keep every other line as it was."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .run_helpers import Home

pytestmark = pytest.mark.heavy

BEFORE = (
    "# my settings\n[settings]\nmax_tokens = 100  # keep this comment\n\n"
    '[profiles.x]\nprotocol = "anthropic"\nmodel = "m"\n'
)


def _mcp(home: Home, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_agent.cli", "mcp", *argv],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    made.write_config(BEFORE)
    return made


def test_add_command_and_url_servers_then_remove_them(home: Home) -> None:
    path = home.config / "tui-agent" / "config.toml"
    done = _mcp(home, "add", "time", "--", "mcp-server-time", "--local-timezone", "UTC")
    assert done.returncode == 0, done.stderr
    done = _mcp(
        home,
        "add",
        "docs",
        "--url",
        "http://127.0.0.1:8765/mcp",
        "--header",
        "Authorization: Bearer ${DOCS_TOKEN}",
    )
    assert done.returncode == 0, done.stderr
    text = path.read_text("utf-8")
    assert text.startswith(BEFORE)
    servers = tomllib.loads(text)["mcp_servers"]
    assert servers["time"] == {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]}
    assert servers["docs"] == {
        "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
    }
    again = _mcp(home, "add", "time", "--", "other")
    assert again.returncode == 1 and "already" in again.stderr
    assert _mcp(home, "remove", "time").returncode == 0
    assert _mcp(home, "remove", "docs").returncode == 0
    assert path.read_text("utf-8").rstrip("\n") == BEFORE.rstrip("\n")
    missing = _mcp(home, "remove", "time")
    assert missing.returncode == 1 and "no MCP server named 'time'" in missing.stderr


def test_add_needs_exactly_one_transport(home: Home) -> None:
    done = _mcp(home, "add", "x")
    assert done.returncode == 1 and "--url" in done.stderr
    done = _mcp(home, "add", "x", "--url", "ftp://nope")
    assert done.returncode == 1 and "http" in done.stderr
