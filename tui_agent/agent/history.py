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
from ..images.records import attachment, result_images
from ..session.records import AssistantRecord, ToolResultRecord, UserRecord, WithdrawRecord
from ..stream.turn import ToolCall

INTERRUPTED = "interrupted: tui-agent stopped before this call finished; it was not run again"


def messages_from_records(records: Iterable[Any]) -> tuple[list[Message], list[ToolResultRecord]]:
    """The conversation, and the result records that must be appended to make it valid.

    A turn's results are given back in the order the model announced its calls, as the live
    loop keeps them, whatever order they were written in (a denied call is written before an
    approved one that ran).
    """
    messages: list[Message] = []
    repairs: list[ToolResultRecord] = []
    open_calls: tuple[ToolCall, ...] = ()
    results: dict[str, ToolResultMessage] = {}

    def close_open_calls() -> None:
        nonlocal open_calls
        for call in open_calls:
            result = results.get(call.id)
            if result is None:
                repairs.append(
                    ToolResultRecord(
                        ts=time.time(),
                        call_id=call.id,
                        name=call.name,
                        output=INTERRUPTED,
                        is_error=True,
                        status="interrupted",
                    )
                )
                result = ToolResultMessage(call.id, call.name, INTERRUPTED, True)
            messages.append(result)
        open_calls = ()
        results.clear()

    for record in records:
        if isinstance(record, UserRecord):
            close_open_calls()
            attached = (attachment(a) for a in record.attachments)
            messages.append(UserMessage(record.text, tuple(attached), tuple(record.notes)))
        elif isinstance(record, WithdrawRecord):
            if messages and isinstance(messages[-1], UserMessage):
                messages.pop()
        elif isinstance(record, AssistantRecord):
            close_open_calls()
            open_calls = tuple(
                ToolCall(c.id, c.name, c.arguments, c.synthetic_id) for c in record.tool_calls
            )
            messages.append(
                AssistantMessage(
                    record.protocol,
                    record.text,
                    open_calls,
                    record.reasoning,
                    record.response_id,
                    tuple((e.event, e.data) for e in record.raw),
                )
            )
        elif isinstance(record, ToolResultRecord):
            known = any(call.id == record.call_id for call in open_calls)
            if known and record.call_id not in results:
                images, gone = result_images(record.images)
                output = "\n".join([record.output, *gone])
                results[record.call_id] = ToolResultMessage(
                    record.call_id, record.name, output, record.is_error, images
                )
    close_open_calls()
    return messages, repairs
