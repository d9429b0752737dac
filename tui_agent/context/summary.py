"""The compaction request's text, and the conversation as later requests send it.

The messages being replaced are written out as a plain transcript inside ``<conversation>``
tags (tool calls and results as text, long ones cut in the middle), so the request holds one
user message: it is valid in every protocol, whatever calls the history holds, and it can be
made to fit a window the history itself no longer fits. After a compaction each request sends
the system prompt, then the summary (merged into the first kept user message, so roles still
alternate for chat templates that insist), then the kept messages verbatim.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..conversation import AssistantMessage, Message, ToolResultMessage, UserMessage
from .fit import head_and_tail

DEFAULT_COMPACT_PROMPT = (
    "Summarize the conversation below between a user and a coding agent, so that the agent can "
    "continue the work from your summary and the most recent messages alone. Keep: what the "
    "user wants and every instruction or constraint they gave; decisions made and why; the "
    "files read, created or changed (with their paths) and what matters in them; commands run "
    "and their important results; errors met and how they were solved; what is done and what "
    "remains to do next. Be concise and concrete. Do not call tools; write only the summary."
)
OPEN_TAG, CLOSE_TAG = "<conversation>", "</conversation>"
SUMMARY_HEAD = "[Summary of the earlier conversation, written when it was compacted]"
CONTINUE_NOTE = "[The conversation continues from here.]"
_PART_LIMIT = 4000  # bytes of one message or result in the transcript before its middle is cut


def _cut_to_tokens(text: str, tokens: int) -> str:
    head_end, tail_start = head_and_tail(text, max(0, tokens - 20), 0.5)
    if head_end == tail_start:
        return text
    left_out = len(text[head_end:tail_start].encode("utf-8", "surrogatepass"))
    return f"{text[:head_end]}\n[... {left_out} bytes left out ...]\n{text[tail_start:]}"


def _cut_middle(text: str, limit: int) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    half = max(1, limit // 2)
    head = data[:half].decode("utf-8", "ignore")
    tail = data[len(data) - half :].decode("utf-8", "ignore")
    return f"{head}\n[... {len(data) - 2 * half} bytes left out ...]\n{tail}"


def transcript(previous_summary: str | None, messages: Sequence[Message]) -> str:
    """The replaced part of the conversation as plain text, oldest first."""
    lines: list[str] = []
    if previous_summary:
        lines.append(f"[summary of what came before]\n{previous_summary}")
    for message in messages:
        if isinstance(message, UserMessage):
            lines += [f"[note]\n{_cut_middle(note, _PART_LIMIT)}" for note in message.notes]
            lines.append(f"[user]\n{_cut_middle(message.text, _PART_LIMIT)}")
        elif isinstance(message, AssistantMessage):
            if message.text:
                lines.append(f"[assistant]\n{_cut_middle(message.text, _PART_LIMIT)}")
            for call in message.tool_calls:
                arguments = _cut_middle(call.arguments, _PART_LIMIT)
                lines.append(f"[assistant called {call.name}] {arguments}")
        elif isinstance(message, ToolResultMessage):
            failed = " (an error)" if message.is_error else ""
            output = _cut_middle(message.output, _PART_LIMIT)
            lines.append(f"[result of {message.name}{failed}]\n{output}")
    return "\n\n".join(lines)


def compaction_request_text(
    prompt: str,
    previous_summary: str | None,
    messages: Sequence[Message],
    budget_tokens: int | None,
    instructions: str = "",
) -> str:
    """The one user message a compaction sends; within ``budget_tokens`` when one is given."""
    body = transcript(previous_summary, messages)
    if budget_tokens is not None:
        body = _cut_to_tokens(body, budget_tokens)
    extra = f"\n\nAlso: {instructions.strip()}" if instructions.strip() else ""
    return f"{prompt}{extra}\n\n{OPEN_TAG}\n{body}\n{CLOSE_TAG}"


def summary_text(summary: str) -> str:
    return f"{SUMMARY_HEAD}\n\n{summary.strip()}"


def compacted_view(summary: str | None, kept: Sequence[Message]) -> list[Message]:
    """What a request sends after a compaction: the summary, then the kept messages."""
    if summary is None:
        return list(kept)
    head = summary_text(summary)
    if kept and isinstance(kept[0], UserMessage):
        first = dataclasses.replace(kept[0], text=f"{head}\n\n{CONTINUE_NOTE}\n\n{kept[0].text}")
        return [first, *kept[1:]]  # its attachments and notes kept
    return [UserMessage(f"{head}\n\n{CONTINUE_NOTE}"), *kept]


def detached(messages: Sequence[Message]) -> list[Message]:
    """Kept messages without their response ids: a stateful request must not chain to a
    response that carries the whole conversation from before the compaction."""
    return [
        dataclasses.replace(m, response_id=None)
        if isinstance(m, AssistantMessage) and m.response_id
        else m
        for m in messages
    ]
