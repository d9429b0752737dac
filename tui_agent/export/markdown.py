"""A session as Markdown for a person to read: messages, tool calls, decisions and results.

Layout: the title, a list of header facts, then each message as ``## N · User`` or
``## N · Assistant`` (N as ``tui-agent sessions`` counts messages, so ``fork --at N`` can be read
off the export). An assistant turn shows its reasoning in a collapsed ``<details>`` block, its
text, then each call in the order the model announced it: its arguments (pretty JSON, or a shell
block for ``run_command``), the decision and the result. What the loop recorded between messages
follows in file order: a discarded turn, a withdrawn message, notes. A task call's subagent
shows under its call, after the decision: its task, its turns and its own calls, a heading
level deeper (``#### Subagent``).

Everything is untrusted text: control and invisible characters are made visible
(``markdown_safe``), and nothing from the session can imitate the export's own structure (a fake
``## 3 · User`` heading, a fake ``**Decision:**`` line, a fence or an HTML block that swallows
what follows):
- every message, reasoning, argument and output is a fenced block, its fence longer than the
  longest run of backticks it holds, so none of its lines is read as Markdown (a message shows
  as its Markdown source);
- text that shares a line with the export's own words (a title, a reason, a note) has every
  character that could start Markdown or HTML backslash-escaped, and its lines joined.
A result longer than ``RESULT_LIMIT`` characters is cut, with a note. An image (attached, or
returned by a tool) is a Markdown image linking to its file in the data folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..agent.fork import is_message, message_count
from ..context.events import divider_text
from ..context.resume import compacted_event
from ..images.store import image_file
from ..session import LoadedSession
from ..session.records import (
    AssistantRecord,
    CompactionRecord,
    DecisionRecord,
    NoteRecord,
    StoredImage,
    SubagentRecord,
    ToolCallRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)
from ..text.sanitize import markdown_safe
from ..text.times import human_utc

RESULT_LIMIT = 4096
_BACKTICKS = re.compile(r"`+")
# Characters that start emphasis, code, links, HTML, entities or escapes anywhere in a line.
_INLINE_MARKUP = re.compile(r"[\\`*_\[\]<>#&~]")
# What starts a list or a setext underline at the start of a line ("- x", "1. x", "1) x").
_BLOCK_START = re.compile(r"^(\d{0,9})([-+=.)])")


def render_markdown(loaded: LoadedSession) -> str:
    """The whole session as Markdown (ends with a newline)."""
    out: list[str] = [f"# {_line(loaded.title)}", "", *_facts(loaded), ""]
    if loaded.problems:
        out += ["> **Skipped when reading the session file:**", ">"]
        out += [f"> - {_line(problem)}" for problem in loaded.problems]
        out.append("")
    number = 0
    for segment in _segments(loaded.records):
        head = segment[0]
        if is_message(head):
            number += 1
            out += _message(number, head, segment[1:])
        else:
            out += _others(segment)
    return "\n".join(out).rstrip("\n") + "\n"


def _facts(loaded: LoadedSession) -> list[str]:
    header = loaded.header
    unknown = "(unknown)"
    return [
        f"- Session: {_code(header.id)}",
        f"- Created: {human_utc(header.created)}",
        f"- Profile: {_code(header.profile or unknown)} (protocol "
        f"{_code(header.protocol or unknown)}, model {_code(header.model or unknown)})",
        f"- Workspace: {_code(header.workspace or unknown)}",
        f"- Messages: {message_count(loaded.records)}",
    ]


def _segments(records: Sequence[Any]) -> list[list[Any]]:
    """Records grouped as [message, what followed it...]; what precedes the first message alone."""
    segments: list[list[Any]] = []
    for record in records:
        if is_message(record) or not segments:
            segments.append([record])
        else:
            segments[-1].append(record)
    return segments


def _message(number: int, head: Any, rest: list[Any]) -> list[str]:
    if isinstance(head, UserRecord):
        images = [_image(a.path, a.image) for a in head.attachments if a.image is not None]
        shown = [f"Attached image: {image}" for image in images]
        return [f"## {number} · User", "", *_prose(head.text), "", *_spaced(shown), *_others(rest)]
    assert isinstance(head, AssistantRecord)
    out = [f"## {number} · Assistant", ""]
    if head.reasoning.strip():
        reasoning = _prose(head.reasoning)
        out += ["<details><summary>Reasoning</summary>", "", *reasoning, "", "</details>", ""]
    if head.text.strip():
        out += [*_prose(head.text), ""]
    handled: set[int] = set()
    for call in head.tool_calls:
        out += _call(call, rest, handled)
    out += _others([record for index, record in enumerate(rest) if index not in handled])
    return out


def _call(call: ToolCallRecord, rest: list[Any], handled: set[int], level: int = 3) -> list[str]:
    """A call, its decision, its subagent's work and its result (the records used are added
    to ``handled``)."""
    decision: DecisionRecord | None = None
    result: ToolResultRecord | None = None
    nested: list[SubagentRecord] = []
    started = False
    for index, record in enumerate(rest):
        if getattr(record, "call_id", None) != call.id or index in handled:
            continue
        if isinstance(record, SubagentRecord):
            nested.append(record)
        elif isinstance(record, DecisionRecord) and decision is None:
            decision = record
        elif isinstance(record, ToolResultRecord) and result is None:
            result = record
        elif isinstance(record, ToolStartRecord):
            started = True
        else:
            continue
        handled.add(index)
    heading = "#" * min(level, 6)
    out = [f"{heading} Tool call {_code(call.name)} ({_code(call.id)})", "", *_arguments(call)]
    out += [_decision(decision, call), ""]
    if nested:
        out += _subagent(nested, level + 1)
    if result is not None:
        out += _result(result)
    elif started:
        out += ["**Result:** none recorded: tui-agent stopped while the call ran", ""]
    else:
        out += ["**Result:** none recorded", ""]
    return out


def _subagent(records: list[SubagentRecord], level: int) -> list[str]:
    """A task call's subagent: its task, each of its turns with its calls, in file order."""
    out = [f"{'#' * min(level, 6)} Subagent {_code(records[0].agent)}", ""]
    for segment in _segments([record.record for record in records]):
        head = segment[0]
        if isinstance(head, UserRecord):
            out += ["**Task given:**", "", *_prose(head.text), "", *_others(segment[1:])]
        elif isinstance(head, AssistantRecord):
            out += ["**Its turn:**", ""]
            if head.text.strip():
                out += [*_prose(head.text), ""]
            handled: set[int] = set()
            rest = segment[1:]
            for call in head.tool_calls:
                out += _call(call, rest, handled, level + 1)
            out += _others([record for index, record in enumerate(rest) if index not in handled])
        else:
            out += _others(segment)
    return out


