"""What the session browser does to a saved session: rename, delete, fork.

Each step asks through the browser (a line to type, or y/n: ``Ask``), and reports with a notice;
the browser owns the questions, the list and resuming, and delegates its ``r``, ``d`` and ``f``
keys here. Every title and error shown goes through ``visible_line``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from textual.notifications import SeverityLevel

from ...session import SessionError, SessionStore, SessionSummary
from ...session.records import NoteRecord
from ...session.titles import one_line
from ..sanitize import visible_line
from ..session_switch import current_session_id

if TYPE_CHECKING:
    from ..shell import Shell


@dataclass(frozen=True, slots=True)
class Ask:
    """A question in progress: a line to type (``rename``, ``fork``) or y/n (``confirm``)."""

    kind: Literal["rename", "fork", "confirm"]
    session_id: str
    on_yes: Callable[[], Awaitable[None]] | None = None
    on_no: str = ""  # what to say when the answer is no


class Browser(Protocol):
    """What these edits need from the session browser."""

    store: SessionStore
    ask: Ask | None

    @property
    def tui_app(self) -> Shell: ...

    def highlighted(self) -> str | None: ...

    def summary(self, session_id: str) -> SessionSummary | None: ...

    def reload(self, select: str | None = None) -> object: ...

    def resume(self, session_id: str) -> object: ...

    def ask_line(self, ask: Ask, prompt: str, value: str) -> None: ...

    def ask_yes_no(self, ask: Ask, prompt: str) -> None: ...

    def call_later(self, callback: Callable[..., object], *args: object) -> bool: ...

    def notify(
        self, message: str, *, severity: SeverityLevel = "information", markup: bool = True
    ) -> None: ...


def _chosen(browser: Browser) -> SessionSummary | None:
    """The highlighted session, when no question is in progress."""
    session_id = browser.highlighted()
    summary = browser.summary(session_id) if session_id else None
    return summary if browser.ask is None else None


def ask_rename(browser: Browser) -> None:
    """``r``: a line with the title to edit; Enter saves it (``rename``)."""
    if (summary := _chosen(browser)) is not None:
        prompt = f"New title for {summary.id} (Enter saves, Esc cancels):"
        browser.ask_line(Ask("rename", summary.id), prompt, summary.title)


def rename(browser: Browser, session_id: str, value: str) -> None:
    """Save a new title: a rename record through the open session's writer, else the store's."""
    title = one_line(value)
    if not title:
        browser.notify("the title is empty: not renamed", severity="warning")
        return
    app = browser.tui_app
    host = app.host
    try:
        if host is not None and current_session_id(app) == session_id:
            host.writer.append(NoteRecord(kind="rename", text=title), sync=True)
            if host.writer.error is not None:
                raise SessionError(f"cannot rename session {session_id}: {host.writer.error}")
        else:
            browser.store.rename(session_id, title)
    except SessionError as exc:
        browser.notify(visible_line(str(exc)), severity="error", markup=False)
        return
    browser.notify(visible_line(f"renamed {session_id}: {title}"), markup=False)
    browser.reload(select=session_id)


def ask_delete(browser: Browser) -> None:
    """``d``: y/n, then delete (never the open session)."""
    if (summary := _chosen(browser)) is None:
        return
    if summary.id == current_session_id(browser.tui_app):
        browser.notify(
            "this session is open here: switch to another one before deleting it",
            severity="error",
        )
        return
    plural = "" if summary.messages == 1 else "s"
    prompt = (
        f"Delete session {summary.id} ({summary.title}, {summary.messages} message{plural})? "
        "This cannot be undone."
    )
    on_yes = functools.partial(_delete, browser, summary.id)
    browser.ask_yes_no(Ask("confirm", summary.id, on_yes, f"{summary.id} was not deleted"), prompt)


async def _delete(browser: Browser, session_id: str) -> None:
    from ...images.cleanup import delete_session  # with the images only it named

    try:
        await asyncio.to_thread(delete_session, browser.store, session_id)
    except SessionError as exc:
        browser.notify(visible_line(str(exc)), severity="error", markup=False)
        return
    browser.notify(f"deleted {session_id}", markup=False)
    browser.reload()


def pick_fork(browser: Browser) -> None:
    """``f``: pick a message (``ForkPicker``), fork there, then offer to switch to the fork."""
    if (summary := _chosen(browser)) is None:
        return
    if summary.messages == 0:
        browser.notify("the session has no messages to fork", severity="warning")
        return
    from .fork_picker import ForkPicker

    def picked(at: int | None) -> None:
        if at is not None:
            browser.call_later(_fork, browser, summary.id, str(at))

    browser.tui_app.push_screen(ForkPicker(summary.id, browser.store), picked)


async def _fork(browser: Browser, session_id: str, value: str) -> None:
    from ...agent.fork import fork_session

    try:
        at = int(value.strip())
    except ValueError:
        browser.notify(f"not a message number: {visible_line(value)}", severity="warning")
        return
    try:
        made, _ = await asyncio.to_thread(fork_session, browser.store, session_id, at)
    except SessionError as exc:
        browser.notify(visible_line(str(exc)), severity="error", markup=False)
        return
    browser.reload(select=made.session_id)
    prompt = f"Forked {session_id} at message {at} into {made.session_id}. Switch to it?"
    on_yes = functools.partial(_switch_to_fork, browser, made.session_id)
    browser.ask_yes_no(Ask("confirm", made.session_id, on_yes), prompt)


async def _switch_to_fork(browser: Browser, session_id: str) -> None:
    browser.resume(session_id)
