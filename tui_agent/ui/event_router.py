"""Turns the agent's events into widget updates.

Text deltas are coalesced (at most ~30 updates a second); tool-call events are never delayed:
the "preparing tool" card is mounted the moment its ToolCallAnnounced arrives. A wait before a
retry counts down in the status bar until the next event arrives.
"""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from ..agent.call_hooks import hook_summary
from ..agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    HookFinished,
    LoopEnded,
    Notice,
    PlanUpdated,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from ..context.events import (
    Compacted,
    CompactionFailed,
    CompactionStarted,
    ContextOverflow,
    ContextUpdate,
    ResultsCut,
    divider_text,
)
from ..context.resume import compacted_event
from ..context.window import context_line, over_threshold
from ..conversation import AssistantMessage as AssistantHistory
from ..conversation import ImagePart, Message, ToolResultMessage, UserMessage
from ..stream.events import ReasoningDelta, ServerToolUsed, TextDelta
from ..stream.progress import RetryWait, ToolArgumentsReceived, ToolCallAnnounced
from .arming import Stoppable, clock
from .widgets.attachment_chips import show_attachments
from .widgets.compaction_divider import DividerSnapshot
from .widgets.image_thumbnail import ImageSnapshot, drawn_inline, image_caption
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..wiring.host import SessionHost
    from .router_app import RouterApp
    from .widgets.plan_block import PlanBlock

COMPACT_KEY = "F8"  # the actions' table: compact, then send again
FLUSH_INTERVAL_S = 1 / 30
COUNTDOWN_TICK_S = 0.2
_DECISION_STATES = {
    "approve": "approved",
    "edit": "approved",
    "deny": "denied",
    "cancel": "cancelled",
    "refused": "denied",
}


def show_count(app: RouterApp, used: int | None = None) -> None:
    """Put the context count (now, or ``used``) on the status line."""
    if app.host is None:
        return
    agent = app.host.agent
    used = agent.context_used() if used is None else used
    try:
        status = app.query_one(StatusBar)
    except NoMatches:  # an event handled while the app closes: no status line to show it on
        return
    status.context = context_line(used, agent.context.size)
    status.tooltip = f"context window: {agent.context.window.described()}"
    status.context_warning = over_threshold(
        used, agent.context.size, agent.context.settings.compact_at
    )


def _summary(arguments: str) -> str:
    text = " ".join(arguments.split())
    return text if len(text) <= 100 else text[:99] + "…"