def _arguments(call: ToolCallRecord, arguments: str | None = None) -> list[str]:
    text = call.arguments if arguments is None else arguments
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return ["Arguments (not valid JSON):", "", *_fenced(text, "text"), ""]
    if call.name == "run_command" and isinstance(value, dict):
        command = value.get("command")
        if isinstance(command, str):
            extra = {key: item for key, item in value.items() if key != "command"}
            out = _fenced(command, "sh")
            if extra:
                out += ["", *_fenced(json.dumps(extra, indent=2, ensure_ascii=False), "json")]
            return [*out, ""]
    return [*_fenced(json.dumps(value, indent=2, ensure_ascii=False), "json"), ""]


def _decision(record: DecisionRecord | None, call: ToolCallRecord) -> str:
    if record is None:
        return "**Decision:** none recorded"
    reason = f": {_line(record.reason)}" if record.reason else ""
    kind = record.decision
    if kind == "approve":
        why = f" ({_line(record.reason)})" if record.reason else ""
        return f"**Decision:** approved by {record.by}{why}"
    if kind == "deny":
        return f"**Decision:** denied by {record.by}{reason}"
    if kind == "edit":
        if record.arguments is None:
            return f"**Decision:** edited by {record.by}"
        edited = "\n".join(_arguments(call, record.arguments)).rstrip("\n")
        return f"**Decision:** edited by {record.by}; it ran with:\n\n{edited}"
    if kind == "cancel":
        return f"**Decision:** cancelled by {record.by}{reason}"
    if kind == "invalid":
        return f"**Decision:** invalid, never offered{reason}"
    return f"**Decision:** refused by {record.by}{reason}"


