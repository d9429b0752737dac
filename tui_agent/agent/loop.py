"""The agent loop: send -> stream -> complete turn -> validate -> ask -> run -> send results.

``Agent.send(text)`` is an async iterator of AgentEvents for one user message, until the model
answers without calls, a turn is truncated, the user cancels, or the auto-approve step limit is
reached. A truncated turn leaves only a diagnostic record; the conversation stays at the last
complete turn and the user's message can be retried (sent once more, not duplicated) or withdrawn.

``Agent.cancel()`` (Esc) closes a response at once, answers a pending question with "cancel",
kills running tools and leaves the rest unstarted; every call still gets a result and the loop
then waits for the user. A caller that stops listening (``aclose()``, or its task cancelled) is
treated the same way, so the conversation is always valid to continue.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import httpx

from ..approval import plan
from ..context.events import Compacted, CompactionStarted, ResultsCut
from ..conversation import AssistantMessage, Attachment, Message, ToolResultMessage, UserMessage
from ..hooks import HookEvent, HookOutcome, blocking
from ..images.records import attached_file
from ..images.refusal import refusal_hint
from ..providers import (
    RequestSettings,
    ToolSchema,
    input_tokens,
    request_builder,
    tokens_used,
)
from ..session.records import RawEvent, UserRecord, WithdrawRecord
from ..stream.events import TextDelta
from ..stream.progress import Progress, ToolCallAnnounced
from ..stream.turn import PendingCall, TruncatedTurn, Turn, TurnResult
from ..transport import RetryWait, StreamLimits, stream_turn
from .call_hooks import run_hooks
from .call_results import CallRound
from .calls import CallRunner, hook_context, hook_reason
from .compactor import compact, cut_newest_results
from .context_keeper import ContextKeeper
from .cost_meter import CostMeter
from .events import AgentEvent, LoopEnded, Notice, TurnCompleted, TurnStarted, TurnTruncated
from .recorder import SessionRecorder
from .task_events import TaskEvents
from .tool_list import ToolListLog
from .turn_record import finish_write, start_write, turn_record, write_off_loop


@dataclass(frozen=True, slots=True)
class LoopSettings:
    max_auto_steps: int = 25
    max_argument_bytes: int = 1_000_000
    limits: StreamLimits = field(default_factory=StreamLimits)


# Anthropic's stop reason for a server tool loop it paused: resend the turn to continue.
PAUSED = "pause_turn"


class Agent:
    """One conversation with one provider profile. Not thread-safe; one ``send`` at a time."""

    def __init__(
        self,
        *,
        protocol: str,
        provider: str,
        request: RequestSettings,
        client: httpx.AsyncClient,
        calls: CallRunner,
        tools: list[ToolSchema],
        recorder: SessionRecorder,
        settings: LoopSettings | None = None,
        history: list[Message] | None = None,
        context: ContextKeeper | None = None,
    ) -> None:
        self.protocol = protocol
        self.provider = provider
        self.request = request
        self.client = client
        self.calls = calls
        self.tools = tools
        self.recorder = recorder
        self.settings = settings or LoopSettings()
        self.messages: list[Message] = list(history or [])
        self.sent_anything = False
        self._stream_task: asyncio.Task[TurnResult] | None = None
        # A complete turn's record, being written in a thread while its TurnCompleted is shown
        # (see ``_keep``); awaited by ``_written`` before anything else happens to the turn.
        self._writing: asyncio.Future[Any] | None = None
        self._cancelled = False
        # The automatic compaction of this message's turns: none yet, done, or told why not.
        self._auto_compaction: Literal["none", "done", "told"] = "none"
        self._tool_list = ToolListLog(tools)
        self._offered_names: frozenset[str] | None = None  # of the last request
        # The window, the summary of a compacted conversation, and how full it is. ``messages``
        # holds what follows the summary: context/ and compactor.py.
        self.context = context or ContextKeeper()
        calls.fit_output = self._fit_output
        self.notes_for_model: list[str] = []  # told at the start of the next user message
        self.cost = CostMeter()  # the money spent, and [settings] max_cost (cost_meter.py)

    # -- what the user can do -------------------------------------------------------------

    async def send(
        self, text: str, attachments: tuple[Attachment, ...] = ()
    ) -> AsyncGenerator[AgentEvent, None]:
        """Send a user message (with the files attached to it: @path) and run the loop until it
        needs the user again."""
        # The person's UserPromptSubmit hooks: one may keep the message from being sent, and
        # what they print is told to the model beside it (as a note: the text stays theirs).
        told: list[AgentEvent] = []
        outcomes = await self.moment_hooks(HookEvent.USER_PROMPT_SUBMIT, {"prompt": text}, told)
        for event in told:
            yield event
        if (blocked := blocking(outcomes)) is not None:
            message = f"message not sent: {hook_reason(blocked)}"
            yield Notice(message, "warning")
            yield LoopEnded("cancelled", message)
            return
        self.sent_anything = True
        # An unconfined re-run's result (see rerun) goes with this message, as a note of its
        # own: the person's text stays theirs (history, forks, exports).
        notes = tuple(self.notes_for_model)
        if context := hook_context(outcomes).strip():
            notes = (*notes, context)
        self.notes_for_model.clear()
        sent = UserMessage(text, attachments, notes)
        self.messages.append(sent)
        if (warning := self.recorder.keep_images(sent.images)) is not None:
            yield Notice(warning, "warning")
        attached = [attached_file(a) for a in attachments]
        record = UserRecord(ts=time.time(), text=text, attachments=attached, notes=list(notes))
        self.recorder.append(record, sync=True)
        async with contextlib.aclosing(self._told(self._loop())) as events:
            async for event in events:
                yield event

    def pending_user_message(self) -> str | None:
        """The user's last message when no complete turn answered it (it can be retried)."""
        if self.messages and isinstance(self.messages[-1], UserMessage):
            return self.messages[-1].text
        return None

    def unanswered(self) -> bool:
        """The model has not answered the last request: the user's message, or the results of
        its calls (an overflow, a cut connection, a stop after them). ``retry`` sends it again."""
        last = self.messages[-1] if self.messages else None
        return isinstance(last, UserMessage | ToolResultMessage)

    async def retry(self) -> AsyncGenerator[AgentEvent, None]:
        """Send the unanswered request again: the user's message (it stays in history once),
        or the results of the calls the model has not seen, going on where the loop stopped."""
        if not self.unanswered():
            yield Notice("there is no unanswered message to retry", "warning")
            return
        async with contextlib.aclosing(self._told(self._loop())) as events:
            async for event in events:
                yield event

    def withdraw(self) -> str | None:
        """Take back the unanswered user message; returns its text."""
        text = self.pending_user_message()
        if text is not None:
            withdrawn = self.messages.pop()
            if isinstance(withdrawn, UserMessage):  # its notes go with the next message
                self.notes_for_model[:0] = withdrawn.notes
            self.recorder.append(WithdrawRecord(ts=time.time()), sync=True)
        return text

    async def compact(self, instructions: str = "") -> AsyncGenerator[AgentEvent, None]:
        """/compact: summarize the older part of the conversation (see compactor.py)."""
        self._cancelled = False
        async with contextlib.aclosing(self._told(compact(self, "manual", instructions))) as events:
            async for event in events:
                yield event

    def context_used(self) -> int:
        """The tokens the next request would hold (counted where known, else estimated)."""
        return self.context.used(self.request.system, self.tools, self.messages)

    def watch_stream(self, task: asyncio.Task[TurnResult] | None) -> None:
        """The response Esc closes (a compaction's summary request too)."""
        self._stream_task = task
        if task is not None and self._cancelled:
            task.cancel()

    def _fit_output(self, text: str) -> str:
        return self.context.fit(text, self.context_used(), self.request.max_tokens)

    def cancel(self) -> None:
        """Esc: stop the stream at once (its turn is discarded), or stop the running tools."""
        self._cancelled = True
        if self._stream_task is not None:
            self._stream_task.cancel()
        self.calls.cancel()

    # -- the loop -------------------------------------------------------------------------

    async def _told(
        self, events: AsyncGenerator[AgentEvent, None]
    ) -> AsyncGenerator[AgentEvent, None]:
        """``events``, with a warning the moment the session file stops being written."""
        async with contextlib.aclosing(events):
            async for event in events:
                if (warning := self.recorder.take_warning()) is not None:
                    yield Notice(warning, "warning")
                yield event
        if (warning := self.recorder.take_warning()) is not None:
            yield Notice(warning, "warning")

    async def _loop(self) -> AsyncGenerator[AgentEvent, None]:
        try:
            async with contextlib.aclosing(self._steps()) as steps:
                async for event in steps:
                    yield event
        finally:
            await self._written()  # closed early (Esc, the app quitting): still written whole

    async def _steps(self) -> AsyncGenerator[AgentEvent, None]:
        self._cancelled = False
        self.calls.cancel_requested = False
        auto_steps = 0
        step = 0
        overflow_retried = False
        self._auto_compaction = "none"
        while True:
            step += 1
            if self.context.should_compact(self.context_used()):
                async with contextlib.aclosing(self._compact_by_itself()) as compacting:
                    async for step_event in compacting:
                        yield step_event
            stop = self.cost.stop_before(self.request.model, self.context_used())
            if stop is not None:
                yield Notice(stop[0], "warning")
                if stop[1]:
                    yield LoopEnded("max_cost", stop[0])
                    return
            yield TurnStarted(step)
            result: TurnResult | None = None
            async with contextlib.aclosing(self._stream()) as stream:
                async for item in stream:
                    if isinstance(item, Turn | TruncatedTurn):
                        result = item
                    else:
                        yield item
            assert result is not None
            if isinstance(result, TruncatedTurn):
                message = result.describe() + refusal_hint(result.error, self.messages)
                yield TurnTruncated(result, message)
                yield self.context.update(self.request.system, self.tools, self.messages)
                overflow = self.context.overflow(result)
                if overflow is not None:
                    yield overflow
                    if self.context.settings.retry_on_overflow and not overflow_retried:
                        overflow_retried = True
                        compacted = False
                        async with contextlib.aclosing(compact(self, "overflow")) as compacting:
                            async for step_event in compacting:
                                compacted = compacted or isinstance(
                                    step_event, Compacted | ResultsCut
                                )
                                yield step_event
                        if compacted and not self._cancelled:
                            continue
                yield LoopEnded("cancelled" if self._cancelled else "truncated", message)
                return
            tokens = tokens_used(self.protocol, result.usage)
            cost = self.cost.add(self.protocol, self.request.model, result.usage)
            yield TurnCompleted(result, tokens, cost, self.cost.shown(self.request.model))
            self.context.after_turn(
                tokens, self.messages, input_tokens(self.protocol, result.usage)
            )
            yield self.context.update(self.request.system, self.tools, self.messages)
            await self._written()
            if not result.tool_calls and result.stop_reason == PAUSED:
                # The provider paused its own tool loop (a long web search): the turn goes back
                # as it is, and the provider goes on with it. An auto step like any other.
                auto_steps += 1
                if auto_steps < self.settings.max_auto_steps and not self._cancelled:
                    yield Notice("the provider paused its own tools; sent back to go on", "info")
                    continue
            if not result.tool_calls:
                told: list[AgentEvent] = []
                await self.moment_hooks(HookEvent.STOP, {"stop_hook_active": False}, told)
                for hook_event in told:
                    yield hook_event
                yield LoopEnded("complete")
                return
            round_: CallRound | None = None
            async with contextlib.aclosing(self._round(result)) as calls:
                async for event in calls:
                    if isinstance(event, CallRound):
                        round_ = event
                    else:
                        yield event
            assert round_ is not None
            if round_.cancelled:
                message = "cancelled by user: the model was not sent the results; waiting for you"
                yield LoopEnded("cancelled", message)
                return
            auto_steps = 0 if round_.asked_user else auto_steps + 1
            if auto_steps >= self.settings.max_auto_steps:
                message = (
                    f"stopped after {auto_steps} auto-approved steps in a row "
                    "(max_auto_steps); send a message to go on"
                )
                yield Notice(message, "warning")
                yield LoopEnded("max_steps", message)
                return

    async def moment_hooks(
        self, event: HookEvent, fields: dict[str, object], told: list[AgentEvent]
    ) -> list[HookOutcome]:
        """The outcomes of ``event``'s hooks; their ``HookFinished`` events added to ``told``."""
        calls, record = self.calls, self.recorder
        return await run_hooks(calls.hooks, calls.context, record, told.append, event, fields)

    async def _compact_by_itself(self) -> AsyncGenerator[AgentEvent, None]:
        """The automatic compaction: at most one for each message the person sends, none when
        it could not bring the context under the threshold, and the person told either way
        (a window far too small once made 48 compactions in 28 s)."""
        if self._auto_compaction == "told":
            return
        if (cut := cut_newest_results(self, "auto")) is not None:
            yield cut  # the newest results were what did not fit: cut, not summarized
            yield self.context.update(self.request.system, self.tools, self.messages)
            if not self.context.should_compact(self.context_used()):
                return
        if self._auto_compaction == "done":
            self._auto_compaction = "told"
            yield Notice(
                "the context is past compact_at again; it is compacted by itself at most once "
                "for each message you send, so the next one waits for your next message "
                "(or /compact)",
                "warning",
            )
            return
        futile = self.context.compaction_futile(self.messages, self.context_used())
        if futile is not None:
            self._auto_compaction = "told"
            yield Notice(futile, "warning")
            return
        compacted = False
        async with contextlib.aclosing(compact(self, "auto")) as compacting:
            async for event in compacting:
                if isinstance(event, CompactionStarted):  # not when there was nothing to do
                    self._auto_compaction = "done"
                compacted = compacted or isinstance(event, Compacted)
                yield event
        if compacted and self.context.should_compact(used := self.context_used()):
            self._auto_compaction = "told"
            yield Notice(
                f"the compaction left {used:,} tokens, still past compact_at of the "
                f"{self.context.size or 0:,}-token window; no more automatic compaction "
                "until your next message",
                "warning",
            )

    async def _round(self, turn: Turn) -> AsyncGenerator[AgentEvent | CallRound, None]:
        """Run the turn's calls, passing their events on as they happen.

        Every call's result joins the conversation even when the caller stops listening: the
        calls are then cancelled (what runs is killed) and their results kept.
        """
        events: TaskEvents[AgentEvent] = TaskEvents()
        task = events.follow(
            asyncio.ensure_future(
                self.calls.run_round(turn.tool_calls, events.put, self._offered_names)
            )
        )
        try:
            async for event in events:
                yield event
        finally:
            if not task.done():
                self.calls.cancel()
                await asyncio.wait({task})
            if not task.cancelled() and task.exception() is None:
                self._keep_results(task.result())
        yield task.result()

    def _keep_results(self, round_: CallRound) -> None:
        for call_result in round_.results:
            self.messages.append(
                ToolResultMessage(
                    call_result.call.id,
                    call_result.call.name,
                    call_result.output,
                    call_result.is_error,
                    call_result.images,
                )
            )

    async def _stream(self) -> AsyncGenerator[AgentEvent | Turn | TruncatedTurn, None]:
        build = request_builder(self.protocol)
        tools, settings = self._offered()
        # What the model could see: a call to a tool added after this is not one it was offered
        # (plan mode's narrower list keeps its own refusal, with the reason).
        self._offered_names = frozenset(tool.name for tool in self.tools)
        self._tool_list.before_request(self.recorder, tools)
        # The output budget the window leaves (a server refuses a limit it cannot give), and
        # the request's estimate, to calibrate by what the server counts of it.
        budget = self.context.output_budget(settings.max_tokens, self.context_used())
        if budget != settings.max_tokens:
            settings = replace(settings, max_tokens=budget)
        self.context.sending(settings.system, tools, self.messages)
        request = build(self.context.view(self.messages), tools, settings)
        events: TaskEvents[list[Progress] | RetryWait] = TaskEvents()
        raw: list[RawEvent] = []
        text: list[str] = []
        announced: dict[int, ToolCallAnnounced] = {}

        def record(t: float, event: str, data: str) -> None:
            raw.append(RawEvent(t=round(t, 4), event=event, data=data))

        task = events.follow(
            asyncio.ensure_future(
                stream_turn(
                    self.client,
                    request,
                    self.protocol,
                    self.provider,
                    limits=self.settings.limits,
                    on_progress=events.put,
                    on_retry=events.put,
                    record=record,
                )
            )
        )
        self._stream_task = task
        if self._cancelled:  # Esc came before the request went out
            task.cancel()
        try:
            async for batch in events:
                for item in batch if isinstance(batch, list) else [batch]:
                    if isinstance(item, TextDelta):
                        text.append(item.text)
                    elif isinstance(item, ToolCallAnnounced):
                        announced[item.position] = item
                    yield item
            try:
                result = task.result()
            except asyncio.CancelledError:
                pending = tuple(PendingCall(c.call_id, c.name) for c in announced.values())
                result = TruncatedTurn(
                    "cut", "".join(text), "", pending, None, None, "cancelled by user"
                )
        finally:
            self._stream_task = None
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._keep(result, raw)
        yield result

    def _offered(self) -> tuple[list[ToolSchema], RequestSettings]:
        """The tools and settings of the next request: in plan mode, reads and the plan note;
        a tool whose description depends on the moment (``ToolSpec.describe``) as it is now."""
        mode, registry = self.calls.policy.mode, self.calls.registry
        planning = plan.planning(mode)

        def now(tool: ToolSchema) -> ToolSchema:
            spec = registry.get(tool.name)
            if spec is None or spec.describe is None:
                return tool
            return replace(tool, description=spec.described(planning))

        if not planning:
            return [now(tool) for tool in self.tools], self.request

        def risk(name: str) -> str | None:
            spec = registry.get(name)
            return str(spec.risk) if spec is not None else None

        tools = plan.offered(mode, self.tools, lambda tool: tool.name, risk)
        return [now(tool) for tool in tools], replace(
            self.request, system=plan.system_prompt(mode, self.request.system or "")
        )

    async def _keep(self, result: TurnResult, raw: list[RawEvent]) -> None:
        """A complete turn joins the conversation; a truncated one leaves only a diagnostic."""
        if isinstance(result, Turn):
            self.messages.append(
                AssistantMessage(
                    self.protocol,
                    result.text,
                    result.tool_calls,
                    result.reasoning,
                    result.response_id,
                    tuple((e.event, e.data) for e in raw),
                )
            )
        record = turn_record(result, raw, self.protocol, self.request.model)
        if isinstance(result, Turn):
            # Not awaited here: its TurnCompleted goes first, so the answer is finished on
            # screen while the record (every raw event redacted and encoded, then synced; 20-30
            # ms at 20 KB, more under load) is written. The loop waits for it (``_written``)
            # before anything else happens to the turn: no later record overtakes it.
            self._writing = start_write(self.recorder, record)
            return
        await write_off_loop(self.recorder, record)

    async def _written(self) -> None:
        """Wait for the record ``_keep`` left being written, if any (even when cancelled)."""
        writing, self._writing = self._writing, None
        if writing is not None:
            await finish_write(writing)
