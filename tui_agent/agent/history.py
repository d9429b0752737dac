"""Rebuild a conversation from session records, so a resumed session continues exactly.

Only complete records count: truncated turns are diagnostics and never sent. A call left
without a result (the app died between approval and result) gets an "interrupted" result and
is never run again by itself; a withdrawn message leaves the history.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from ..conversation import AssistantMessage, Message, ToolResultMessage, UserMessage
from ..session.records import AssistantRecord, ToolResultRecord, UserRecord, WithdrawRecord
from ..stream.turn import ToolCall

INTERRUPTED = "interrupted: tui-agent stopped before this call finished; it was not run again"


def messages_from_records(records: Iterable[Any]) -> tuple[list[Message], list[ToolResultRecord]]:
    """The conversation, and the result records that must be appended to make it valid."""
    messages: list[Message] = []
    repairs: list[ToolResultRecord] = []
    open_calls: dict[str, ToolCall] = {}

    def close_open_calls() -> None:
        for call in open_calls.values():
            record = ToolResultRecord(
                ts=time.time(),
                call_id=call.id,
                name=call.name,
                output=INTERRUPTED,
                is_error=True,
                status="interrupted",
            )
            repairs.append(record)
            messages.append(ToolResultMessage(call.id, call.name, INTERRUPTED, True))
        open_calls.clear()

    for record in records:
        if isinstance(record, UserRecord):
            close_open_calls()
            messages.append(UserMessage(record.text))
        elif isinstance(record, WithdrawRecord):
            if messages and isinstance(messages[-1], UserMessage):
                messages.pop()
        elif isinstance(record, AssistantRecord):
            close_open_calls()
            calls = tuple(
                ToolCall(c.id, c.name, c.arguments, c.synthetic_id) for c in record.tool_calls
            )
            messages.append(
                AssistantMessage(
                    record.protocol,
                    record.text,
                    calls,
                    record.reasoning,
                    record.response_id,
                    tuple((e.event, e.data) for e in record.raw),
                )
            )
            open_calls = {c.id: c for c in calls}
        elif isinstance(record, ToolResultRecord):
            call = open_calls.pop(record.call_id, None)
            if call is not None:
                messages.append(
                    ToolResultMessage(record.call_id, record.name, record.output, record.is_error)
                )
    close_open_calls()
    return messages, repairs
