"""Switching sessions in the app (to a saved one, or to a new one with /new): the new session's
MCP servers are the ones the status line ("MCP n/m ready") and the transcript's notices follow;
the old session's servers, stopping, say nothing more. The real app under Pilot against the
fake provider (see ui_app_helpers)."""

from __future__ import annotations

import sys

import pytest

from tui_agent.session import SessionStore
from tui_agent.session.paths import sessions_dir
from tui_agent.session.records import UserRecord
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .mcp_helpers import server_table, toml_string
from .sessions_cli_helpers import assistant
from .ui_app_helpers import AppEnv, running, send, wait_for

pytestmark = pytest.mark.heavy

PROTOCOL = "openai-chat"
WAIT_S = 30.0
BROKEN = "print('broken-server-says-bye', file=__import__('sys').stderr); raise SystemExit(3)"


def _saved_session(env: AppEnv) -> str:
    store = SessionStore(sessions_dir())
    with store.create(
        profile="ad-hoc", protocol=PROTOCOL, model="m", workspace=str(env.workspace)
    ) as writer:
        writer.append(UserRecord(text="an earlier question"))
        writer.append(assistant("an earlier answer"))
    return writer.session_id


async def test_switching_sessions_shows_the_new_sessions_servers(env: AppEnv) -> None:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True)
    broken = f"[mcp_servers.broken]\ncommand = {toml_string(sys.executable)}\n"
    broken += f'args = ["-c", {toml_string(BROKEN)}]\n'
    time_server = server_table("time", "mcp_server_time", "--local-timezone", "UTC")
    (folder / "config.toml").write_text(time_server + broken, encoding="utf-8")
    other = _saved_session(env)
    with FakeProvider(PROTOCOL, api_key="unused") as server:
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/2 ready", "the servers", WAIT_S)
            assert "broken-server-says-bye" in screen_text(app)
            assert app.host is not None
            old = app.host.mcp
            await app.switch_session(other)
            assert app.host is not None and app.host.mcp is not None
            assert app.host.mcp is not old and old is not None
            assert all(c.status != "ready" for c in old.connections.values())  # stopped
            new = app.host.mcp
            # The new transcript tells of the new servers; the status line follows them.
            await wait_for(
                pilot, lambda: "broken-server-says-bye" in screen_text(app), "the notice", WAIT_S
            )
            await wait_for(pilot, lambda: new.summary() == "MCP 1/2 ready", "restart", WAIT_S)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/2 ready", "the status", WAIT_S)
            await new.restart("time")  # a change of the new servers shows
            assert status.mcp == new.summary() != "MCP 1/2 ready"  # starting again
            await wait_for(pilot, lambda: status.mcp == "MCP 1/2 ready", "the restart", WAIT_S)
            assert "an earlier answer" in screen_text(app)


async def test_new_session_starts_empty_and_follows_its_own_servers(env: AppEnv) -> None:
    """/new: the old session is closed (its servers stopped) and stays saved; the new one is
    empty, counts no tokens yet, and the status line follows the new session's servers."""
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True)
    time_server = server_table("time", "mcp_server_time", "--local-timezone", "UTC")
    (folder / "config.toml").write_text(time_server, encoding="utf-8")
    other = _saved_session(env)
    with FakeProvider(PROTOCOL, api_key="unused") as server:
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await app.switch_session(other)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the servers", WAIT_S)
            shown = lambda: "an earlier answer" in screen_text(app)  # noqa: E731
            await wait_for(pilot, shown, "the earlier answer", WAIT_S)  # painted, whatever the load
            assert app.host is not None
            old_host, old_servers = app.host, app.host.mcp
            await send(pilot, "/new")
            await wait_for(pilot, lambda: app.host is not old_host, "the new session", WAIT_S)
            assert app.host is not None and app.host.mcp is not None
            assert old_servers is not None and app.host.mcp is not old_servers
            await wait_for(pilot, lambda: "a new session" in screen_text(app), "notice", WAIT_S)
            assert all(c.status != "ready" for c in old_servers.connections.values())  # stopped
            assert "an earlier answer" not in screen_text(app)
            assert status.tokens == 0
            new = app.host.mcp
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the status", WAIT_S)
            await new.restart("time")  # the status line follows the new session's servers
            assert status.mcp == new.summary() != "MCP 1/1 ready"
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the restart", WAIT_S)
    assert other in {path.stem for path in sessions_dir().glob("*.jsonl")}
