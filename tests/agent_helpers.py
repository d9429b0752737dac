"""The agent loop tests' shared pieces: a real Agent over the fake provider, a scripted approver,
the event-order rules a UI relies on, and readers of what the provider was sent."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tui_agent.agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    HookFinished,
    LoopEnded,
    Notice,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from tui_agent.agent.history import messages_from_records
from tui_agent.agent.loop import Agent
from tui_agent.agent.subagent import Delegation
from tui_agent.approval import ApprovalMode, ApprovalPolicy, ApprovalRequest, Decision, Rule
from tui_agent.approval.rules import SessionRules
from tui_agent.config import Config, ResolvedProfile
from tui_agent.context.events import (
    Compacted,
    CompactionFailed,
    CompactionStarted,
    ContextOverflow,
    ContextUpdate,
)
from tui_agent.conversation import Message
from tui_agent.prompting.agents import AgentBook
from tui_agent.session import SessionStore, SessionWriter
from tui_agent.stream.events import ReasoningDelta, ServerToolUsed, TextDelta
from tui_agent.stream.progress import RetryWait, ToolArgumentsReceived, ToolCallAnnounced
from tui_agent.wiring.setup import build_agent

from . import wire
from .fake_provider import FakeProvider, Reply
from .wire import Op

PROTOCOLS = list(wire.BUILDERS)
KEY = "test-key"
MODEL = "test-model"
TEXT_STOP = {"openai-chat": "stop", "anthropic": "end_turn"}
LOOP_TIMEOUT_S = 30.0  # a loop that hangs fails its test instead of the whole run
# A user-defined read-only tool that takes time: concurrency is visible in the wall clock.
NAP_TOOL: dict[str, Any] = {
    "name": "nap",
    "description": "Wait a while.",
    "program": "sleep",
    "args": ["{seconds}"],
    "risk": "read",
    "parameters": {"seconds": {"type": "string", "required": True}},
}

# Two calls of this read-only tool finish only if they run at the same time: each leaves its
# own mark, then waits (up to 10 s) for the other's. Run one after the other, the first fails.
MEET_TOOL: dict[str, Any] = {
    "name": "meet",
    "description": "Leave a mark and wait for another.",
    "program": "sh",
    "args": [
        "-c",
        'touch "$0"; i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 200 ] && exit 1; '
        "sleep 0.05; done",
        "{mine}",
        "{other}",
    ],
    "risk": "read",
    "parameters": {
        "mine": {"type": "string", "required": True},
        "other": {"type": "string", "required": True},
    },
}


class Hold:
    """A queued answer that never comes: the approver waits until it is cancelled."""


HOLD = Hold()


class ScriptedApprover:
    """Answers with the queued decisions in order and keeps every request it was shown.

    A queued ``HOLD`` waits until cancelled (a prompt left open); a queued exception is raised
    (a broken prompt).
    """

    def __init__(self, *decisions: Decision | Hold | Exception) -> None:
        self.decisions = list(decisions)
        self.requests: list[ApprovalRequest] = []
        self.unexpected: list[ApprovalRequest] = []
        self.holding = asyncio.Event()

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        if not self.decisions:
            self.unexpected.append(request)
            return Decision("deny", reason="test approver: no decision was queued")
        decision = self.decisions.pop(0)
        if isinstance(decision, Hold):
            self.holding.set()
            await asyncio.Event().wait()
        if isinstance(decision, Exception):
            raise decision
        assert isinstance(decision, Decision)
        return decision


def answer(protocol: str, text: str = "Done.", **kwargs: Any) -> Reply:
    if protocol in TEXT_STOP:
        kwargs.setdefault("stop", TEXT_STOP[protocol])
    return Reply([("text", text)], **kwargs)


def call_ops(*calls: tuple[str, str, Mapping[str, Any] | str], text: str = "") -> list[Op]:
    """Ops announcing ``calls`` (id, tool, arguments) in order, each complete."""
    ops: list[Op] = [("text", text)] if text else []
    for index, (call_id, name, arguments) in enumerate(calls):
        body = arguments if isinstance(arguments, str) else json.dumps(arguments)
        ops += [("call", index, call_id, name), ("args", index, body), ("close", index)]
    return ops


@dataclass
class Harness:
    protocol: str
    server: FakeProvider
    agent: Agent
    approver: ScriptedApprover
    store: SessionStore
    writer: SessionWriter
    workspace: Path
    stamps: list[tuple[float, AgentEvent]] = field(default_factory=list)
    delegation: Delegation | None = None  # the task tool's (agent_over's agents)

    async def send(self, text: str) -> list[AgentEvent]:
        return await self.collect(self.agent.send(text))

    async def retry(self) -> list[AgentEvent]:
        return await self.collect(self.agent.retry())

    async def collect(self, events: AsyncIterator[AgentEvent]) -> list[AgentEvent]:
        loop = asyncio.get_running_loop()
        out: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in events:
                self.stamps.append((loop.time(), event))
                out.append(event)
        check_order(out)
        assert not self.approver.unexpected, [r.tool_name for r in self.approver.unexpected]
        return out

    def records(self) -> list[Any]:
        return self.store.load(self.writer.session_id).records

    def rebuilt(self) -> tuple[list[Message], list[Any]]:
        return messages_from_records(self.records())

    def assert_session_valid(self) -> None:
        """Every call on disk has its result, and the file gives back what the agent holds."""
        messages, repairs = self.rebuilt()
        assert repairs == []
        assert messages == self.agent.messages


@contextlib.asynccontextmanager
async def agent_over(
    protocol: str,
    tmp_path: Path,
    *steps: Any,
    approver: ScriptedApprover | None = None,
    mode: ApprovalMode = ApprovalMode.ASK,
    rules: Iterable[Rule] = (),
    settings: Mapping[str, Any] | None = None,
    tools: Iterable[Mapping[str, Any]] = (),
    config_path: Path | None = None,
    require_tools: bool = True,
    hooks: Iterable[Mapping[str, Any]] = (),
    agents: AgentBook | None = None,
) -> AsyncIterator[Harness]:
    """A real Agent (build_agent) on a real client, against the fake provider and a real store.
    ``agents``: the task tool starts these (to ``settings``' subagent_depth); None: no task."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {
            "settings": dict(settings or {}),
            "tools": [dict(t) for t in tools],
            "hooks": [dict(h) for h in hooks],
        }
    )
    with FakeProvider(protocol, api_key=KEY, require_tools=require_tools) as server:
        server.script(*steps)
        store = SessionStore(tmp_path / "sessions")
        writer = store.create(profile="test", protocol=protocol, model=MODEL, workspace="ws")
        try:
            async with httpx.AsyncClient() as client:
                scripted = approver or ScriptedApprover()
                depth = config.settings.subagent_depth
                delegation = None if agents is None else Delegation(agents, depth)
                agent = build_agent(
                    profile=profile_for(server),
                    config=config,
                    workspace=workspace.resolve(),
                    protected=(),
                    client=client,
                    approver=scripted,
                    policy=ApprovalPolicy(mode, SessionRules(rules)),
                    writer=writer,
                    config_path=config_path,
                    delegation=delegation,
                )
                yield Harness(
                    protocol,
                    server,
                    agent,
                    scripted,
                    store,
                    writer,
                    workspace,
                    delegation=delegation,
                )
        finally:
            writer.close()


