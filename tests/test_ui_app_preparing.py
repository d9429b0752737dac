"""The "preparing tool" card while arguments stream, and the approval prompt only after the turn.

The real app against the fake provider over real sockets: while the server holds the stream
(before its terminal event, or in the middle of the arguments), the card is on screen with the
tool's name and the byte count, the argument text is nowhere on screen, and no prompt exists.
"""

from __future__ import annotations

import pytest

from . import wire
from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply, Stall, StallBeforeTerminal
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    offset_of,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)
from .wire import Op

MARKER = "ZQXJ-secret-argument-text"
PROTOCOLS = list(wire.BUILDERS)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.heavy
async def test_card_while_arguments_stream_and_prompt_only_after_the_terminal_event(
    protocol: str, env: AppEnv
) -> None:
    arguments = {"path": "notes.txt", "content": f"{MARKER}\n"}
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_W", "write_file", arguments)), faults=StallBeforeTerminal()),
            answer(protocol, expect=ExpectToolResults({"call_W": None})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write the notes")
            assert await server.wait_stalled_async(10.0)
            await wait_text(pilot, "preparing tool: write_file")
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.model.nbytes > 0, "the byte count")
            text = screen_text(app)
            assert f"{card.model.nbytes:,} bytes of arguments" in text
            assert MARKER not in text
            assert "notes.txt" not in text
            assert not app.query("ApprovalPrompt")
            # Held: nothing changes while the terminal event is withheld.
            await pilot.pause(0.3)
            assert not app.query("ApprovalPrompt")
            assert card.state == "preparing"

            server.release()
            prompt = await armed_prompt(pilot)
            assert prompt.request.tool_name == "write_file"
            assert card.state == "waiting"
            assert MARKER in screen_text(app)  # now, and only now, in the prompt
            await pilot.press("y")
            await wait_idle_agent(pilot)
            assert (env.workspace / "notes.txt").read_text() == f"{MARKER}\n"
            assert card.state == "done"
        server.assert_all_consumed()


async def test_mid_arguments_stall_then_esc_discards_the_turn(env: AppEnv) -> None:
    protocol = "openai-chat"
    ops: list[Op] = [
        ("text", "Let me run it."),
        ("call", 0, "call_R", "run_command"),
        ("args", 0, '{"command": "echo '),
        ("args", 0, MARKER),
        ("args", 0, ' > ran.txt"}'),
        ("close", 0),
    ]
    # Two fragments arrived (the marker among them); the stream stops inside the third.
    cut = offset_of(protocol, ops, "ran.txt")
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(ops, faults=Stall(cut)))
        async with running(server, env) as (app, pilot):
            await send(pilot, "run the marker command")
            await wait_text(pilot, "preparing tool: run_command")
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.model.nbytes > 0, "argument bytes")
            text = screen_text(app)
            assert card.model.nbytes == len('{"command": "echo ') + len(MARKER)
            assert MARKER not in text and "echo" not in text
            assert "Let me run it." in text
            assert "· streaming" in text  # the status bar
            assert prompt_text(app) == ""

            await pilot.press("escape")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "your message is back in the input")
            assert prompt_text(app) == "run the marker command"
            assert card.state == "cancelled"
            assert not app.query("ApprovalPrompt")
            assert "stopped: the turn was discarded" in screen_text(app)
        assert not (env.workspace / "ran.txt").exists()
        types = env.types()
        assert "assistant" not in types
        assert "truncated" in types
        assert not {"decision", "tool_start", "tool_result"} & set(types)
        assert types[-1] == "withdraw"
        assert len(server.requests) == 1