class EventRouter:
    def __init__(self, app: RouterApp) -> None:
        self.app = app
        self.transcript = app.query_one(Transcript)
        self.status = app.query_one(StatusBar)
        self.panel = app.query_one(SidePanel)
        self.stopping = False
        self._answer: Any = None
        self._reasoning: Any = None
        self._plan: PlanBlock | None = None
        self._pending_text: list[str] = []
        self._pending_reasoning: list[str] = []
        self._last_flush = 0.0
        self._flush_scheduled = False
        self._cards: dict[int, Any] = {}  # position in the turn -> card
        self._by_id: dict[str, Any] = {}
        self._arguments: dict[str, str] = {}  # call id -> the model's arguments
        self._answers: list[str] = []
        self._text_this_turn: list[str] = []
        self._countdown: Stoppable | None = None
        self._resumed_subagents: list[Any] = []  # SubagentRecord: of the session shown

    # -- the stream -------------------------------------------------------------------------

    def handle(self, event: AgentEvent) -> None:
        if self._countdown is not None and not isinstance(event, RetryWait):
            self._stop_countdown()  # the wait is over: the retry answered (or the turn ended)
        match event:
            case TextDelta():
                self._pending_text.append(event.text)
                self._text_this_turn.append(event.text)
                self._maybe_flush()
            case ReasoningDelta():
                self._pending_reasoning.append(event.text)
                self._maybe_flush()
            case ToolCallAnnounced():
                self.flush()
                self._announce(event)
            case ToolArgumentsReceived():
                card = self._cards.get(event.position)
                if card is not None:
                    card.set_bytes(event.size)
            case ServerToolUsed():
                self.flush()
                self.transcript.add_server_tool(event.name, event.detail)
            case _:
                self.flush()
                self._handle_other(event)

    def _announce(self, event: ToolCallAnnounced) -> None:
        self._streaming()
        card = self._cards.get(event.position)
        if card is None:
            card = self.transcript.add_tool_card(event.position, event.call_id, event.name)
            self._cards[event.position] = card
            self.panel.add_call(event.position, event.name)
        elif event.name:
            card.set_name(event.name)

    def _maybe_flush(self) -> None:
        """Show the text at most every FLUSH_INTERVAL_S, and never later than that: when the
        last flush is that old, at the end of what the stream gives at once (the events of a
        read come one after the other with no await between them), not at its first delta. A
        burst that arrives whole (a short answer on a fast link) is so shown in one update,
        and at once, not a timer's interval later nor one delta first then the rest."""
        if self._flush_scheduled:
            return
        self._flush_scheduled = True
        wait = FLUSH_INTERVAL_S - (clock(self.app).now() - self._last_flush)
        if wait <= 0:
            asyncio.get_running_loop().call_soon(self._scheduled_flush)
        else:
            # Textual's timer, not the app clock's: it only repaints sooner, decides nothing,
            # and a test's clock that stands still must not hold streamed text back.
            self.app.set_timer(wait, self._scheduled_flush)

    def _scheduled_flush(self) -> None:
        if self._flush_scheduled:  # not flushed meanwhile (the turn's end flushes at once)
            self.flush()

    def _streaming(self) -> None:
        if self.status.connection != "streaming":
            self.status.connection = "streaming"

    def flush(self) -> None:
        self._flush_scheduled = False
        if not (self._pending_text or self._pending_reasoning):
            return  # nothing shown: the interval still counts from the last text shown
        self._last_flush = clock(self.app).now()
        self._streaming()
        if self._pending_reasoning:
            if self._reasoning is None:
                self._reasoning = self.transcript.start_reasoning()
            self._reasoning.append("".join(self._pending_reasoning))
            self._pending_reasoning.clear()
        if self._pending_text:
            if self._answer is None:
                self._finish_reasoning()
                self._answer = self.transcript.start_assistant()
            self._answer.append("".join(self._pending_text))
            self._pending_text.clear()

    def _finish_reasoning(self) -> None:
        if self._reasoning is not None and not self._reasoning.settled:
            self._reasoning.finish()

    # -- everything else --------------------------------------------------------------------

    def _handle_other(self, event: AgentEvent) -> None:
        match event:
            case TurnStarted():
                self._answer = self._reasoning = None
                self._cards = {}
                self._text_this_turn = []
                self.status.connection = "waiting for the model"
            case RetryWait():
                why, seconds, attempt = event.why, event.seconds, event.attempt
                self.transcript.add_notice(
                    f"{why}: retrying in {seconds:.1f} s (attempt {attempt})", "info"
                )
                self._start_countdown(event)
            case TurnCompleted():
                self._complete(event)
            case TurnTruncated():
                self._truncated(event)
            case CallInvalid():
                error = event.error
                self._card(event.call_id, lambda c: c.set_state("invalid", error))
                self.panel.set_state(event.call_id, "invalid")
            case CallDecided():
                state = _DECISION_STATES.get(event.decision, event.decision)
                detail = event.reason
                if event.decision == "edit" and event.arguments is not None:
                    detail = self._edited(event.call_id, event.arguments)
                self._card(event.call_id, lambda c: c.set_state(state, detail))
                self.panel.set_state(event.call_id, state)
            case ToolStarted():
                self.status.connection = f"running {event.name}"
                self._card(event.call_id, lambda c: c.set_state("running"))
                self.panel.set_state(event.call_id, "running")
            case ToolFinished():
                finished = event

                def finish(card: Any) -> None:
                    card.set_state(finished.status)
                    card.set_result(finished.output, finished.is_error)

                self._card(event.call_id, finish)
                self._tool_images(event.name, event.images)
                self.panel.set_state(event.call_id, event.status)
            case HookFinished():
                self._hook(event)
            case SubagentEvent():
                self._subagent(event)
            case ResultsCut():
                self.transcript.add_notice(event.text(), "warning")
            case PlanUpdated():  # a Notice too: before it
                self._show_plan(event)
            case Notice():
                self.transcript.add_notice(event.text, event.level)
            case LoopEnded():
                self._loop_ended(event)
            case (
                ContextUpdate()
                | CompactionStarted()
                | Compacted()
                | CompactionFailed()
                | ContextOverflow()
            ):
                self._context(event)

    def _context(
        self,
        event: ContextUpdate | CompactionStarted | Compacted | CompactionFailed | ContextOverflow,
    ) -> None:
        """The window and compaction (what /compact and F8 start: context_view.py)."""
        if isinstance(event, ContextUpdate):
            show_count(self.app, event.used)
        elif isinstance(event, CompactionStarted):
            self.status.connection = "compacting the conversation"
        elif isinstance(event, Compacted):
            self.transcript.add_item(DividerSnapshot(divider_text(event), event.summary))
            self.status.connection = "ready"
            self.stopping = False
        elif isinstance(event, CompactionFailed):
            self.transcript.add_notice(event.message, "warning")
            self.status.connection = "ready"
            self.stopping = False  # an Esc that stopped the summary is spent
        elif isinstance(event, ContextOverflow):
            self.transcript.add_notice(
                f"{event.message}. Press {COMPACT_KEY} to compact the conversation and send "
                "your message again (or /compact, then Ctrl+R)",
                "error",
            )
            show_count(self.app)

    def _start_countdown(self, event: RetryWait) -> None:
        """Show the whole seconds left of the wait, updated until it is over."""
        self._stop_countdown()
        now = clock(self.app).now
        ends = now() + event.seconds

        def tick() -> None:
            left = ends - now()
            if left > 0:
                self.status.connection = f"retrying in {math.ceil(left)} s ({event.why})"
            else:
                self._stop_countdown()
                self.status.connection = f"waiting for the model (attempt {event.attempt})"

        tick()
        if self.status.connection.startswith("retrying"):
            self._countdown = clock(self.app).every(self.app, COUNTDOWN_TICK_S, tick)

    def _stop_countdown(self) -> None:
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

    def _complete(self, event: TurnCompleted) -> None:
        turn = event.turn
        if self._answer is not None:
            self._answer.finish()
            self._answers.append(turn.text)
        self._finish_reasoning()
        self.status.tokens += event.tokens
        if event.spent:
            self.status.cost = event.spent
        for position, call in enumerate(turn.tool_calls):
            card = self._cards.get(position)
            if card is None:
                card = self.transcript.add_tool_card(position, call.id, call.name)
                self._cards[position] = card
            self._by_id[call.id] = card
            self._arguments[call.id] = call.arguments
            self.panel.bind_id(position, call.id)
            card.set_arguments_summary(_summary(call.arguments))
            card.set_state("waiting")
            self.panel.set_state(call.id, "waiting")
        self.status.connection = "deciding" if turn.tool_calls else "ready"

    def _truncated(self, event: TurnTruncated) -> None:
        self._finish_reasoning()
        message = event.message
        if self.stopping:
            message = "stopped: the turn was discarded and nothing of it ran"
        if self._answer is not None:
            self._answer.discard(message)
        else:
            self.transcript.add_notice(message, "warning")
        # Esc: the person cancelled. Otherwise the turn was cut (the stream broke, a limit):
        # nobody cancelled anything, and nothing of it ran.
        state = "cancelled" if self.stopping else "cut"
        for card in self._cards.values():
            card.set_state(state, "the turn ended before it was complete")
        self.panel.settle_pending("cancelled" if self.stopping else "not run")
        pending = ", ".join(c.name for c in event.turn.pending_calls)
        if pending:
            self.transcript.add_notice(f"pending calls not run: {pending}", "warning")

    def _show_plan(self, event: PlanUpdated) -> None:
        """The agent's plan: one block a prompt, each newer plan shown in it."""
        if self._plan is None:
            self._plan = self.transcript.add_plan(event.entries)
        else:
            self._plan.show(event.entries)

    def _loop_ended(self, event: LoopEnded) -> None:
        self.status.connection = "ready"
        if self._plan is not None:
            self._plan.settle()
            self._plan = None
        agent = self.app.host.agent if self.app.host is not None else None
        if event.outcome == "truncated":
            self.transcript.add_notice("press Ctrl+R to send the message again", "info")
        elif event.outcome == "cancelled" and agent is not None and agent.pending_user_message():
            self.app.withdraw_into_prompt()
            self.transcript.add_notice("your message is back in the input", "info")
        elif event.message:
            self.transcript.add_notice(event.message, "warning")
        self.stopping = False

    def _edited(self, call_id: str, arguments: str) -> str:
        """The card shows the edited arguments (what runs) and says what changed."""
        from .edited_arguments import edited_detail

        self._card(call_id, lambda c: c.set_arguments_summary(_summary(arguments)))
        return edited_detail(self._arguments.get(call_id, ""), arguments)

    def _hook(self, event: HookFinished) -> None:
        """A call's hook on its card; another moment's only when it did not simply go on."""
        line = hook_summary(event)
        if event.call_id:
            self._card(event.call_id, lambda card: card.add_hook(line))
        elif event.verdict != "ok":
            level = "warning" if event.verdict in ("failed", "timed out") else "info"
            self.transcript.add_notice(line, level)

    def _subagent(self, event: SubagentEvent) -> None:
        """A subagent's event on its task's card (``subagent_progress.py``)."""
        from .subagent_progress import follow

        card = self._by_id.get(event.call_id)
        if card is not None and follow(card.subagent_model(event.agent), event.event):
            card.subagent_changed()

    def _resumed_subagent(self, card: Any, call_id: str) -> None:
        """A resumed task's subagent on its card, from its records as replay reads them."""
        records = [r for r in self._resumed_subagents if r.call_id == call_id]
        if not records:
            return
        from ..replay.script import ReplayScript
        from .subagent_progress import follow

        for step in ReplayScript.from_records(records):
            event = step.event
            if isinstance(event, SubagentEvent):
                follow(card.subagent_model(event.agent), event.event)
        card.subagent_changed()

    def _drawn(self) -> bool:
        return drawn_inline(self.app.host)

    def _tool_images(self, tool: str, images: tuple[ImagePart, ...]) -> None:
        """A tool's images under its call, where the terminal can draw them (else the card's
        text says what they were)."""
        if images and self._drawn():
            for image in images:
                self.transcript.add_item(ImageSnapshot(image, image_caption(tool, image)))

    def _card(self, call_id: str, apply: Any) -> None:
        card = self._by_id.get(call_id)
        if card is not None:
            apply(card)

    def last_answer(self) -> str:
        return self._answers[-1] if self._answers else ""

    # -- a resumed session ------------------------------------------------------------------

    def show_conversation(self, host: SessionHost) -> None:
        """A resumed conversation, with a divider where each compaction happened, and each
        task's subagent on its card."""
        self._resumed_subagents = host.subagents
        shown = 0
        for record in sorted(host.compactions, key=lambda r: r.at):
            at = min(max(record.at, shown), len(host.history))
            self.show_history(host.history[shown:at])
            shown = at
            event = compacted_event(record)
            self.transcript.add_item(DividerSnapshot(divider_text(event), event.summary))
        self.show_history(host.history[shown:])

    def show_history(self, messages: list[Message]) -> None:
        """Show a resumed conversation as finished widgets (no streaming)."""
        results = {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}
        for message in messages:
            if isinstance(message, UserMessage):
                self.transcript.add_user(message.text)
                if message.attachments:
                    show_attachments(self.transcript, message.attachments, drawn=self._drawn())
            elif isinstance(message, AssistantHistory):
                if message.text:
                    self.transcript.add_answer(message.text)
                    self._answers.append(message.text)
                for position, call in enumerate(message.tool_calls):
                    card = self.transcript.add_tool_card(position, call.id, call.name)
                    card.set_arguments_summary(_summary(call.arguments))
                    result = results.get(call.id)
                    state = "interrupted"
                    if result is not None:
                        state = "failed" if result.is_error else "done"
                    card.set_state(state)
                    if result is not None:
                        card.set_result(result.output, result.is_error)
                        self._tool_images(call.name, result.images)
                    self._resumed_subagent(card, call.id)
                    # The calls panel shows this session's calls, the resumed ones too.
                    self.panel.add_call(position, call.name)
                    self.panel.bind_id(position, call.id)
                    self.panel.set_state(call.id, state)
