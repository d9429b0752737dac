"""Subagents: the ``task`` tool hands a self-contained task to an agent with a context of its
own, so the conversation keeps only the answer.

A subagent is an ``Agent`` (``loop.py``) with its own history, the system prompt of its
definition (``prompting/agents.py``) and the tools its definition names that the session
offers (never more: an always-allow rule matches a tool by name, and the subagent has no other
tools to call). Its calls go the same way as the conversation's (accumulate, parse once,
validate, ask, execute) through a ``CallRunner`` of its own that shares the session's approval
policy, sandbox, hooks and checkpoints; every question goes to the session's approver, one at
a time, with ``ApprovalRequest.origin`` saying which subagent asks and for which task. Its
events reach the loop's caller as ``SubagentEvent`` under the task call, its records are
written as ``SubagentRecord`` under that call, its context is its own, its cost the session's.

A task call's risk is its agent's (``Delegation.risk_of``): an agent of read-only tools is read, so
its tasks run in parallel like other reads, are offered in plan mode and approved by
auto-read; any other is asked and runs alone. A subagent at the depth limit (the setting
``subagent_depth``, 1 by default) is not offered the task tool. Its answer is the text of its
last turn; a truncated turn, a cost or step limit end the task with an error result, and Esc
(the call cancelled) stops it where it is: its calls get their results, the task's is
cancelled; so is Esc on one of the subagent's questions: the person stops the whole turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..approval import plan
from ..approval.approver import ApprovalRequest, Approver
from ..approval.decision import Decision
from ..context.window import ContextWindow, builtin_window
from ..hooks import HookEvent, HookOutcome
from ..prompting.agents import AgentBook, AgentDefinition
from ..providers import RequestSettings, ToolSchema
from ..session.records import SubagentRecord
from ..session.writer import SYNC_TYPES
from ..tools.registry import ToolRegistry
from ..tools.spec import Risk, ToolContext, ToolOutput, ToolSpec
from .call_hooks import run_hooks
from .calls import CallRunner
from .context_keeper import ContextKeeper
from .events import AgentEvent, LoopEnded, SubagentEvent, TurnCompleted
from .loop import Agent
from .recorder import SessionRecorder

TASK_TOOL = "task"
_RISK_ORDER = (Risk.READ, Risk.NETWORK, Risk.WRITE, Risk.EXECUTE)
TASK_DESCRIPTION = (
    "Start a subagent on a self-contained task (searching or reading much of the "
    "workspace, a review, a run of the tests) with a context of its own; its final "
    "answer is this call's result, so only that joins this conversation. It sees "
    "nothing of this conversation: put everything it needs in prompt. Several tasks "
    "of read-only agents in one turn run at the same time. Agents:\n"
)


@dataclass(frozen=True, slots=True)
class ProfileTarget:
    """Where a subagent whose definition names a profile sends its requests."""

    protocol: str
    provider: str
    request: RequestSettings
    window: ContextWindow


ResolveProfile = Callable[[str], ProfileTarget]  # raises ValueError (ConfigError) for the person


class TaskArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    description: str = Field(
        min_length=1, max_length=200, description="A few words naming the task (shown to the user)."
    )
    prompt: str = Field(
        min_length=1,
        max_length=100_000,
        description=(
            "The whole task, self-contained: the subagent sees nothing of this conversation "
            "but this text. Say what to find or do and what to report back."
        ),
    )
    agent: str = Field(
        min_length=1, max_length=64, description="The agent to start, by its name as listed."
    )


class _NestedWriter:
    """Writes a subagent's records into the session's, each under the task call."""

    def __init__(self, parent: SessionRecorder, call_id: str, agent: str) -> None:
        self.parent = parent
        self.call_id = call_id
        self.agent = agent

    @property
    def degraded(self) -> str | None:
        return self.parent.warning

    def append(self, record: Any, *, sync: bool | None = None) -> None:
        if sync is None:
            sync = getattr(record, "type", "") in SYNC_TYPES
        wrapped = SubagentRecord(
            ts=record.ts, call_id=self.call_id, agent=self.agent, record=record
        )
        self.parent.append(wrapped, sync=sync)


class _OriginApprover:
    """The session's approver, asked one question at a time, told who asks."""

    def __init__(self, inner: Approver, origin: str, lock: asyncio.Lock) -> None:
        self.inner = inner
        self.origin = origin
        self.lock = lock

    async def decide(self, request: ApprovalRequest) -> Decision:
        async with self.lock:
            return await self.inner.decide(replace(request, origin=self.origin))


