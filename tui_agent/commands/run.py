"""`tui-agent run "PROMPT"`: the agent loop without the UI, for scripts and tests.

Prints the answer as it streams (or, with --json, one JSON object per agent event per line),
saves the session, and exits 0 when the final turn completed, 2 when it was truncated or
failed, 1 on a usage or configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TextIO

from ..agent.call_hooks import hook_summary
from ..agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    HookFinished,
    LoopEnded,
    Notice,
    SubagentEvent,
    ToolFinished,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
    event_to_json,
)
from ..approval.approver import HeadlessApprover
from ..config import ConfigError
from ..context.events import context_line
from ..conversation import Attachment, attachment_label
from ..prompting.attachments import (
    AttachError,
    mentioned_paths,
    read_attachments,
    read_chosen_file,
)
from ..providers.server_tools import server_tool_line
from ..session import Redactor, SessionError
from ..session.stream_redaction import StreamRedactor, redact_value
from ..stream.events import ReasoningDelta, ServerToolUsed, TextDelta
from ..text.sanitize import markdown_safe  # the one sanitizer, so run shows what the app shows
from ..tools.spec import ToolContext
from ..transport import RetryWait
from ..wiring.host import open_host
from ..wiring.host_options import HostOptions
from .exit_status import EXIT_CLOSED_PIPE, EXIT_OK, EXIT_TRUNCATED, EXIT_USAGE


def main(args: argparse.Namespace) -> int:
    shown: list[_Printer] = []  # the printer, once there is one (to end its line on Ctrl-C)
    try:
        return asyncio.run(_stoppable(_run(args, shown)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        if shown and shown[0].mid_line:
            with contextlib.suppress(OSError):
                sys.stdout.write("\n")  # the message starts a line of its own
                sys.stdout.flush()
        print("tui-agent run: interrupted", file=sys.stderr)
        return EXIT_TRUNCATED
    except BrokenPipeError:
        # The reader went away (`run ... | head -1`): stop quietly, as the other commands do.
        # Point stdout at /dev/null so Python's flush at exit does not complain again.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLOSED_PIPE  # the reader's choice, not a failed run


async def _stoppable(run: Coroutine[Any, Any, int]) -> int:
    """SIGTERM and SIGHUP stop the run as Ctrl-C does: cancelled, so running tools are killed."""
    task = asyncio.current_task()
    if task is not None:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals here
                asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    return await run


def _fail(message: str) -> int:
    # One line, as documented: a config file's list of problems is joined with "; ".
    head, *rest = [line.strip() for line in message.splitlines() if line.strip()] or [""]
    if rest:
        head = f"{head} {'; '.join(rest)}"
    print(f"tui-agent run: {head}", file=sys.stderr)
    return EXIT_USAGE


async def _run(args: argparse.Namespace, shown: list[_Printer]) -> int:
    if getattr(args, "agent", None):
        return await _run_agent(args, shown)
    approver = HeadlessApprover(args.approve)
    options = HostOptions.from_flags(
        args,
        resume=args.session,
        trust_workspace=getattr(args, "trust_workspace", False),
        effort=getattr(args, "effort", None),
    )
    try:
        host = await open_host(
            options, approver, mode=approver.mode, wait_for_tools=True, retry_on_overflow=True
        )
    except (ConfigError, SessionError) as exc:
        return _fail(str(exc))
    out = _Printer(sys.stdout, sys.stderr, args.json, host.redactor)
    shown.append(out)
    out.session_started(host.writer.session_id, resumed=not host.created)
    for notice in host.notices:
        out.event(notice)
    pending = host.untrusted_content()
    if not pending.empty:
        print(
            f"tui-agent run: not trusted, so not used: {', '.join(pending.names())}; open "
            "tui-agent in this workspace to see and trust them, or pass --trust-workspace "
            "to use them for this run",
            file=sys.stderr,
        )
    degraded_at_start = host.writer.degraded
    outcome = "truncated"
    try:
        attachments = _attachments(args, host.agent.calls.context)
    except AttachError as exc:
        await host.close()
        return _fail(f"not attached, nothing sent: {exc}")
    for attachment in attachments:
        out.event(Notice(f"attached {attachment_label(attachment)}", "info"))
    try:
        async for event in host.agent.send(args.prompt, attachments):
            out.event(event)
            if isinstance(event, LoopEnded):
                outcome = event.outcome
    finally:
        await host.close()
    degraded = host.writer.degraded
    if degraded and degraded != degraded_at_start:  # said once: at start, or when it happened
        out.event(Notice(degraded, "warning"))
    out.finish()
    return EXIT_OK if outcome == "complete" else EXIT_TRUNCATED


def _attachments(args: argparse.Namespace, ctx: ToolContext) -> tuple[Attachment, ...]:
    """The files ``--attach`` names (relative to the current folder; an image may be outside
    the workspace), then the prompt's ``@path`` words that name files of the workspace."""
    named = [read_chosen_file(os.path.abspath(p), ctx) for p in getattr(args, "attach", None) or []]
    mentioned = read_attachments(mentioned_paths(args.prompt, ctx.workspace), ctx)
    attached: dict[str, Attachment] = {}
    for attachment in (*named, *mentioned):
        attached.setdefault(attachment.path, attachment)
    return tuple(attached.values())


