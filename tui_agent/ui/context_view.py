"""The context window in the app: the status line's ``ctx`` count, the "compacted here"
divider, /compact, and compacting then sending again after an overflow (F8)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from ..context.events import (
    Compacted,
    CompactionFailed,
    CompactionStarted,
    ContextOverflow,
    ContextUpdate,
    divider_text,
)
from ..context.resume import compacted_event
from ..context.window import context_line, over_threshold
from .widgets.compaction_divider import DividerSnapshot
from .widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..agent.loop import Agent
    from ..wiring.host import SessionHost
    from .app import TuiAgentApp
    from .event_router import EventRouter
    from .router_app import RouterApp

COMPACT_KEY = "F8"


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


def context_report(app: RouterApp) -> str:
    """/context: how full the window is, how large it is and where that figure came from."""
    if app.host is None:
        return "still starting: the context is not known yet"
    agent = app.host.agent
    keeper = agent.context
    used = agent.context_used()
    share = f" ({round(100 * used / keeper.size)}%)" if keeper.size else ""
    lines = [
        f"context: about {used:,} tokens in the next request{share}",
        f"window: {keeper.window.described()}",
    ]
    if keeper.size and keeper.settings.compact_at > 0:
        limit = int(keeper.settings.compact_at * keeper.size)
        lines.append(f"compacts by itself past {limit:,} tokens (compact_at)")
    return "\n".join(lines)


def attach_context(app: TuiAgentApp, host: SessionHost) -> None:
    """The count from the session as opened; again once the server said how large its window is."""
    show_count(app)
    task = host.window_task
    if task is None:
        return

    async def wait_for_window() -> None:
        try:
            changed = await task
        except BaseException:  # cancelled with the session, or the question failed: no news
            return
        if changed and app.host is host:
            show_count(app)

    app.run_worker(wait_for_window(), group="context-window", exclusive=True)


def show_conversation(router: EventRouter, host: SessionHost) -> None:
    """A resumed conversation, with a divider where each compaction happened."""
    shown = 0
    for record in sorted(host.compactions, key=lambda r: r.at):
        at = min(max(record.at, shown), len(host.history))
        router.show_history(host.history[shown:at])
        shown = at
        event = compacted_event(record)
        router.transcript.add_item(DividerSnapshot(divider_text(event), event.summary))
    router.show_history(host.history[shown:])


def handle_event(
    router: EventRouter,
    event: ContextUpdate | CompactionStarted | Compacted | CompactionFailed | ContextOverflow,
) -> None:
    """The context events of the agent's stream (the router passes on what it does not know)."""
    app = router.app
    if isinstance(event, ContextUpdate):
        show_count(app, event.used)
    elif isinstance(event, CompactionStarted):
        router.status.connection = "compacting the conversation"
    elif isinstance(event, Compacted):
        router.transcript.add_item(DividerSnapshot(divider_text(event), event.summary))
        router.status.connection = "ready"
        router.stopping = False
    elif isinstance(event, CompactionFailed):
        router.transcript.add_notice(event.message, "warning")
        router.status.connection = "ready"
        router.stopping = False  # an Esc that stopped the summary is spent
    elif isinstance(event, ContextOverflow):
        router.transcript.add_notice(
            f"{event.message}. Press {COMPACT_KEY} to compact the conversation and send your "
            "message again (or /compact, then Ctrl+R)",
            "error",
        )
        show_count(app)


def compact(app: TuiAgentApp, instructions: str = "", *, then_retry: bool = False) -> None:
    """/compact (palette, slash command); with ``then_retry`` (F8) the unanswered message is
    sent again once the compaction succeeded."""
    if app.host is None:  # the actions' table waits for the session and for the agent
        return
    agent = app.host.agent
    retry = then_retry and agent.pending_user_message() is not None
    app._drive(_compact_then_retry(agent, instructions, retry))


async def _compact_then_retry(
    agent: Agent, instructions: str, retry: bool
) -> AsyncGenerator[AgentEvent, None]:
    compacted = False
    async for event in agent.compact(instructions):
        compacted = compacted or isinstance(event, Compacted)
        yield event
    if compacted and retry:
        async for event in agent.retry():
            yield event
