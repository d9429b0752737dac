"""The context window in the app: /context, the count again once the server said how large its
window is, /compact, and compacting then sending again after an overflow (F8). The count on the
status line and the "compacted here" divider come from the agent's events (``event_router``)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from ..context.events import Compacted, ResultsCut
from .event_router import show_count

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..agent.loop import Agent
    from ..wiring.host import SessionHost
    from .router_app import RouterApp
    from .shell import Shell


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


def attach_context(app: Shell, host: SessionHost) -> None:
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


def compact(app: Shell, instructions: str = "", *, then_retry: bool = False) -> None:
    """/compact (palette, slash command); with ``then_retry`` (F8) the unanswered message is
    sent again once the compaction succeeded."""
    if app.host is None:  # the actions' table waits for the session and for the agent
        return
    agent = app.host.agent
    retry = then_retry and agent.unanswered()
    app.drive(_compact_then_retry(agent, instructions, retry))


async def _compact_then_retry(
    agent: Agent, instructions: str, retry: bool
) -> AsyncGenerator[AgentEvent, None]:
    compacted = False
    async for event in agent.compact(instructions):
        compacted = compacted or isinstance(event, Compacted | ResultsCut)
        yield event
    if compacted and retry:
        async for event in agent.retry():
            yield event
