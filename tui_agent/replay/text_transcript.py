"""A saved session as plain text, the way a reviewer reads it in CI (`tui-agent replay --headless`).

Built from the same ``ReplayScript`` the app replays (so each turn's recorded provider events go
through the same decoder and assembler), then printed in the order the app showed it:

    user: list the files
    assistant: Let me look.
    call list_files [call_1] {"path": "."}
      list_files [call_1] decision: auto-approved by rule: tool list_files
      list_files [call_1] result (done):
        alpha.txt
        … 12 more lines (340 characters in all)
    turn discarded: cut, the stream ended before the provider finished the turn: ...
      pending call: write_file [call_W]
    note: you withdrew the message above; it was never answered

A task call's subagent prints under it, each of its lines indented and labelled
``[subagent NAME]``.

Streaming progress (deltas, "preparing tool" announcements) is not printed: each turn is printed
once, whole, from its outcome. Every piece of recorded text goes through ``text.sanitize`` (the one
sanitizer), so no control, format or invisible character reaches the terminal. No Textual here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..agent.events import (
    CallDecided,
    CallInvalid,
    Notice,
    SubagentEvent,
    ToolFinished,
    TurnCompleted,
    TurnTruncated,
)
from ..context.events import Compacted, divider_text
from ..stream.turn import ToolCall
from ..text.sanitize import visible, visible_line
from .decisions import decision_line
from .script import ReplayEvent, ReplayScript, UserSent

RESULT_LINES = 8  # lines of a tool result printed
LINE_CHARS = 200  # characters of one result or argument line printed
INDENT = "  "


def transcript_text(script: ReplayScript, header: Iterable[str] = ()) -> str:
    """The whole transcript, ``header`` lines first, ending with a newline."""
    lines = [visible_line(line) for line in header]
    lines += transcript_lines(script)
    return "\n".join(lines) + "\n"


def transcript_lines(script: ReplayScript) -> list[str]:
    """One entry per printed line (each already safe for a terminal)."""
    lines: list[str] = []
    for step in script:
        lines += event_lines(step.event)
    return lines


def event_lines(event: ReplayEvent) -> list[str]:
    """The lines one replayed event prints; [] for streaming progress."""
    if isinstance(event, UserSent):
        attached = [f"{INDENT}[attached] {visible_line(label)}" for label in event.attached]
        return labelled("user", event.text) + attached
    if isinstance(event, SubagentEvent):
        label = f"{INDENT * 2}[subagent {visible_line(event.agent)}] "
        return [label + line for line in event_lines(event.event)]
    if isinstance(event, TurnCompleted):
        turn = event.turn
        out = labelled("reasoning", turn.reasoning) if turn.reasoning.strip() else []
        if turn.text.strip():
            out += labelled("assistant", turn.text)
        for call in turn.tool_calls:
            out.append(call_line(call))
        return out
    if isinstance(event, TurnTruncated):
        return truncated_lines(event)
    if isinstance(event, CallDecided):
        decided = visible_line(decision_line(event))
        return [f"{INDENT}{which(event.name, event.call_id)} decision: {decided}"]
    if isinstance(event, CallInvalid):
        error = clip(visible_line(event.error))
        return [f"{INDENT}{which(event.name, event.call_id)} invalid: {error}"]
    if isinstance(event, ToolFinished):
        return result_lines(event)
    if isinstance(event, Notice):
        label = "note" if event.level == "info" else event.level
        return labelled(label, event.text)
    if isinstance(event, Compacted):
        return [f"--- {visible_line(divider_text(event))} ---", *labelled("summary", event.summary)]
    return []


def labelled(label: str, text: str, indent: str = "") -> list[str]:
    """``label: first line`` then the other lines indented under it."""
    first, *rest = visible(text.strip("\n")).split("\n") or [""]
    return [f"{indent}{label}: {first}".rstrip()] + [
        f"{indent}{INDENT}{line}".rstrip() for line in rest
    ]


def call_line(call: ToolCall) -> str:
    """``call NAME ARGUMENTS  [ID]``: the arguments as one line of JSON (or as received)."""
    try:
        arguments = json.dumps(json.loads(call.arguments or "{}"), ensure_ascii=False)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        arguments = call.arguments
    return f"call {which(call.name, call.id)} {clip(visible_line(arguments), 4 * LINE_CHARS)}"


def result_lines(event: ToolFinished) -> list[str]:
    """``result (STATUS):`` and the first ``RESULT_LINES`` lines, with a note of what is left."""
    error = ", error" if event.is_error else ""
    label = f"{which(event.name, event.call_id)} result ({event.status}{error})"
    text = event.output.strip("\n")
    if not text:
        return [f"{INDENT}{label}: (empty)"]
    lines = visible(text).split("\n")
    if len(lines) == 1 and len(lines[0]) <= LINE_CHARS:
        return [f"{INDENT}{label}: {lines[0]}".rstrip()]
    out = [f"{INDENT}{label}:"]
    out += [f"{INDENT * 2}{clip(line)}".rstrip() for line in lines[:RESULT_LINES]]
    more = len(lines) - RESULT_LINES
    if more > 0:
        out.append(f"{INDENT * 2}… {more} more lines ({len(event.output)} characters in all)")
    return out


def truncated_lines(event: TurnTruncated) -> list[str]:
    """``turn discarded: REASON, why`` and what it held (nothing of it was kept)."""
    turn = event.turn
    why = event.message.removeprefix("Turn discarded, ")
    out = [f"turn discarded: {turn.reason}, {clip(visible_line(why), 4 * LINE_CHARS)}"]
    if turn.text.strip():
        out += labelled("text so far", turn.text, INDENT)
    for call in turn.pending_calls:
        out.append(f"{INDENT}pending call: {which(call.name, call.id)}")
    return out


def which(name: str, call_id: str) -> str:
    """``read_file [call_A]``: a call's tool and id, on one line."""
    shown = visible_line(name) or "(no name)"
    return f"{shown} [{visible_line(call_id)}]" if call_id else shown


def clip(line: str, limit: int = LINE_CHARS) -> str:
    return line if len(line) <= limit else f"{line[:limit]}… ({len(line) - limit} more characters)"
