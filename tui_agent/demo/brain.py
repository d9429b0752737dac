"""The demo model's mind: a pure function from a Chat Completions request body to a Script.

Deterministic: the same messages give the same script, byte for byte. The system prompt and
the offered tools are ignored; the demo always assumes the six built-in tools.

When the request ends with tool results (role "tool" messages after an assistant message with
``tool_calls``), the answer says what each result contained: the entries a listing returned,
a file's line count and first lines, the number of matches and the first few, a command's exit
code and first output lines; or, for a call that did not run, that it was denied, cancelled,
refused or invalid, and so what was not done. It never calls a tool again after results, so
every exchange ends.

Otherwise the last user message decides, by these rules, case-insensitively; the first rule
that matches wins:

1. ``$ CMD`` -> run_command ``{"command": CMD}``.
2. The message starts with a verb that takes free text, which then decides whatever follows:
   - ``run``/``execute``/``exec CMD`` -> run_command (a backticked part, else the rest);
   - ``write``/``create X [saying|with|: TEXT]`` -> write_file ``{"path": X, "content": ...}``:
     the first quoted text, else what follows the file name, else a small generated note
     (only when a file name or quoted text is given; "write a long essay" goes on to rule 4);
   - ``edit X: OLD -> NEW`` -> edit_file ``{"path": X, "old": OLD, "new": NEW}`` (``=>`` and
     ``→`` work too; without an arrow the answer explains the syntax);
   - ``search``/``grep``/``find Y [in PATH]`` -> search_text ``{"pattern": Y}`` (the quoted
     text, else the first word that is not a filler like "for" or "the").
3. Words outside quotes:
   - ``parallel``/``both``/``concurrently`` -> two calls in one turn whose argument fragments
     interleave on the wire: the paths named (a folder ending in "/" is listed, a file read),
     topped up with list_dir ``.`` and read_file ``README.md``;
   - ``truncate``/``truncated``/``cut``/``break`` -> text and a write_file call whose stream is
     cut halfway through the arguments (no finish_reason, no ``[DONE]``): a truncated turn;
   - ``long``/``markdown``/``essay`` -> a long markdown answer (headings, lists, a code block,
     a table; several KB).
4. The earliest tool verb anywhere: the free-text verbs above; ``read``/``cat``/``open X``,
   or ``show X`` when X looks like a path -> read_file (``README.md`` when none is named);
   ``list``/``ls``/``dir [PATH]`` or ``files [in PATH]`` -> list_dir (``.`` by default).
5. Anything else (``help``, ``hi``...) -> a short answer saying what the demo can do and how
   to configure a real provider; with files attached (``@notes.md``), a short summary of each
   instead ("summarize @notes.md").

Only the person's own text decides: an attached file's block (``<attached_file ...>``, a
text part of its own) is never read for intents, so a file's words cannot make the demo
call a tool; ``@`` is taken off the attached files' names in the person's text.

Call ids are ``call_demo_<turn>_<i>``, where turn counts the assistant messages so far, plus 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..context.summary import CONTINUE_NOTE
from ..providers.openai_chat.request import TOOL_IMAGES_NOTE
from .attachments import describe_attachments, is_attachment_block, without_mentions
from .intents import plan_for
from .reports import ToolResult, answer_results
from .script import Script
from .summary import is_compaction_request, summarize
from .texts import HELP


def respond(body: Mapping[str, Any]) -> Script:
    """What the demo model streams in answer to this request body."""
    raw = body.get("messages")
    messages = [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []
    results = _trailing_results(messages)
    if results is not None:
        return Script(answer_results(results))
    turn = 1 + sum(1 for m in messages if m.get("role") == "assistant")
    for message in reversed(messages):
        if message.get("role") == "user":
            own, attached = _own_and_attached(message.get("content"))
            if is_compaction_request(own):  # /compact: a summary, see summary.py
                return summarize(own)
            # After a compaction the summary leads the first kept message; answer what follows.
            plan = plan_for(own.rpartition(CONTINUE_NOTE)[2], turn)
            if attached and not plan.calls and plan.text == HELP:
                return Script(describe_attachments(attached))
            return plan
    return Script(HELP)


def _trailing_results(messages: Sequence[Mapping[str, Any]]) -> list[ToolResult] | None:
    """The results that end the conversation, in the order their calls were made; None when
    the last message is not a tool result (or the user message that brings their images)."""
    end = len(messages)
    if end and _brings_tool_images(messages[-1]):
        end -= 1
    start = end
    while start > 0 and messages[start - 1].get("role") == "tool":
        start -= 1
    if start == end:
        return None
    outputs = {str(m.get("tool_call_id")): _text(m.get("content")) for m in messages[start:end]}
    calls = messages[start - 1].get("tool_calls") if start > 0 else None
    results: list[ToolResult] = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, Mapping) or str(call.get("id")) not in outputs:
            continue
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        results.append(
            ToolResult(
                name=str(function.get("name", "")),
                arguments=_arguments(function.get("arguments")),
                output=outputs.pop(str(call.get("id"))),
            )
        )
    # A result whose call we cannot find is still reported, under no name.
    results += [ToolResult("unknown", {}, output) for output in outputs.values()]
    return results


def _brings_tool_images(message: Mapping[str, Any]) -> bool:
    """The user message after a turn's results that carries the images they returned."""
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list) or not content:
        return False
    first = content[0]
    return isinstance(first, Mapping) and str(first.get("text", "")).endswith(TOOL_IMAGES_NOTE)


def _arguments(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _own_and_attached(content: Any) -> tuple[str, list[str]]:
    """The person's own text, and the attached files' blocks (each a text part of its own)."""
    if not isinstance(content, list):
        return _text(content), []
    parts = [_text([part]) for part in content]
    attached = [part for part in parts if is_attachment_block(part)]
    own = "".join(part for part in parts if not is_attachment_block(part))
    return (without_mentions(own) if attached else own), attached


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""
