"""`tui-agent run "PROMPT"`: the agent loop without the UI, for scripts and tests.

Prints the answer as it streams (or, with --json, one JSON object per agent event per line),
saves the session, and exits 0 when the final turn completed, 2 when it was truncated or
failed, 1 on a usage or configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TextIO

import httpx

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
from ..agent.history import messages_from_records
from ..agent.setup import approval_policy, build_agent, system_prompt
from ..approval.approver import HeadlessApprover
from ..config import ConfigError, load_config, resolve_profile, resolve_workspace
from ..conversation import Message
from ..session import Redactor, SessionError, SessionStore
from ..session.paths import protected_dirs, sessions_dir
from ..session.records import NoteRecord
from ..stream.events import TextDelta
from ..transport import RetryWait

EXIT_COMPLETE, EXIT_USAGE, EXIT_TRUNCATED = 0, 1, 2


def main(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return EXIT_TRUNCATED


def _fail(message: str) -> int:
    print(f"tui-agent run: {message}", file=sys.stderr)
    return EXIT_USAGE


async def _run(args: argparse.Namespace) -> int:
    try:
        config = load_config()
        profile = resolve_profile(
            config,
            profile=args.profile,
            protocol=args.protocol,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
        )
        workspace = resolve_workspace(config, args.workspace)
    except ConfigError as exc:
        return _fail(str(exc))
    if profile.is_demo:
        return _fail(
            "no provider is configured: set a key such as OPENAI_API_KEY, or add a profile to "
            "config.toml (see README), or pass --protocol/--model/--base-url"
        )
    store = SessionStore(sessions_dir(), Redactor([profile.api_key] if profile.api_key else []))
    history: list[Message] = []
    try:
        if args.session:
            writer = store.open_for_append(args.session)
            loaded = store.load(args.session)
            history, repairs = messages_from_records(loaded.records)
            for record in repairs:
                writer.append(record, sync=True)
        else:
            writer = store.create(
                profile=profile.name,
                protocol=profile.protocol,
                model=profile.model,
                workspace=str(workspace),
            )
    except SessionError as exc:
        return _fail(str(exc))
    out = _Printer(sys.stdout, sys.stderr, args.json)
    prompt = system_prompt(profile, config, workspace)
    if prompt.agents_file is not None:
        note = f"using {prompt.agents_file.name} from the workspace as instructions"
        writer.append(NoteRecord(kind="agents_file", text=note))
        out.event(Notice(note))
    approver = HeadlessApprover(args.approve)
    policy = approval_policy(config, approver.mode)
    outcome = "truncated"
    try:
        async with httpx.AsyncClient() as client:
            agent = build_agent(
                profile=profile,
                config=config,
                workspace=workspace,
                protected=protected_dirs(),
                client=client,
                approver=approver,
                policy=policy,
                writer=writer,
                history=history,
                system=prompt.text,
            )
            async for event in agent.send(args.prompt):
                out.event(event)
                if isinstance(event, LoopEnded):
                    outcome = event.outcome
    finally:
        writer.close()
    if getattr(writer, "degraded", None):
        out.event(Notice(str(writer.degraded), "warning"))
    out.finish()
    return EXIT_COMPLETE if outcome == "complete" else EXIT_TRUNCATED


class _Printer:
    """Text mode: the answer on stdout, everything else as short lines on stderr."""

    def __init__(self, stdout: TextIO, stderr: TextIO, as_json: bool) -> None:
        self.stdout, self.stderr, self.as_json = stdout, stderr, as_json
        self._mid_line = False

    def event(self, event: AgentEvent) -> None:
        if self.as_json:
            self.stdout.write(json.dumps(event_to_json(event), ensure_ascii=True) + "\n")
            self.stdout.flush()
            return
        if isinstance(event, TextDelta):
            self.stdout.write(_printable(event.text))
            self.stdout.flush()
            self._mid_line = not event.text.endswith("\n")
            return
        line = _describe(event)
        if line:
            if self._mid_line:
                self.stdout.write("\n")
                self._mid_line = False
            self.stderr.write(_printable(line) + "\n")
            self.stderr.flush()

    def finish(self) -> None:
        if self._mid_line and not self.as_json:
            self.stdout.write("\n")


def _describe(event: AgentEvent) -> str | None:
    if isinstance(event, CallDecided):
        why = f": {event.reason}" if event.reason else ""
        return f"[{event.name}] {event.decision} ({event.by}{why})"
    if isinstance(event, CallInvalid):
        return f"[{event.name}] invalid: {event.error}"
    if isinstance(event, ToolFinished):
        first = event.output.strip().splitlines()[0] if event.output.strip() else ""
        return f"[{event.name}] {event.status}: {first[:120]}"
    if isinstance(event, RetryWait):
        return f"retrying in {event.seconds:.1f} s ({event.why}), attempt {event.attempt}"
    if isinstance(event, TurnTruncated):
        return event.message
    if isinstance(event, Notice):
        return f"{event.level}: {event.text}"
    return None


def _printable(text: str) -> str:
    """No terminal control from a model or a tool reaches the user's terminal."""
    return "".join(
        ch
        if ch in "\n\t" or (ch.isprintable() and not 0x80 <= ord(ch) < 0xA0)
        else f"\\x{ord(ch):02x}"
        if ord(ch) < 0x100
        else f"\\u{ord(ch):04x}"
        for ch in text
    )


__all__ = ["main"]
