"""What an ACP client of `tui-agent acp` may pick besides prompts: the approval modes, offered
as the session's modes (an editor's mode selector, the app's F3), and the ``/compact`` command
(advertised with ``available_commands_update``, the app's /compact)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from acp.helpers import update_agent_message_text
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

from ..agent.events import Notice
from ..approval.policy import ApprovalMode
from ..context.events import Compacted, CompactionFailed, ResultsCut, context_line, divider_text
from ..conversation import Attachment
from ..transport import RetryWait
from ..wiring.host import SessionHost

# The approval modes the client may pick, as the app's F3 cycles them (ui/approval_mode.py).
MODES = {
    "ask": "every call the rules do not allow is asked",
    "plan": "only reading tools are offered and run; nothing is changed",
    "auto-read": "reading tools run without asking; the rest is asked",
    "auto-all": "every valid call runs without asking",
}
COMMANDS = [
    AvailableCommand(
        name="compact",
        description="summarize the older part of the conversation for the model (as the app's "
        "/compact), to free the context window",
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint="what to keep")),
    )
]


def session_modes(current: ApprovalMode) -> SessionModeState:
    """The approval modes as the session's modes, ``current`` the one in force."""
    available = [SessionMode(id=mode, name=mode, description=MODES[mode]) for mode in MODES]
    return SessionModeState(current_mode_id=str(current), available_modes=available)


def compact_instructions(text: str, attachments: tuple[Attachment, ...]) -> str | None:
    """The instructions of a ``/compact`` prompt ("" for none); None for any other prompt."""
    name, _, rest = text.strip().partition(" ")
    if name != "/compact" or attachments:
        return None
    return rest.strip()


async def compact(
    host: SessionHost,
    instructions: str,
    send: Callable[[Any], Awaitable[None]],
    say: Callable[[str], None],
) -> None:
    """``/compact [instructions]``: the app's /compact; what it did is the answer (a message
    chunk a line), retries said on stderr."""
    redact = host.redactor.redact
    async with contextlib.aclosing(host.agent.compact(instructions)) as events:
        async for event in events:
            line: str | None = None
            if isinstance(event, Compacted):
                line = divider_text(event)
            elif isinstance(event, CompactionFailed | ResultsCut):
                line = context_line(event)
            elif isinstance(event, Notice):
                line = event.text
            elif isinstance(event, RetryWait):
                why, attempt = event.why, event.attempt
                say(f"retrying in {event.seconds:.1f} s ({why}), attempt {attempt}")
            if line:
                await send(update_agent_message_text(redact(line) + "\n"))
