"""Compacting a conversation: the model summarizes the older part, later requests send the
system prompt, the summary and the recent messages verbatim.

The summary request is one user message (the compaction prompt and the older messages as a
transcript), sent without tools and never chained to a stored response. Only a complete
answer with text changes anything: a failed, cut, cancelled or empty one leaves the
conversation exactly as it was, and the person is told why. A compaction that succeeded writes
a ``compaction`` record; the records before it stay, so nothing is lost from the transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Protocol

from ..context.estimate import estimate_messages
from ..context.events import (
    Compacted,
    CompactionFailed,
    CompactionReason,
    CompactionStarted,
    ContextUpdate,
    ResultsCut,
)
from ..context.planner import plan_compaction
from ..context.summary import compacted_view, compaction_request_text, detached
from ..conversation import UserMessage
from ..hooks import HookEvent
from ..providers import request_builder
from ..session.records import CompactionRecord, NoteRecord
from ..stream.progress import RetryWait
from ..stream.turn import TruncatedTurn, TurnResult
from ..transport import stream_turn

if TYPE_CHECKING:
    import httpx

    from ..conversation import Message
    from ..hooks import HookOutcome
    from ..providers import RequestSettings
    from ..transport import StreamLimits
    from .context_keeper import ContextKeeper
    from .cost_meter import CostMeter
    from .events import AgentEvent
    from .recorder import SessionRecorder

NOTHING_TO_COMPACT = "nothing to compact yet: the conversation is only its most recent messages"
# A manual /compact keeps at most this share of the conversation verbatim, so it summarizes
# enough to matter even when the window is large (an automatic one keeps what fits keep_share).
MANUAL_KEEP_SHARE = 0.5
# A summary that leaves the conversation at more than this share of what it was is not applied:
# it would cost a request and lose detail for nothing.
MIN_SAVING = 0.1


class _HasLimits(Protocol):
    @property
    def limits(self) -> StreamLimits: ...


class Compactable(Protocol):
    """What a compaction uses of the agent whose conversation it compacts (``loop.Agent``)."""

    messages: list[Message]  # read, then replaced by the part kept verbatim

    @property
    def context(self) -> ContextKeeper: ...
    @property
    def recorder(self) -> SessionRecorder: ...
    @property
    def protocol(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def request(self) -> RequestSettings: ...
    @property
    def client(self) -> httpx.AsyncClient: ...
    @property
    def settings(self) -> _HasLimits: ...
    def context_used(self) -> int: ...
    @property
    def cost(self) -> CostMeter: ...
    async def moment_hooks(
        self, event: HookEvent, fields: dict[str, object], told: list[AgentEvent]
    ) -> list[HookOutcome]: ...
    def watch_stream(self, task: asyncio.Task[TurnResult] | None) -> None: ...


async def compact(
    agent: Compactable, reason: CompactionReason, instructions: str = ""
) -> AsyncGenerator[AgentEvent, None]:
    """Compact ``agent``'s conversation; yields CompactionStarted, then Compacted and a
    ContextUpdate, or CompactionFailed. An automatic one with nothing to do says nothing."""
    keeper = agent.context
    cut = cut_newest_results(agent, reason)
    if cut is not None:
        yield cut
        yield ContextUpdate(agent.context_used(), keeper.size)
        if agent.context_used() <= (keeper.size or 0) - keeper.reserve(agent.request.max_tokens):
            return  # it fits now; else what is older is summarized too
    before = agent.context_used()
    keep = keeper.keep_tokens()
    if reason != "auto":
        keep = min(keep, int(estimate_messages(agent.messages) * MANUAL_KEEP_SHARE))
    plan = plan_compaction(agent.messages, keep)
    if plan is None:
        if reason != "auto":
            yield CompactionFailed(reason, NOTHING_TO_COMPACT)
        return
    # The person's PreCompact hooks (a log, a backup of the transcript): told, never blocking.
    told: list[AgentEvent] = []
    trigger = "manual" if reason == "manual" else "auto"
    await agent.moment_hooks(
        HookEvent.PRE_COMPACT, {"trigger": trigger, "custom_instructions": instructions}, told
    )
    for hooked in told:
        yield hooked
    yield CompactionStarted(reason, before)
    text = compaction_request_text(
        keeper.settings.prompt,
        keeper.summary,
        agent.messages[: plan.cut],
        keeper.request_budget(),
        instructions,
    )
    result: TurnResult | None = None
    async with contextlib.aclosing(_summarize(agent, text)) as answers:
        async for item in answers:
            if isinstance(item, RetryWait):
                yield item
            else:
                result = item
    if result is not None:  # the summary request was answered, and billed, whatever follows
        agent.cost.add(agent.protocol, agent.request.model, result.usage, compaction=True)
    failure = _failure(result)
    if failure is not None:
        failed = CompactionFailed(reason, f"compaction failed, nothing changed: {failure}")
        if result is not None:
            _record_spent(agent, result, failed.message)
        yield failed
        return
    assert result is not None and not isinstance(result, TruncatedTurn)
    summary = result.text.strip()
    at = keeper.replaced + len(agent.messages)
    old_view = estimate_messages(keeper.view(agent.messages))
    kept = detached(agent.messages[plan.cut :])
    saved = old_view - estimate_messages(compacted_view(summary, kept))
    if saved < old_view * MIN_SAVING:
        refused = CompactionFailed(
            reason,
            f"not applied: the summary would save {max(saved, 0):,} of {old_view:,} tokens "
            f"(less than {MIN_SAVING:.0%}); the conversation is as it was",
        )
        _record_spent(agent, result, refused.message)
        yield refused
        return
    agent.messages = kept
    keeper.summary = summary
    keeper.replaced += plan.cut
    # What was counted, less the estimate of what left, plus the estimate of what replaced it:
    # the system prompt and tools stay as the provider counted them.
    new_view = estimate_messages(keeper.view(kept))
    after = max(new_view, before - old_view + new_view)
    keeper.counted(after, kept)
    agent.recorder.append(
        CompactionRecord(
            ts=time.time(),
            summary=summary,
            replaced=keeper.replaced,
            at=at,
            tokens_before=before,
            tokens_after=after,
            reason=reason,
            protocol=agent.protocol,
            model=agent.request.model,
            usage=result.usage,
        ),
        sync=True,
    )
    yield Compacted(reason, before, after, plan.cut, len(kept), summary)
    yield ContextUpdate(after, keeper.size)


def cut_newest_results(agent: Compactable, reason: CompactionReason) -> ResultsCut | None:
    """When the newest round's tool results are what keeps the request from fitting the
    window: those results cut to fit (each with its note), told and recorded. A summary of
    what is older could not help: every compaction keeps the newest round whole."""
    keeper = agent.context
    used = agent.context_used()
    before = max(used, keeper.refused or 0)
    cut = keeper.cut_results(agent.messages, used, agent.request.max_tokens)
    if cut is None:
        return None
    agent.messages, names, saved = cut
    event = ResultsCut(reason, before, max(0, before - saved), names)
    agent.recorder.append(
        NoteRecord(ts=time.time(), kind="results_cut", text=event.text()), sync=True
    )
    return event


def _record_spent(agent: Compactable, result: TurnResult, text: str) -> None:
    """A summary that came back but was not applied was billed all the same: its usage is kept
    (a ``compaction_failed`` note), so a resumed session's cost counts it as this one did."""
    agent.recorder.append(
        NoteRecord(
            ts=time.time(),
            kind="compaction_failed",
            text=text,
            protocol=agent.protocol,
            model=agent.request.model,
            usage=result.usage,
        ),
        sync=True,
    )


def _failure(result: TurnResult | None) -> str | None:
    if result is None:
        return "cancelled"
    if isinstance(result, TruncatedTurn):
        return result.describe()
    if not result.text.strip():
        return "the model wrote no summary"
    return None


async def _summarize(agent: Compactable, text: str) -> AsyncGenerator[RetryWait | TurnResult, None]:
    """The summary request's waits before retries, then its result (nothing if cancelled)."""
    settings = dataclasses.replace(agent.request, stateful=False)
    request = request_builder(agent.protocol)([UserMessage(text)], [], settings)
    waits: asyncio.Queue[RetryWait | None] = asyncio.Queue()
    task = asyncio.ensure_future(
        stream_turn(
            agent.client,
            request,
            agent.protocol,
            agent.provider,
            limits=agent.settings.limits,
            on_progress=lambda _: None,
            on_retry=waits.put_nowait,
            record=lambda *_: None,
        )
    )
    task.add_done_callback(lambda _: waits.put_nowait(None))
    agent.watch_stream(task)
    try:
        while (wait := await waits.get()) is not None:
            yield wait
        with contextlib.suppress(asyncio.CancelledError):
            yield task.result()
    finally:
        agent.watch_stream(None)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
