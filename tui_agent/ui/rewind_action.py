"""The app's rewind: open the rewind screen (a key on one of your messages, F5, the palette) and
report what it did; a rewound conversation is continued in its new session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agent.rewind import RewindResult
from .sanitize import visible_line

if TYPE_CHECKING:
    from .shell import Shell


def open_rewind(app: Shell, preselect: str | None = None, *, undo: bool = False) -> None:
    from .screens.rewind import RewindScreen

    if app.host is None or getattr(app.host, "store", None) is None:
        app.notify("still starting: nothing to rewind yet", severity="warning")
        return
    if app.busy:
        app.notify("the agent is busy: Esc stops it, then rewind", severity="warning")
        return
    if isinstance(app.screen, RewindScreen):
        return

    def done(result: RewindResult | None) -> None:
        if result is not None:
            report(app, result)

    app.push_screen(RewindScreen(app.host, preselect=preselect, undo=undo), done)


def summary(result: RewindResult) -> str:
    counts: dict[str, int] = {}
    for row in result.files:
        counts[row["action"]] = counts.get(row["action"], 0) + 1
    parts = [f"{n} {action}" for action, n in sorted(counts.items())]
    files = "files: " + ", ".join(parts) if parts else "no file changed"
    kept = " (conflicts kept as they are)" if result.conflicts_left else ""
    return f"rewound; {files}{kept}"


def report(app: Shell, result: RewindResult) -> None:
    from .widgets.transcript import Transcript

    transcript = app.query_one(Transcript)
    transcript.add_notice(
        visible_line(summary(result)), "warning" if result.conflicts_left else "info"
    )
    for row in result.files:
        why = f": {row['why']}" if row["why"] else ""
        transcript.add_notice(visible_line(f"  {row['action']} {row['path']}{why}"), "info")
    if result.session:
        app.run_worker(_continue_in(app, result.session), exclusive=True, group="rewind-switch")


async def _continue_in(app: Shell, session_id: str) -> None:
    from ..config import ConfigError
    from ..session import SessionError

    try:
        await app.switch_session(session_id)
    except (SessionError, ConfigError) as exc:
        app.notify(visible_line(f"cannot open the rewound conversation: {exc}"), severity="error")