class Subagent(Agent):
    """An Agent whose moments are the conversation's: the person's UserPromptSubmit (its prompt
    is the model's, as in Claude Code), Stop, PreCompact and session hooks do not run for it;
    its calls' PreToolUse and PostToolUse hooks do, and SubagentStop when it answered
    (``Delegation.run``)."""

    async def moment_hooks(
        self, event: HookEvent, fields: dict[str, object], told: list[AgentEvent]
    ) -> list[HookOutcome]:
        return []


def _highest(risks: list[Risk]) -> Risk:
    return max(risks, key=_RISK_ORDER.index, default=Risk.READ)


@dataclass
class Delegation:
    """What the task tool of one agent (the conversation's, or a subagent's) starts subagents
    with: the agents on offer, the depth it is at, and the agent it works for (``bind``)."""

    book: AgentBook
    max_depth: int = 1
    depth: int = 0
    resolve_profile: ResolveProfile | None = None
    parent: Agent | None = None
    asking: asyncio.Lock = field(default_factory=asyncio.Lock)  # one question at a time
    running: set[Agent] = field(default_factory=set)  # the subagents working now

    def bind(self, agent: Agent) -> None:
        self.parent = agent

    def mode_changed(self) -> None:
        """The approval mode changed: a question a subagent has open is withdrawn and its call
        decided again under the new mode (``CallRunner.mode_changed``), as the conversation's."""
        for agent in list(self.running):
            agent.calls.mode_changed()

    @property
    def offers_task(self) -> bool:
        return self.depth < self.max_depth

    def _registry(self) -> ToolRegistry:
        assert self.parent is not None, "the task tool runs for a bound agent"
        return self.parent.calls.registry

    def tools_of(
        self, definition: AgentDefinition, child: Delegation | None = None
    ) -> list[ToolSpec]:
        """The tools a subagent of ``definition`` gets: those it names that this session
        offers (all of them when it names none), the task tool only below the depth limit (the
        task tool of ``child``: the delegation the subagent will be bound to)."""
        registry = self._registry()
        names = definition.tools if definition.tools is not None else registry.names()
        child = child if child is not None else self._child()
        specs: list[ToolSpec] = []
        for name in names:
            spec = registry.get(name)
            if spec is None:
                continue
            if name == TASK_TOOL:
                if not child.offers_task:
                    continue
                spec = task_tool(child)
            specs.append(spec)
        return specs

    def risk_of(self, definition: AgentDefinition) -> Risk:
        """The highest risk among its tools; one that may start tasks itself is not a read."""
        risks = [
            Risk.EXECUTE if spec.name == TASK_TOOL else spec.risk
            for spec in self.tools_of(definition)
        ]
        return _highest(risks)

    def _child(self) -> Delegation:
        return Delegation(
            self.book,
            self.max_depth,
            self.depth + 1,
            self.resolve_profile,
            asking=self.asking,
            running=self.running,
        )

    def listing(self, read_only: bool = False) -> str:
        """The agents on offer as the task tool's description lists them (``read_only``: in
        plan mode, those whose tools only read; another is refused if called all the same)."""
        agents = [a for a in self.book.agents if not read_only or self.risk_of(a) is Risk.READ]
        if read_only and not agents:
            return "(none can start now: plan mode starts only read-only agents)"
        return "\n".join(f"- {a.name}: {a.description}" for a in agents)

    # -- one task --------------------------------------------------------------------------

    def start(self, definition: AgentDefinition, call_id: str, description: str) -> Subagent:
        """A subagent of ``definition`` for the task call ``call_id``; ValueError (a profile
        that cannot be used) says why it cannot start."""
        parent = self.parent
        assert parent is not None
        outer = parent.calls
        child = self._child()
        specs = self.tools_of(definition, child)
        registry = ToolRegistry(specs)
        recorder = SessionRecorder(_NestedWriter(parent.recorder, call_id, definition.name))
        approver = outer.approver  # the session's own, not a subagent's wrapping of it
        if isinstance(approver, _OriginApprover):
            approver = approver.inner
        origin = f"subagent {definition.name} · task: {description}"
        calls = CallRunner(
            registry=registry,
            context=outer.context,
            policy=outer.policy,
            approver=_OriginApprover(approver, origin, self.asking),
            recorder=recorder,
            output_cap=outer.output_cap,
            max_argument_bytes=outer.max_argument_bytes,
            config_path=outer.config_path,
            gate=outer.gate,
        )
        calls.checkpoints = outer.checkpoints  # the session's records: a rewind undoes these too
        calls.hooks = outer.hooks
        calls.on_validated = outer.on_validated  # `tui-agent acp` shows its calls as validated
        protocol, provider, request = parent.protocol, parent.provider, parent.request
        window = parent.context.window
        if definition.profile is not None:
            if self.resolve_profile is None:
                raise ValueError(f"profile {definition.profile!r} cannot be used here")
            target = self.resolve_profile(definition.profile)
            protocol, provider, request, window = (
                target.protocol,
                target.provider,
                target.request,
                target.window,
            )
        if definition.model is not None and definition.model != request.model:
            request = replace(request, model=definition.model)
            known = builtin_window(definition.model)
            window = ContextWindow(known, "table") if known is not None else ContextWindow()
        request = replace(request, system=definition.prompt)
        agent = Subagent(
            protocol=protocol,
            provider=provider,
            request=request,
            client=parent.client,
            calls=calls,
            tools=[ToolSchema(n, d, s) for n, d, s in registry.schemas()],
            recorder=recorder,
            settings=parent.settings,
            context=ContextKeeper(replace(parent.context.settings, window=window)),
        )
        agent.cost = parent.cost  # the session's money: max_cost counts subagents too
        child.bind(agent)
        return agent

    async def run(self, args: TaskArgs, ctx: ToolContext) -> ToolOutput:
        definition = self.book.get(args.agent)
        if definition is None:
            names = ", ".join(a.name for a in self.book.agents) or "none"
            return ToolOutput(f"no agent is named {args.agent!r}; agents: {names}", True)
        assert self.parent is not None
        mode = self.parent.calls.policy.mode
        if plan.planning(mode) and self.risk_of(definition) is not Risk.READ:
            return ToolOutput(
                f"agent {definition.name} can change things: plan mode starts only read-only "
                "agents",
                True,
            )
        try:
            agent = self.start(definition, ctx.call_id, args.description)
        except ValueError as exc:
            return ToolOutput(f"agent {definition.name} cannot start: {exc}", True)
        report = ctx.report
        answer = ""
        ended: LoopEnded | None = None
        self.running.add(agent)
        try:
            async with contextlib.aclosing(agent.send(args.prompt)) as events:
                async for event in events:
                    if report is not None:
                        report(SubagentEvent(ctx.call_id, definition.name, event))
                    if isinstance(event, TurnCompleted):
                        answer = event.turn.text
                    elif isinstance(event, LoopEnded):
                        ended = event
        finally:
            self.running.discard(agent)
        if ended is not None and ended.outcome == "cancelled" and agent.calls.cancel_requested:
            # Esc on its question: the person stops the turn, not just the subagent. The main
            # loop sees this call cancelled (interrupted) and waits for the person.
            self.parent.cancel()
            raise asyncio.CancelledError
        if ended is not None and ended.outcome == "complete":
            await self._stopped(definition.name, answer, ctx)
        return task_result(definition.name, answer, ended)

    async def _stopped(self, agent: str, answer: str, ctx: ToolContext) -> None:
        """The person's SubagentStop hooks, once the subagent answered (Claude Code's moment:
        not after an Esc or a failure); told on the task's card, saved with its call, and
        never blocking: the task's result is the subagent's answer."""
        assert self.parent is not None
        calls = self.parent.calls
        fields = {
            "stop_hook_active": False,
            "call_id": ctx.call_id,
            "agent_type": agent,
            "last_assistant_message": answer,
        }
        await run_hooks(
            calls.hooks,
            calls.context,
            self.parent.recorder,
            ctx.report if ctx.report is not None else (lambda _event: None),
            HookEvent.SUBAGENT_STOP,
            fields,
            tool_name=agent,
            call_id=ctx.call_id,
        )


