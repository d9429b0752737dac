"""A call whose arguments the person edited (``e`` on the approval prompt): its card shows the
edited arguments, that they were edited, and what changed, before it runs and after.

The real app against the fake provider (see ui_app_helpers)."""

from __future__ import annotations

import pytest
from textual.widgets import TextArea

from tui_agent.ui.edited_arguments import edit_diff

from .approval_prompt_app import confirm_edit, screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    running,
    send,
    wait_for,
    wait_idle_agent,
)

PROTOCOL = "openai-chat"


def test_the_diff_is_one_line_out_and_one_in_per_changed_value() -> None:
    model = '{"path": "a.txt", "content": "from the model\\n"}'
    yours = '{"content": "yours\\n", "path": "a.txt"}'
    assert edit_diff(model, yours) == [
        '-  "content": "from the model\\n",',
        '+  "content": "yours\\n",',
    ]


@pytest.mark.heavy
async def test_an_edited_call_shows_what_ran_and_that_it_was_edited(env: AppEnv) -> None:
    arguments = {"path": "a.txt", "content": "from the model\n"}
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_W", "write_file", arguments))),
            answer(PROTOCOL, "Written.", expect=ExpectToolResults({"call_W": None})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write it")
            prompt = await armed_prompt(pilot)
            await pilot.press("e")
            editor = app.query_one("#editor", TextArea)
            editor.text = '{"path": "a.txt", "content": "yours\\n"}'
            await leap_until(pilot, lambda: prompt.armed, "the editor to arm")  # it re-arms
            await pilot.press("ctrl+s")
            await confirm_edit(pilot)
            await wait_idle_agent(pilot)
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.state == "done", "the call to finish")
            assert '"content":"yours\\n"' in card.model.summary  # what ran (canonical JSON)
            assert "from the model" not in card.model.summary
            detail = card.model.detail
            assert detail.startswith("edited by you: these arguments run, not the model's")
            assert '-  "content": "from the model\\n",' in detail
            assert '+  "content": "yours\\n",' in detail
            text = screen_text(app)
            assert "edited by you" in text and '+  "content": "yours\\n",' in text
        assert (env.workspace / "a.txt").read_text() == "yours\n"
