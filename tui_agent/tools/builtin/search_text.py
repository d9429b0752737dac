"""search_text: lines matching a regular expression in the workspace's text files.

The search runs in a separate Python process (``text_files.py``) with a time limit: a pattern
that backtracks catastrophically would otherwise hold the GIL and freeze the app.
"""

from __future__ import annotations

import json
import os
import sys

from pydantic import BaseModel, ConfigDict, Field

from ..environment import scrubbed_environment
from ..process import ProcessStartError, run_in_process_group
from ..sandbox import SandboxError, resolve_in_workspace, shown_path
from ..spec import Risk, ToolContext, ToolOutput, ToolSpec
from ..text_files import SUMMARY_PREFIX, WORKER_SCRIPT

MAX_MATCHES = 500
MAX_OUTPUT_BYTES = 256 * 1024
TIME_LIMIT_S = 20.0
# The worker stops itself at TIME_LIMIT_S between lines; the margin catches one stuck in a match.
KILL_MARGIN_S = 5.0


class SearchTextArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    pattern: str = Field(
        min_length=1, description="A Python regular expression, matched against each line."
    )
    path: str = Field(
        ".", description="The file or directory to search, relative to the workspace."
    )


async def run_search_text(args: SearchTextArgs, ctx: ToolContext) -> ToolOutput:
    """Matches as ``path:line: text``, with notes when the search was cut short."""
    try:
        root = resolve_in_workspace(args.path, ctx)
    except SandboxError as exc:
        return ToolOutput(str(exc), is_error=True)
    shown = shown_path(root, ctx)
    if not root.exists():
        return ToolOutput(f"{shown}: no such file or directory", is_error=True)
    request = {
        "pattern": args.pattern,
        "root": str(root),
        "workspace": os.path.realpath(ctx.workspace),
        "protected": [os.path.realpath(p) for p in ctx.protected],
        "unprotected": [os.path.realpath(p) for p in ctx.unprotected],
        "max_matches": MAX_MATCHES,
        "max_output_bytes": MAX_OUTPUT_BYTES,
        "time_limit_s": TIME_LIMIT_S,
    }
    # -I -S: the workspace's own files (a stray re.py) and site packages cannot be imported.
    argv = [sys.executable, "-I", "-S", str(WORKER_SCRIPT), json.dumps(request)]
    try:
        result = await run_in_process_group(
            argv,
            cwd=ctx.workspace,
            env=scrubbed_environment(secret_values=ctx.secret_values),
            timeout_s=TIME_LIMIT_S + KILL_MARGIN_S,
            output_cap=2 * MAX_OUTPUT_BYTES,
            grace_s=0.5,
        )
    except ProcessStartError as exc:
        return ToolOutput(f"search_text could not start its search process: {exc}", True)
    output = result.output.decode("utf-8", "replace")
    matches, _, summary_text = output.partition(SUMMARY_PREFIX)
    if not summary_text:
        return _partial(matches, args.pattern)
    summary = json.loads(summary_text)
    if "error" in summary:
        return ToolOutput(summary["error"], is_error=True)
    return _report(matches, summary, args.pattern, shown)


def _report(matches: str, summary: dict[str, object], pattern: str, shown: str) -> ToolOutput:
    notes = []
    stopped = summary["stopped"]
    if stopped == "matches":
        notes.append(f"stopped at {MAX_MATCHES} matches; narrow the pattern or the path")
    elif stopped == "output":
        notes.append("stopped at 256 KB of results; narrow the pattern or the path")
    elif stopped == "time":
        notes.append(f"stopped after {TIME_LIMIT_S:g} s; the results are partial")
    if summary["skipped_binary"]:
        notes.append(f"{summary['skipped_binary']} binary files skipped")
    if summary["unreadable"]:
        notes.append(f"{summary['unreadable']} files or folders could not be read")
    if summary.get("hard_linked"):
        notes.append(
            f"{summary['hard_linked']} files with several hard links skipped: another of their "
            "names may be outside the workspace"
        )
    text = matches or f"no matches for {pattern!r} in {shown}\n"
    notes_text = "".join(f"[search_text: {note}]\n" for note in notes)
    return ToolOutput((text + notes_text).rstrip("\n"))


def _partial(matches: str, pattern: str) -> ToolOutput:
    limit = TIME_LIMIT_S + KILL_MARGIN_S
    note = (
        f"[search_text: the search was stopped after {limit:g} s; the pattern {pattern!r} "
        "may backtrack catastrophically. Results, if any, are partial.]"
    )
    return ToolOutput(matches + note, is_error=not matches)


SEARCH_TEXT = ToolSpec(
    name="search_text",
    description=(
        "Search the text files under a path (default: the whole workspace) for lines matching "
        "a Python regular expression. Returns 'path:line: text' per match. Binary files, .git "
        f"symbolic links and files with several hard links are skipped; at most {MAX_MATCHES} "
        "matches are returned."
    ),
    args_model=SearchTextArgs,
    risk=Risk.READ,
    run=run_search_text,
)