def profile_for(server: FakeProvider) -> ResolvedProfile:
    return ResolvedProfile(
        name="test",
        protocol=server.protocol,
        model=MODEL,
        base_url=server.base_url,
        api_key=KEY,
        api_key_env=None,
        options={},
        stateful=False,
        max_tokens=1024,
        system_prompt=None,
    )


# -- what the provider was sent ------------------------------------------------------------


def sent_results(protocol: str, body: Any) -> dict[str, str]:
    """Every tool result anywhere in a request body, {call id: output text}."""
    out: dict[str, str] = {}
    for node in _walk(body):
        if protocol == "openai-chat" and node.get("role") == "tool":
            out[node["tool_call_id"]] = node["content"]
        elif protocol == "openai-responses" and node.get("type") == "function_call_output":
            out[node["call_id"]] = node["output"]
        elif protocol == "anthropic" and node.get("type") == "tool_result":
            out[node["tool_use_id"]] = node["content"]
        elif protocol == "gemini-interactions" and node.get("type") == "function_result":
            out[node["call_id"]] = node["result"]
        elif protocol == "gemini" and isinstance(node.get("functionResponse"), dict):
            response = node["functionResponse"]
            value = response["response"]
            out[response.get("id") or response["name"]] = value.get("output", value.get("error"))
    return out