async def _run_agent(args: argparse.Namespace, shown: list[_Printer]) -> int:
    """``run --agent NAME``: the prompt to an ACP agent of config.toml (acp_client/); its
    permission requests answered as ``--approve`` answers tool calls, the same events shown."""
    from ..acp_client.session import AcpError
    from ..wiring.acp_host import open_acp_host

    approver = HeadlessApprover(args.approve)
    options = HostOptions.from_flags(args, resume=args.session)
    try:
        host = await open_acp_host(options, args.agent, approver, mode=approver.mode)
    except (ConfigError, SessionError, AcpError) as exc:
        return _fail(str(exc))
    out = _Printer(sys.stdout, sys.stderr, args.json, host.redactor)
    shown.append(out)
    out.session_started(host.writer.session_id, resumed=not host.created)
    for notice in host.notices:
        out.event(notice)
    outcome = "truncated"
    try:
        async for event in host.session.send(args.prompt):
            out.event(event)
            if isinstance(event, LoopEnded):
                outcome = event.outcome
    finally:
        await host.close()
    out.finish()
    return EXIT_OK if outcome == "complete" else EXIT_TRUNCATED


class _Printer:
    """Text mode: the answer on stdout, everything else as short lines on stderr.

    Nothing printed holds a key. Text and reasoning each go through their own StreamRedactor,
    which sees across deltas and holds back only a tail that could still become a key, until
    the turn ends; every other event is redacted whole, every string field of it (ids and
    names too), before it is printed.
    """

    def __init__(self, stdout: TextIO, stderr: TextIO, as_json: bool, redactor: Redactor) -> None:
        self.stdout, self.stderr, self.as_json = stdout, stderr, as_json
        self.redactor = redactor
        self.mid_line = False
        self._text = StreamRedactor(redactor)
        self._reasoning = StreamRedactor(redactor)

    def event(self, event: AgentEvent) -> None:
        if isinstance(event, SubagentEvent) and isinstance(_innermost(event), _DELTAS):
            # A subagent's text is its turn's, printed whole (and redacted whole) once the turn
            # is complete: its deltas never pass the conversation's stream redactors.
            return
        if isinstance(event, TextDelta):
            self._show_text(self._text.push(event.text))
            return
        if isinstance(event, ReasoningDelta):
            self._show_reasoning(self._reasoning.push(event.text))
            return
        if isinstance(event, _STREAM_ENDS):
            self._flush_streams()
        if self.as_json:
            self._json_line(event_to_json(event))
            return
        described = _describe(event, self.redactor.redact)
        if described:
            if self.mid_line:
                self.stdout.write("\n")
                self.mid_line = False
            self.stderr.write(markdown_safe(self.redactor.redact(described)) + "\n")
            self.stderr.flush()

    def session_started(self, session_id: str, *, resumed: bool) -> None:
        """Which session this run writes: the first --json event, a line on stderr in text."""
        if self.as_json:
            self._json_line(
                {"type": "session_started", "session_id": session_id, "resumed": resumed}
            )
            return
        what = "resumed" if resumed else "new"
        self.stderr.write(f"session {session_id} ({what})\n")
        self.stderr.flush()

    def _json_line(self, fields: dict[str, Any]) -> None:
        line = json.dumps(redact_value(fields, self.redactor), ensure_ascii=True)
        self.stdout.write(self.redactor.redact(line) + "\n")
        self.stdout.flush()

    def _show_text(self, text: str) -> None:
        if not text:
            return
        if self.as_json:
            self._json_line(event_to_json(TextDelta(text)))
            return
        self.stdout.write(markdown_safe(text))
        self.mid_line = not text.endswith("\n")
        self.stdout.flush()

    def _show_reasoning(self, text: str) -> None:
        if text and self.as_json:  # text mode does not print reasoning
            self._json_line(event_to_json(ReasoningDelta(text)))

    def _flush_streams(self) -> None:
        self._show_reasoning(self._reasoning.flush())
        self._show_text(self._text.flush())

    def finish(self) -> None:
        self._flush_streams()
        if self.mid_line and not self.as_json:
            self.stdout.write("\n")


# The events that end a stream of deltas: a turn's end, a new turn, the end of the loop. A key is
# never assumed to end at any other event (a call announced between two pieces of text).
_STREAM_ENDS = (TurnStarted, TurnCompleted, TurnTruncated, LoopEnded)


_DELTAS = (TextDelta, ReasoningDelta)


def _innermost(event: SubagentEvent) -> AgentEvent:
    inner = event.event
    while isinstance(inner, SubagentEvent):
        inner = inner.event
    return inner


def _describe(event: AgentEvent, redact: Callable[[str], str]) -> str | None:
    """One line for stderr, not yet redacted (the caller redacts the whole line)."""
    if isinstance(event, SubagentEvent):
        if isinstance(event.event, TurnCompleted) and event.event.turn.text.strip():
            return f"[task {event.agent}] {event.event.turn.text.strip().splitlines()[0][:120]}"
        described = _describe(event.event, redact)
        return f"[task {event.agent}] {described}" if described else None
    if isinstance(event, CallDecided):
        why = f": {event.reason}" if event.reason else ""
        return f"[{event.name}] {event.decision} ({event.by}{why})"
    if isinstance(event, CallInvalid):
        return f"[{event.name}] invalid: {event.error}"
    if isinstance(event, HookFinished):
        return hook_summary(event)
    if isinstance(event, ToolFinished):
        # The first line of the output, cut only after a key in it is redacted whole.
        output = redact(event.output).strip()
        first = output.splitlines()[0] if output else ""
        return f"[{event.name}] {event.status}: {first[:120]}"
    if isinstance(event, ServerToolUsed):
        return server_tool_line(event.name, event.detail)
    if isinstance(event, RetryWait):
        return f"retrying in {event.seconds:.1f} s ({event.why}), attempt {event.attempt}"
    if isinstance(event, TurnTruncated):
        return event.message
    if isinstance(event, Notice):
        return f"{event.level}: {event.text}"
    return context_line(event)


__all__ = ["main"]
