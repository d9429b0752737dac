"""Background jobs in the real app under Pilot, over the loopback fake provider: the approval
prompt says the command runs in the background, the call returns at once with the job's id,
/jobs lists it with its tail and stops it, and quitting the app ends what still runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.screens.jobs import JobsScreen
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.waiting import poll
from .tools_helpers import find_sleep, live_members, sleep_mark
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    make_env,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


def _script(server: FakeProvider, mark: str) -> None:
    command = f"echo SERVER-UP; sleep {mark}"
    call = ("call_B", "run_command", {"command": command, "background": True})
    server.script(
        Reply(call_ops(call)),
        answer(
            PROTOCOL,
            "Started.",
            expect=ExpectToolResults({"call_B": "started background job 1"}),
        ),
    )


@pytest.mark.heavy
async def test_a_background_command_is_approved_listed_and_stopped(env: AppEnv) -> None:
    mark = sleep_mark()
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        _script(server, mark)
        async with running(server, env) as (app, pilot):
            await send(pilot, "start the server")
            await armed_prompt(pilot)
            assert "IN THE BACKGROUND" in screen_text(app)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Started.")
            found = poll(lambda: find_sleep(mark), "the job's sleep")
            await wait_for(pilot, lambda: app.query_one(StatusBar).jobs == "1 job", "1 job")
            await send(pilot, "/jobs")
            await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen), "the jobs list")
            await wait_text(pilot, "SERVER-UP")
            await wait_text(pilot, "running")
            await pilot.press("s")
            await wait_text(pilot, "stopped")
            assert not live_members(found[1])
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, JobsScreen), "closed")
            await wait_text(pilot, "background job 1 ended (stopped): echo SERVER-UP")
            assert app.query_one(StatusBar).jobs == ""
        server.assert_all_consumed()


@pytest.mark.heavy
async def test_quitting_the_app_ends_its_jobs(env: AppEnv) -> None:
    mark = sleep_mark()
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        _script(server, mark)
        async with running(server, env) as (app, pilot):
            await send(pilot, "start the server")
            await armed_prompt(pilot)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            found = poll(lambda: find_sleep(mark), "the job's sleep")
            await pilot.press("f9")
            await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen), "F9's list")
            await pilot.press("escape")
        poll(lambda: not live_members(found[1]), "the job to end with the app")
