"""The command sandbox in the app: the approval prompt and the status line show where a command
will run (warning colour when unconfined), the palette switches it for the session and shows what
is protected, and the first unconfined call asks once more, clearly.

The real app against the fake provider (the real wire format over a socket), real commands.
"""

from __future__ import annotations

from tui_agent.replay.script import ReplayScript
from tui_agent.replay.text_transcript import transcript_text
from tui_agent.sandbox.binding import bound_digest
from tui_agent.sandbox.policy import SandboxMode
from tui_agent.tools.arguments import arguments_digest
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.sandbox_view import set_sandbox
from tui_agent.ui.screens.sandbox_report import SandboxReport
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.approval_sandbox import SandboxLine
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    running,
    send,
    sent_texts,
    wait_for,
    wait_idle_agent,
)

PROTOCOL = "openai-chat"
CALL = ("call_S", "run_command", {"command": "echo made > out.txt"})


def _line(prompt: ApprovalPrompt) -> SandboxLine:
    return prompt.query_one("#sandbox", SandboxLine)


def _commands(app: TuiAgentApp) -> dict[str, object]:
    return {command.title: command.callback for command in app.get_system_commands(app.screen)}


async def test_the_prompt_and_the_status_line_show_the_sandbox(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(CALL)), answer(PROTOCOL, "Made."))
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.sandbox == "workspace-write", "the status")
            assert "sandbox: workspace-write" in str(status.render())
            await send(pilot, "make it")
            prompt = await armed_prompt(pilot)
            line = _line(prompt)
            assert str(line.render()) == "sandbox: workspace-write, no network"
            assert not line.has_class("-warning") and line.display
            assert "sandbox: workspace-write, no network" in screen_text(app)
            await pilot.press("y")
            await wait_idle_agent(pilot)
        assert (env.workspace / "out.txt").read_text() == "made\n"


async def test_off_from_the_palette_warns_and_the_first_call_asks_again(env: AppEnv) -> None:
    second = ("call_T", "run_command", {"command": "echo again >> out.txt"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL)),
            answer(PROTOCOL, "Made."),
            Reply(call_ops(second)),
            answer(PROTOCOL, "Again."),
        )
        async with running(server, env) as (app, pilot):
            commands = _commands(app)
            for title in ("Sandbox: workspace-write", "Sandbox: read-only", "Sandbox: off"):
                assert title in commands
            assert "Sandbox: network on" in commands
            commands["Sandbox: off"]()  # type: ignore[operator]
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.sandbox == "OFF", "OFF on the status line")
            assert status.sandbox_warning
            assert any(span.style == "bold reverse yellow" for span in status.render().spans)
            await send(pilot, "make it")
            prompt = await armed_prompt(pilot)
            line = _line(prompt)
            assert line.has_class("-warning")
            assert "sandbox: OFF (UNCONFINED)" in str(line.render())
            assert "runs unconfined" in str(line.render())
            await pilot.press("y")
            # The extra confirmation: a new prompt that says so; only y, n, r and Esc work.
            await wait_for(pilot, lambda: app.query_one(ApprovalPrompt) is not prompt, "again")
            confirm = await armed_prompt(pilot)
            text = str(_line(confirm).render())
            assert "this command will run UNCONFINED: press y again to confirm" in text
            assert "Confirm once for this session" in text
            assert "y confirm: run it so" in " ".join(screen_text(app).split())
            await pilot.press("A", "t", "e")  # not offered here: nothing happens
            await pilot.pause()  # a key decides in its handler: each was handled by now
            assert confirm.decision is None and confirm.mode == "choose"
            assert not (env.workspace / "out.txt").exists()
            await pilot.press("y")
            await wait_idle_agent(pilot)
            assert (env.workspace / "out.txt").read_text() == "made\n"
            await send(pilot, "again")  # confirmed once a session: asked once
            prompt = await armed_prompt(pilot)
            assert not prompt.request.confirm and _line(prompt).has_class("-warning")
            await pilot.press("y")
            await wait_idle_agent(pilot)
        assert (env.workspace / "out.txt").read_text() == "made\nagain\n"


