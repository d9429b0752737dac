"""What the demo model says once its calls came back: what each result contained, or, for a
call that did not run, why not.

Chat Completions carries a tool result as plain text with no error flag, so failures are told
apart by the texts the agent and the built-in tools write ("denied by user", "cancelled by
user", "refused: ...", "invalid arguments for ...", "x: no such file", "[exit code 1]").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .markup import clip, code_block, inline_code, plural

MAX_NAMED_ENTRIES = 25
MAX_QUOTED_LINES = 5
MAX_OUTPUT_LINES = 8
MAX_MATCHES_SHOWN = 5
LINE_LIMIT = 120

# One-line results the built-in tools give when they could not do what was asked.
_TOOL_ERROR = re.compile(
    r": no such (?:file|directory)|\bis (?:a directory|not a directory|not a regular file)"
    r"|^path |outside the workspace|looks like a binary file|^the operation failed"
    r"|not valid UTF-8|^old text |nothing would change|is larger than|^cannot create the folder"
    r"|symbolic link|app's own files|could not start|was not found on PATH|^program "
)
_EXIT = re.compile(r"\[exit code (-?\d+)\]")
_SIGNAL = re.compile(r"\[ended by signal (\w+)\]")
_MATCH = re.compile(r"^(.+?):(\d+): ")


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One call the demo model made and the text it got back."""

    name: str
    arguments: Mapping[str, Any]
    output: str


def answer_results(results: Sequence[ToolResult]) -> str:
    """The answer after a round of results: one paragraph per call, in the order it was made."""
    if not results:
        return "I got no results back, so I have nothing to report.\n"
    paragraphs = [_report(result) for result in results]
    if len(results) > 1:
        count = "Both" if len(results) == 2 else f"All {len(results)}"
        paragraphs.insert(0, f"{count} calls came back.")
    return "\n\n".join(paragraphs) + "\n"


def _action(result: ToolResult) -> str:
    """What the call would have done, as "read `notes.txt`"."""
    args = result.arguments
    subject = {
        "list_dir": ("list", "path"),
        "read_file": ("read", "path"),
        "search_text": ("search for", "pattern"),
        "write_file": ("write", "path"),
        "edit_file": ("edit", "path"),
        "run_command": ("run", "command"),
    }.get(result.name)
    if subject is None or not isinstance(args.get(subject[1]), str):
        return f"run {inline_code(result.name)}"
    return f"{subject[0]} {inline_code(clip(args[subject[1]], LINE_LIMIT))}"


def _report(result: ToolResult) -> str:
    output = result.output.strip()
    name = inline_code(result.name)
    action = _action(result)
    if output.startswith("denied by user"):
        reason = output.removeprefix("denied by user").lstrip(":").strip()
        why = f" The reason given: {_sentence(clip(reason, 300))}" if reason else ""
        return f"You denied the call to {name}, so I did not {action}.{why}"
    if output.startswith("blocked by hook "):
        why = output.removeprefix("blocked by hook ").strip()
        return f"A hook blocked the call to {name} ({clip(why, 300)}), so I did not {action}."
    if output.startswith("denied by the approval mode"):
        return f"The approval mode denied the call to {name}, so I did not {action}."
    if output.startswith(("interrupted by user", "cancelled by user while it was running")):
        return (
            f"The call to {name} was interrupted before it finished, so I cannot say what it did."
        )
    if output.startswith("cancelled by user"):
        return f"You cancelled the turn, so I did not {action}."
    if output.startswith("refused:"):
        why = output.removeprefix("refused:").strip()
        return f"The call to {name} was refused ({clip(why, 300)}), so I did not {action}."
    if output.startswith(("invalid arguments for", "unknown tool")):
        return f"My call to {name} was invalid, so it did not run: {clip(output, 300)}"
    if output.startswith("tool failed:"):
        return f"{name} failed: {clip(output, 300)}"
    if "\n" not in output and _TOOL_ERROR.search(output):
        return f"I could not {action}: {output}"
    return _BY_TOOL.get(result.name, _generic)(result, output)


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _list_dir(result: ToolResult, output: str) -> str:
    path = inline_code(str(result.arguments.get("path", ".")))
    if output.startswith("[list_dir:") and output.endswith("is empty]"):
        return f"{path} is empty."
    lines = output.splitlines()
    entries = [line for line in lines if line and not line.startswith("[list_dir:")]
    notes = [line for line in lines if line.startswith("[list_dir:")]
    folders = sum(1 for entry in entries if entry.endswith("/") or "/ (" in entry)
    named = ", ".join(inline_code(entry) for entry in entries[:MAX_NAMED_ENTRIES])
    more = len(entries) - MAX_NAMED_ENTRIES
    if more > 0:
        named += f", and {more} more"
    kinds = (
        f"{plural(folders, 'folder')}, {plural(len(entries) - folders, 'other entry', 'others')}"
    )
    text = f"The listing of {path} returned {plural(len(entries), 'entry', 'entries')} ({kinds}): "
    text += f"{named}."
    return text + "".join(f" {note}" for note in notes)


