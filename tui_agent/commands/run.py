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
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TextIO

from ..agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    LoopEnded,
    Notice,
    ToolFinished,
    TurnTruncated,
    event_to_json,
)
from ..agent.host import open_host
from ..agent.host_options import HostOptions
from ..approval.approver import HeadlessApprover
from ..config import ConfigError
from ..session import Redactor, SessionError
from ..stream.events import TextDelta
from ..transport import RetryWait
from ..ui.sanitize import markdown_safe  # the one sanitizer, so run shows what the app shows

EXIT_COMPLETE, EXIT_USAGE, EXIT_TRUNCATED = 0, 1, 2


def main(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_stoppable(_run(args)))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("tui-agent run: interrupted", file=sys.stderr)
        return EXIT_TRUNCATED


async def _stoppable(run: Coroutine[Any, Any, int]) -> int:
    """SIGTERM stops the run as Ctrl-C does: cancelled, so running tools are killed, not left."""
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals here
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await run


def _fail(message: str) -> int:
    # One line, as documented: a config file's list of problems is joined with "; ".
    head, *rest = [line.strip() for line in message.splitlines() if line.strip()] or [""]
    if rest:
        head = f"{head} {'; '.join(rest)}"
    print(f"tui-agent run: {head}", file=sys.stderr)
    return EXIT_USAGE


async def _run(args: argparse.Namespace) -> int:
    approver = HeadlessApprover(args.approve)
    options = HostOptions.from_flags(args, resume=args.session)
    try:
        host = await open_host(options, approver, mode=approver.mode)
    except (ConfigError, SessionError) as exc:
        return _fail(str(exc))
    out = _Printer(sys.stdout, sys.stderr, args.json, host.redactor)
    for notice in host.notices:
        out.event(notice)
    outcome = "truncated"
    try:
        async for event in host.agent.send(args.prompt):
            out.event(event)
            if isinstance(event, LoopEnded):
                outcome = event.outcome
    finally:
        await host.close()
    if getattr(host.writer, "degraded", None):
        out.event(Notice(str(host.writer.degraded), "warning"))
    out.finish()
    return EXIT_COMPLETE if outcome == "complete" else EXIT_TRUNCATED


class _Printer:
    """Text mode: the answer on stdout, everything else as short lines on stderr.

    Nothing printed holds the key: every line is redacted, and the end of the streamed text that
    could still be the start of a key (its last word) is held back until the word is complete.
    """

    def __init__(self, stdout: TextIO, stderr: TextIO, as_json: bool, redactor: Redactor) -> None:
        self.stdout, self.stderr, self.as_json = stdout, stderr, as_json
        self.redact = redactor.redact
        self._mid_line = False
        self._held = ""

    def event(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            text = self._held + event.text
            cut = _word_start(text)
            self._held = text[cut:]
            self._text(text[:cut])
            return
        self._flush_text()
        if self.as_json:
            line = json.dumps(event_to_json(event), ensure_ascii=True)
            self.stdout.write(self.redact(line) + "\n")
            self.stdout.flush()
            return
        described = _describe(event, self.redact)
        if described:
            if self._mid_line:
                self.stdout.write("\n")
                self._mid_line = False
            self.stderr.write(markdown_safe(described) + "\n")
            self.stderr.flush()

    def _text(self, text: str) -> None:
        if not text:
            return
        text = self.redact(text)
        if self.as_json:
            line = json.dumps(event_to_json(TextDelta(text)), ensure_ascii=True)
            self.stdout.write(line + "\n")
        else:
            self.stdout.write(markdown_safe(text))
            self._mid_line = not text.endswith("\n")
        self.stdout.flush()

    def _flush_text(self) -> None:
        held, self._held = self._held, ""
        self._text(held)

    def finish(self) -> None:
        self._flush_text()
        if self._mid_line and not self.as_json:
            self.stdout.write("\n")


_HOLD_LIMIT, _HOLD_KEEP = 4096, 512  # a word this long is printed but for its last 512 chars


def _word_start(text: str) -> int:
    """Where the last word of ``text`` begins (its end if it ends in whitespace)."""
    at = len(text)
    while at > 0 and not text[at - 1].isspace():
        at -= 1
    if len(text) - at > _HOLD_LIMIT:
        at = len(text) - _HOLD_KEEP
    return at


def _describe(event: AgentEvent, redact: Callable[[str], str]) -> str | None:
    if isinstance(event, CallDecided):
        why = f": {event.reason}" if event.reason else ""
        return redact(f"[{event.name}] {event.decision} ({event.by}{why})")
    if isinstance(event, CallInvalid):
        return redact(f"[{event.name}] invalid: {event.error}")
    if isinstance(event, ToolFinished):
        output = redact(event.output).strip()  # before it is cut, so no part of a key is left
        first = output.splitlines()[0] if output else ""
        return f"[{event.name}] {event.status}: {first[:120]}"
    if isinstance(event, RetryWait):
        return f"retrying in {event.seconds:.1f} s ({event.why}), attempt {event.attempt}"
    if isinstance(event, TurnTruncated):
        return redact(event.message)
    if isinstance(event, Notice):
        return redact(f"{event.level}: {event.text}")
    return None


__all__ = ["main"]