def task_result(agent: str, answer: str, ended: LoopEnded | None) -> ToolOutput:
    """The task call's result: the subagent's answer, or why it has none."""
    if ended is not None and ended.outcome == "complete":
        return ToolOutput(answer.strip() or f"(agent {agent} finished without an answer)")
    why = ended.message if ended is not None and ended.message else "it stopped"
    if ended is not None and ended.outcome == "truncated":
        why = f"its turn was cut short and nothing of that turn ran ({why})"
    text = f"the task failed: agent {agent} did not finish: {why}"
    if answer.strip():
        text += f"\n[its last answer before that:]\n{answer.strip()}"
    return ToolOutput(text, True)


def task_tool(delegation: Delegation) -> ToolSpec:
    """The task tool of the agent ``delegation`` works for (bound before the first call)."""

    async def run(args: TaskArgs, ctx: ToolContext) -> ToolOutput:
        return await delegation.run(args, ctx)

    def risk_of(args: TaskArgs) -> Risk:
        definition = delegation.book.get(args.agent)
        return delegation.risk_of(definition) if definition is not None else Risk.READ

    def describe(read_only: bool) -> str:
        return TASK_DESCRIPTION + delegation.listing(read_only)

    return ToolSpec(
        name=TASK_TOOL,
        description=describe(False),
        args_model=TaskArgs,
        risk=Risk.READ,
        run=run,
        risk_of=risk_of,
        describe=describe,  # the agents on offer now (the person may trust more)
    )