def _walk(node: Any) -> Iterable[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def count_text(body: Any, text: str) -> int:
    """How many times ``text`` appears in the request (as JSON-encoded text)."""
    return json.dumps(body, ensure_ascii=False).count(text)


# -- the order of events ---------------------------------------------------------------------

PROGRESS = (
    TextDelta,
    ReasoningDelta,
    ToolCallAnnounced,
    ToolArgumentsReceived,
    RetryWait,
    ServerToolUsed,
)


def check_order(events: list[AgentEvent]) -> None:
    """The sequence a UI can follow without guessing.

    TurnStarted(1, 2, ...) opens a turn; progress only while streaming; then TurnCompleted or
    TurnTruncated. Each call of a completed turn gets one decision (CallInvalid or CallDecided;
    an "edited: ..." CallInvalid is a failed edit and is not final), then exactly one
    ToolFinished; ToolStarted only for approved calls and only once every call was decided;
    "done"/"failed"/"interrupted" only after ToolStarted, the others never after it. The next
    turn starts only when every call finished, and LoopEnded comes once, last.
    """
    assert events and isinstance(events[-1], LoopEnded), events[-1:]
    assert sum(isinstance(e, LoopEnded) for e in events) == 1
    state = before = "idle"
    step = 0
    calls: set[str] = set()
    decided: set[str] = set()
    approved: set[str] = set()
    started: set[str] = set()
    finished: set[str] = set()
    for event in events:
        where = f"{type(event).__name__} in state {state}"
        if isinstance(event, TurnStarted):
            # "paused": the provider paused its own tool loop, and the turn is sent back
            assert state in ("idle", "calls", "paused"), where
            assert finished == calls, f"{where}: unfinished calls {calls - finished}"
            step += 1
            assert event.step == step, where
            state, calls, decided, approved, started, finished = (
                "streaming",
                set(),
                set(),
                set(),
                set(),
                set(),
            )
        elif isinstance(event, CompactionStarted):
            assert state in ("idle", "calls", "truncated"), where
            state, before = "compacting", state
        elif isinstance(event, Compacted | CompactionFailed):
            assert state == "compacting" or isinstance(event, CompactionFailed), where
            if state == "compacting":  # after an overflow, a compaction lets a turn start again
                state = "idle" if isinstance(event, Compacted) else before
        elif isinstance(event, RetryWait) and state == "compacting":
            pass
        elif isinstance(event, PROGRESS):
            assert state == "streaming", where
        elif isinstance(event, TurnCompleted):
            assert state == "streaming", where
            calls = {c.id for c in event.turn.tool_calls}
            assert len(calls) == len(event.turn.tool_calls), "call ids must be distinct"
            state = "calls" if calls else "answered"
            if not calls and event.turn.stop_reason == "pause_turn":
                state = "paused"
        elif isinstance(event, TurnTruncated):
            assert state == "streaming", where
            state = "truncated"
        elif isinstance(event, CallInvalid):
            assert state == "calls" and event.call_id in calls, where
            assert event.call_id not in decided, f"{where}: {event.call_id} decided twice"
            if not event.error.startswith("edited: "):
                decided.add(event.call_id)
        elif isinstance(event, CallDecided):
            assert state == "calls" and event.call_id in calls, where
            assert event.call_id not in decided, f"{where}: {event.call_id} decided twice"
            decided.add(event.call_id)
            if event.decision in ("approve", "edit"):
                approved.add(event.call_id)
        elif isinstance(event, ToolStarted):
            assert state == "calls", where
            assert decided == calls, f"{where}: {calls - decided} not decided yet"
            assert event.call_id in approved and event.call_id not in started, where
            started.add(event.call_id)
        elif isinstance(event, ToolFinished):
            assert state == "calls" and event.call_id in decided, where
            assert event.call_id not in finished, f"{where}: {event.call_id} finished twice"
            ran = event.status in ("done", "failed", "interrupted")
            assert ran == (event.call_id in started), f"{where}: {event.status}"
            finished.add(event.call_id)
        elif isinstance(event, HookFinished):
            # A call's hooks: PreToolUse before it is decided, PostToolUse (and a task's
            # SubagentStop) after it started and before its result; the others between turns
            # (the message, the stop).
            if event.event == "PreToolUse":
                assert state == "calls" and event.call_id in calls - decided, where
            elif event.event in ("PostToolUse", "SubagentStop"):  # SubagentStop: its task's
                assert state == "calls" and event.call_id in started - finished, where
            elif event.event == "PreCompact":  # before a compaction: wherever one may start
                assert state in ("idle", "calls", "truncated") and not event.call_id, where
            else:
                assert state in ("idle", "answered", "paused") and not event.call_id, where
        elif isinstance(event, LoopEnded):
            assert finished == calls, f"{where}: unfinished calls {calls - finished}"
            # idle before any turn: a hook kept the message from being sent
            assert state in ("calls", "answered", "truncated", "paused") or step == 0, where
        elif isinstance(event, SubagentEvent):
            assert state == "calls" and event.call_id in started - finished, where
        else:
            assert isinstance(event, Notice | ContextUpdate | ContextOverflow), where


def of_type(events: Iterable[AgentEvent], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def finished(events: Iterable[AgentEvent]) -> dict[str, ToolFinished]:
    return {e.call_id: e for e in of_type(events, ToolFinished)}


def decided(events: Iterable[AgentEvent]) -> dict[str, CallDecided]:
    return {e.call_id: e for e in of_type(events, CallDecided)}