def _read_file(result: ToolResult, output: str) -> str:
    path = inline_code(str(result.arguments.get("path", "the file")))
    if output.startswith("[read_file:") and output.endswith("]") and "\n" not in output:
        return f"{path}: {output[len('[read_file:') : -1].strip()}."
    lines = result.output.split("\n")
    more = ""
    if lines and lines[-1].startswith("[read_file:"):
        more = " (" + lines.pop()[len("[read_file:") :].rstrip("]").strip() + ")"
    if lines and lines[-1] == "":
        lines.pop()
    shown = [clip(line, LINE_LIMIT) for line in lines[:MAX_QUOTED_LINES]]
    lead = "Here it is in full:" if len(lines) <= MAX_QUOTED_LINES else "It begins:"
    count = plural(len(lines), "line")
    return f"{path} has {count}{more}. {lead}\n\n{code_block(shown)}"


def _search_text(result: ToolResult, output: str) -> str:
    pattern = inline_code(str(result.arguments.get("pattern", "")))
    if output.startswith("no matches for"):
        return f"The search for {pattern} found no matches."
    lines = output.splitlines()
    matches = [line for line in lines if _MATCH.match(line)]
    notes = [line for line in lines if line.startswith("[search_text:")]
    files = {m.group(1) for line in matches if (m := _MATCH.match(line))}
    if not matches:
        return f"The search for {pattern} gave no matches: {clip(output, 300)}"
    count = plural(len(matches), "match", "matches")
    text = f"The search for {pattern} found {count} in {plural(len(files), 'file')}"
    first = "\n".join(f"- {inline_code(clip(m, LINE_LIMIT))}" for m in matches[:MAX_MATCHES_SHOWN])
    lead = "They are:" if len(matches) <= MAX_MATCHES_SHOWN else "The first ones:"
    return f"{text}. {lead}\n\n{first}" + "".join(f"\n\n{note}" for note in notes)


def _run_command(result: ToolResult, output: str) -> str:
    command = inline_code(clip(str(result.arguments.get("command", "")), LINE_LIMIT))
    lines = output.splitlines()
    trailer: list[str] = []
    while lines and lines[-1].startswith("[") and lines[-1].endswith("]"):
        trailer.insert(0, lines.pop())
    ending = " ".join(trailer)
    if (exit_code := _EXIT.search(ending)) is not None:
        how = f"exited with code {exit_code.group(1)}"
    elif (signal := _SIGNAL.search(ending)) is not None:
        how = f"was ended by signal {signal.group(1)}"
    elif "[timed out" in ending:
        how = "timed out and was stopped"
    else:
        how = "finished"
    if lines == ["(no output)"] or not lines:
        return f"{command} {how} and printed nothing."
    shown = [clip(line, LINE_LIMIT) for line in lines[:MAX_OUTPUT_LINES]]
    lead = "Its output:" if len(lines) <= MAX_OUTPUT_LINES else "Its output begins:"
    total = "" if len(lines) <= MAX_OUTPUT_LINES else f"\n\n({plural(len(lines), 'line')} in all.)"
    return f"{command} {how}. {lead}\n\n{code_block(shown)}{total}"


def _changed(result: ToolResult, output: str) -> str:
    return f"Done: {clip(output, 300)}."


def _generic(result: ToolResult, output: str) -> str:
    lines = output.splitlines()
    if not lines:
        return f"{inline_code(result.name)} returned nothing."
    shown = [clip(line, LINE_LIMIT) for line in lines[:MAX_OUTPUT_LINES]]
    count = plural(len(lines), "line")
    return f"{inline_code(result.name)} returned {count}:\n\n{code_block(shown)}"


_BY_TOOL: dict[str, Callable[[ToolResult, str], str]] = {
    "list_dir": _list_dir,
    "read_file": _read_file,
    "search_text": _search_text,
    "run_command": _run_command,
    "write_file": _changed,
    "edit_file": _changed,
}