async def test_network_switch_and_what_is_protected(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            set_sandbox(app, SandboxMode.READ_ONLY, True)
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.sandbox == "read-only +net", "the status")
            assert app.host is not None
            assert app.host.agent.calls.context.sandbox.network
            commands = _commands(app)
            assert "Sandbox: network off" in commands  # on now: the entry turns it off
            commands["Sandbox: what is protected"]()  # type: ignore[operator]
            await wait_for(pilot, lambda: isinstance(app.screen, SandboxReport), "the report")
            report = app.screen.query_one("#report")
            text = str(report.render())
            assert text.startswith("sandbox: read-only, network")
            assert "file system" in text and "allowed by the network switch" in text
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, SandboxReport), "closed")


async def test_f6_reruns_a_blocked_command_unconfined_only_after_a_new_approval(
    env: AppEnv,
) -> None:
    outside = env.root / "outside.txt"
    blocked = ("call_B", "run_command", {"command": f"echo out > {outside}"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(blocked)), answer(PROTOCOL, "Blocked."), answer(PROTOCOL, "Seen.")
        )
        async with running(server, env) as (app, pilot):
            await pilot.press("f6")  # nothing blocked yet: says so, asks nothing
            said = lambda: any("blocked" in n.message for n in app._notifications)  # noqa: E731
            await wait_for(pilot, said, "F6's notice")
            assert not app.query(ApprovalPrompt)
            await send(pilot, "write outside")
            await armed_prompt(pilot)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            assert not outside.exists()
            assert app.host is not None
            [result] = [m for m in app.host.agent.messages if getattr(m, "call_id", "") == "call_B"]
            assert "re-run it unconfined" in getattr(result, "output", "")
            await pilot.press("f6")
            again = await armed_prompt(pilot)
            request = again.request
            assert request.call_id == "call_B-unconfined"
            assert request.sandbox == "off (unconfined)"
            assert request.arguments == blocked[2]
            line = str(_line(again).render())
            assert "sandbox: OFF (UNCONFINED)" in line and "re-run UNCONFINED" in line
            assert _line(again).has_class("-warning")
            assert f"echo out > {outside}" in screen_text(app)
            assert not outside.exists()  # not before it is approved
            await pilot.press("y")
            # The session's first unconfined run: the same second question as /sandbox off.
            await wait_for(pilot, lambda: app.query_one(ApprovalPrompt) is not again, "again")
            confirm = await armed_prompt(pilot)
            assert "press y again to confirm" in str(_line(confirm).render())
            assert not outside.exists()
            await pilot.press("y")
            await wait_for(pilot, outside.exists, "the unconfined run")
            await wait_for(pilot, lambda: not app.busy, "the re-run to end")
            assert outside.read_text() == "out\n"
            records = env.records()
            decisions = [r for r in records if r.get("call_id") == "call_B-unconfined"]
            assert [r["type"] for r in decisions] == ["decision", "tool_start"]
            policy = app.host.agent.calls.context.sandbox.unconfined()
            bound = bound_digest(arguments_digest(blocked[2]), policy)
            assert decisions[0]["digest"] == decisions[1]["digest"] == bound
            assert any(r["type"] == "note" and r["kind"] == "rerun" for r in records)
            await send(pilot, "did it work?")  # the model sees the re-run with this message
            await wait_idle_agent(pilot)
            sent = sent_texts(server, 2)
            assert "re-ran your run_command call call_B unconfined" in sent
            assert "did it work?" in sent
            # The person's message stays theirs (history, forks, exports); the re-run's result
            # is a tool-side note of its own, and the replay shows what ran unconfined.
            records = env.records()
            user = [r for r in records if r["type"] == "user"][-1]
            assert user["text"] == "did it work?"
            assert "re-ran your run_command call call_B unconfined" in user["notes"][0]
            assert app.host.store is not None
            loaded = app.host.store.load(app.host.writer.session_id)
            text = transcript_text(ReplayScript.from_records(loaded.records))
            assert "(no name)" not in text
            assert "re-ran run_command {" in text and "UNCONFINED (sandbox off): done" in text
        server.assert_all_consumed()


async def test_a_denied_rerun_runs_nothing(env: AppEnv) -> None:
    outside = env.root / "outside.txt"
    blocked = ("call_B", "run_command", {"command": f"echo out > {outside}"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(blocked)), answer(PROTOCOL, "Blocked."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "write outside")
            await armed_prompt(pilot)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await pilot.press("f6")
            await armed_prompt(pilot)
            await pilot.press("n")
            await wait_for(pilot, lambda: not app.busy, "the re-run to end")
            assert not outside.exists()
            assert app.host is not None and not app.host.agent.notes_for_model
