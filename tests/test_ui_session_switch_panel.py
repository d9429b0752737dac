"""Resuming or switching sessions: the calls panel and the status bar show the session now open.

The real app on the offline demo model, with XDG folders under tmp_path and no provider key;
two saved sessions with a tool call each are written with the real SessionStore.
"""

from __future__ import annotations

from tests.sessions_cli_helpers import Cli, assistant, call, result
from tests.support.waiting import wait_for
from tui_agent.session.records import UserRecord
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.session_switch import current_session_id
from tui_agent.ui.widgets.side_panel import SidePanel
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.wiring.host_options import HostOptions

from .approval_prompt_app import screen_text


def session_with_call(cli: Cli, tool: str, status: str, tokens: int) -> str:
    with cli.store.create(
        profile="demo", protocol="openai-chat", model="m1", workspace=str(cli.workspace)
    ) as writer:
        writer.append(UserRecord(text=f"please use {tool}"))
        turn = assistant("", call(f"call_{tool}", tool, path="."))
        writer.append(turn.model_copy(update={"usage": {"prompt_tokens": tokens}}))
        writer.append(result(f"call_{tool}", tool, f"{tool} output", status))
        writer.append(assistant(f"used {tool}"))
    return writer.session_id


def panel_rows(app: TuiAgentApp) -> list[str]:
    panel = app.query_one(SidePanel)
    return [str(row.render()) for row in panel.children if not row.has_class("title")]


async def test_switching_sessions_rebuilds_the_calls_panel_and_the_token_count(cli: Cli) -> None:
    first = session_with_call(cli, "read_file", "done", tokens=1000)
    second = session_with_call(cli, "list_dir", "failed", tokens=20)
    options = HostOptions(resume=first, workspace=str(cli.workspace))
    async with TuiAgentApp(options).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        assert isinstance(app, TuiAgentApp)
        await wait_for(pilot, lambda: app.host is not None, "the app to boot")
        await wait_for(pilot, lambda: panel_rows(app) == ["read_file done"], "the resumed call")
        status = app.query_one(StatusBar)
        tokens = status.tokens
        assert tokens >= 1000
        await app.switch_session(second)
        assert current_session_id(app) == second
        await wait_for(pilot, lambda: panel_rows(app) == ["list_dir failed"], "the new calls")
        assert status.tokens < tokens  # the new session's count, not the old one's
        assert "read_file" not in screen_text(app)