def _result(record: ToolResultRecord) -> list[str]:
    status = record.status + (", error" if record.is_error and record.status == "done" else "")
    output = record.output
    note = []
    if len(output) > RESULT_LIMIT:
        cut = output.rfind("\n", RESULT_LIMIT * 3 // 4, RESULT_LIMIT)
        cut = cut if cut > 0 else RESULT_LIMIT
        more = len(output) - cut
        output = output[:cut]
        note = [f"*(output cut here: {more:,} more characters; the JSON export has it all)*", ""]
    images = _spaced([f"Returned image: {_image('image', ref)}" for ref in record.images])
    if not output:
        return [f"**Result** ({status}): empty", "", *images]
    return [f"**Result** ({status}):", "", *_fenced(output, "text"), "", *note, *images]


def _image(name: str, ref: StoredImage) -> str:
    """A link to the image's file in the data folder (the session holds only its name)."""
    what = f"{ref.media_type}, {ref.width}x{ref.height}, {ref.size:,} bytes"
    path = image_file(ref.digest, ref.media_type)
    if path is None:
        return f"{_line(name)} ({what}; not kept)"
    return f"![{_line(name)}]({path.absolute().as_uri()}) ({what})"


def _spaced(lines: list[str]) -> list[str]:
    return [part for line in lines for part in (line, "")]


def _others(records: list[Any]) -> list[str]:
    out: list[str] = []
    for record in records:
        if isinstance(record, TruncatedRecord):
            out += _truncated(record)
        elif isinstance(record, WithdrawRecord):
            out += ["*The user withdrew the message above; it was never answered.*", ""]
        elif isinstance(record, NoteRecord):
            out += [f"> **Note ({_line(record.kind)}):** {_line(record.text)}", ""]
        elif isinstance(record, CompactionRecord):
            line = _line(divider_text(compacted_event(record)))
            out += ["---", "", f"**Compacted here:** {line}", ""]
            out += ["Summary sent to the model from here on:", "", *_prose(record.summary), ""]
        elif isinstance(record, DecisionRecord):
            # Belongs to no call of the turn before it (a damaged file): shown plainly.
            reason = f": {_line(record.reason)}" if record.reason else ""
            out += [
                f"Decision for {_code(record.call_id)}, a call not in the turn above: "
                f"{record.decision} by {record.by}{reason}",
                "",
            ]
        elif isinstance(record, ToolResultRecord):
            call = f"{_code(record.name)} ({_code(record.call_id)})"
            out += [f"Result for {call}, a call not in the turn above:", "", *_result(record)]
    return out


def _truncated(record: TruncatedRecord) -> list[str]:
    why = f": {_line(record.error)}" if record.error else ""
    out = [f"**Turn discarded: {_line(record.reason)}**{why}", ""]
    if record.stop_reason:
        out += [f"Stop reason: {_code(record.stop_reason)}", ""]
    if record.pending_calls:
        calls = ", ".join(
            f"{_code(call.get('name', '?'))} ({_code(call.get('id', '?'))})"
            for call in record.pending_calls
        )
        out += [f"Pending calls (never run): {calls}", ""]
    if record.text.strip():
        out += ["Text received before the cut:", "", *_fenced(record.text, "text"), ""]
    return out


def _prose(text: str) -> list[str]:
    """Model or user text as its Markdown source, fenced: no line of it is read as Markdown."""
    return _fenced(text.strip("\n"), "markdown")


def _line(text: str) -> str:
    """Text on one line among the export's own words: read as plain text, never as Markdown."""
    joined = " ".join(markdown_safe(text).split())
    escaped = _INLINE_MARKUP.sub(r"\\\g<0>", joined)
    return _BLOCK_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", escaped, count=1)


def _fenced(text: str, info: str) -> list[str]:
    """``text`` in a fence longer than any run of backticks in it."""
    safe = markdown_safe(text).rstrip("\n")
    longest = max((len(run) for run in _BACKTICKS.findall(safe)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, safe, fence]


def _code(text: str) -> str:
    """Inline code that holds any text (backticks included); nothing in it is read as Markdown."""
    safe = " ".join(markdown_safe(text).split())
    longest = max((len(run) for run in _BACKTICKS.findall(safe)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if safe.startswith("`") or safe.endswith("`") else ""
    return f"{ticks}{pad}{safe}{pad}{ticks}"
