"""Queue while busy, in the real app: Enter while the agent works queues the message (shown as
queued, nothing sent), Alt+Up reaches the queue where a message is removed or taken back to
edit (queued again in its place), and the queue is sent when the loop next waits for the
person, one message per loop; Esc stops the work and the queue stays, held, until the person's
next message has been answered."""

from __future__ import annotations

from typing import Any

from tui_agent.ui.widgets.queued_messages import QueuedMessages

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Hold, Reply
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


def held(text: str) -> Reply:
    """An answer whose body waits for ``server.release()``: the agent stays busy till then."""
    return Reply(answer(PROTOCOL, text).ops, stop="stop", faults=Hold(0))


def last_user(request: Any) -> str:
    users = [m["content"] for m in request.json["messages"] if m["role"] == "user"]
    return str(users[-1])


async def test_enter_while_busy_queues_edit_remove_and_sent_when_the_loop_waits(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(held("First answer."), answer(PROTOCOL, "Second answer."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "first")
            await wait_for(pilot, lambda: app.busy and len(server.requests) == 1, "busy")
            await send(pilot, "second")
            await send(pilot, "third")
            queue = app.query_one(QueuedMessages)
            assert queue.items == ["second", "third"]
            await wait_text(pilot, "queued (2)")
            assert "2. third" in screen_text(app)
            assert prompt_text(app) == ""

            await pilot.press("alt+up")  # to the queue, the last message chosen
            assert app.focused is queue
            await pilot.press("down")  # at the end: it stays there, no wrap to the first
            assert queue.selected == 1
            await pilot.press("d")
            assert queue.items == ["second"]
            await pilot.press("e")  # back into the box to edit
            assert queue.items == []
            assert prompt_text(app) == "second" and app.focused is not queue
            await pilot.press("end", "space", "e", "d", "i", "t", "e", "d", "enter")
            assert queue.items == ["second edited"]
            assert len(server.requests) == 1  # nothing sent while the agent works

            server.release()
            await wait_text(pilot, "Second answer.")
            await wait_idle_agent(pilot)
            assert len(server.requests) == 2
            assert last_user(server.requests[1]) == "second edited"
            assert queue.items == [] and queue.has_class("-empty")


async def test_esc_stops_the_work_and_the_queue_stays_until_the_next_message(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            held("never shown"),
            answer(PROTOCOL, "Answer to new."),
            answer(PROTOCOL, "Answer to later."),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "first")
            await wait_for(pilot, lambda: app.busy and len(server.requests) == 1, "busy")
            await send(pilot, "later")
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            queue = app.query_one(QueuedMessages)
            await wait_text(pilot, "held after a stop")
            # Decided once, as the loop ended: sending would have taken "later" off the queue.
            assert queue.items == ["later"] and queue.held
            assert len(server.requests) == 1  # stopped: nothing of the queue went out
            assert prompt_text(app) == "first"  # Esc gave the message back, as always

            app.query_one("#prompt").clear()  # type: ignore[attr-defined]
            await send(pilot, "new")
            await wait_text(pilot, "Answer to later.")
            await wait_idle_agent(pilot)
            assert [last_user(r) for r in server.requests[1:]] == ["new", "later"]
            assert queue.items == []
