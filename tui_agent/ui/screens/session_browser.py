"""The session browser: search saved sessions, resume, rename, delete or fork one.

A search field over a table of every saved session, most recently updated first (the open one
marked ``●``). Typing filters by title and by message text; the text is read in a worker thread,
once per file version (``SessionTextIndex``), so hundreds of sessions stay responsive.

Keys: Enter resumes the highlighted session (from the search field or the table), ↓ goes from
the search field to the table; in the table ``r`` renames (an inline field, saved as a rename
record), ``d`` deletes after a y/n question (never the open session), ``f`` forks at a message
(picked from a list of the messages with their first lines: ``fork_picker``) and then offers
to switch to the fork; Esc cancels a question, else closes the browser. Every title, model and
error shown here goes through ``sanitize``.

Renaming, deleting and forking are ``session_edits``; the questions they ask are here.

Typing never decides (``GuardedModal``): Enter (resume, an answer's Enter) and y/n decide only
once the browser, or its question, has had the person's attention for the arming delay with no
key, the delay starting over on every key; opened while the person types, it first waits for a
pause in typing. An early key decides nothing, and the question stays.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Input, Label, Static
from textual.worker import get_current_worker

from ...session import SessionError, SessionStore, SessionSummary
from ...text.times import human_local
from ..arming import clock
from ..sanitize import safe_text, visible_line
from ..session_search import SessionTextIndex, matches
from ..session_switch import current_session_id, refusal
from . import session_edits
from .key_guard import GuardedModal
from .session_edits import Ask

if TYPE_CHECKING:
    from ..shell import Shell

CURRENT_MARK = "●"


class Question(Static, can_focus=True):
    """The y/n question (focusable, so y and n reach the screen and not the search field)."""


class SessionBrowser(GuardedModal[None]):
    DEFAULT_CSS = """
    SessionBrowser {
        align: center middle;
    }
    SessionBrowser > #browser {
        width: 90%;
        height: 85%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    SessionBrowser #sessions {
        height: 1fr;
    }
    SessionBrowser #question, SessionBrowser #answer {
        display: none;
    }
    SessionBrowser #question.-shown, SessionBrowser #answer.-shown {
        display: block;
    }
    SessionBrowser #question {
        color: $warning;
    }
    SessionBrowser #keys {
        width: 1fr;
    }
    /* Small terminals: the list takes the whole screen and the search field one row, so the
       keys' line (wrapped, never cut) and the sessions stay seen. */
    SessionBrowser.-narrow > #browser, SessionBrowser.-short > #browser {
        width: 100%;
        height: 100%;
        border: none;
        padding: 0;
    }
    SessionBrowser.-short #search {
        height: 1;
        border: none;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("enter", "resume", "Resume"),
        Binding("r", "rename", "Rename"),
        Binding("d", "delete", "Delete"),
        Binding("f", "fork", "Fork"),
        Binding("down", "to_table", "List", show=False),
    ]

    def __init__(self, store: SessionStore | None = None) -> None:
        super().__init__(changed=self._show_question)
        self.store = store if store is not None else SessionStore()
        self.index = SessionTextIndex()
        self.summaries: list[SessionSummary] = []
        self.shown: list[str] = []  # ids in the table, in order
        self.ask: Ask | None = None
        self._question = self._shown_question = ""

    @property
    def tui_app(self) -> Shell:
        return cast("Shell", self.app)

    def compose(self) -> ComposeResult:
        with Vertical(id="browser"):
            yield Label(
                "Sessions: Enter resume · r rename · d delete · f fork · Esc close", id="keys"
            )
            yield Input(placeholder="Search titles and text", id="search")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield Question(id="question")
            yield Input(id="answer")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(" ", key="mark")
        table.add_column("Title", key="title")
        table.add_column("Updated", key="updated")
        table.add_column("Profile/model", key="model")
        table.add_column("Msgs", key="messages")
        self.query_one("#search", Input).focus()
        clock(self.app).every(self, 0.05, self._show_question)  # the note follows the arming
        self.reload()

    def on_mouse_down(self) -> None:
        self.guard.clicked()

    def _show_question(self) -> None:
        """The y/n question, and whether it waits for a pause in typing or is about to arm."""
        if self.ask is None or self.ask.kind != "confirm" or not self.is_mounted:
            return
        note = " (y/n)"
        if self.guard.waiting:
            note += " · waiting for a pause in typing"
        elif not self.guard.armed():
            note += " · in a moment"
        if self._shown_question != (text := self._question + note):
            self._shown_question = text
            self.query_one(Question).update(safe_text(text, one_line=True))

    # -- the list ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sessions-load")
    def reload(self, select: str | None = None) -> None:
        """Read the session list (in a thread), then show it filtered by the search."""
        summaries = self.store.list()
        self.app.call_from_thread(self._loaded, summaries, select)

    def _loaded(self, summaries: list[SessionSummary], select: str | None) -> None:
        self.summaries = summaries
        self.search(self.query_one("#search", Input).value, select)

    def search(self, query: str, select: str | None = None) -> None:
        if not query.split():
            self._show(query, [s.id for s in self.summaries], select)
        else:
            self._search_text(query, list(self.summaries), select)

    @work(thread=True, exclusive=True, group="sessions-search")
    def _search_text(self, query: str, summaries: list[SessionSummary], select: str | None) -> None:
        worker = get_current_worker()
        found = []
        for summary in summaries:
            if worker.is_cancelled:
                return
            if matches(query, summary.title, functools.partial(self.index.text, summary.path)):
                found.append(summary.id)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, query, found, select)

    def _show(self, query: str, ids: list[str], select: str | None = None) -> None:
        if query != self.query_one("#search", Input).value:
            return  # a newer search is on its way
        table = self.query_one(DataTable)
        keep = select or self.highlighted()
        by_id = {s.id: s for s in self.summaries}
        current = current_session_id(self.tui_app)
        table.clear()
        self.shown = [i for i in ids if i in by_id]
        for session_id in self.shown:
            s = by_id[session_id]
            model = "/".join(part for part in (s.profile, s.model) if part) or "-"
            table.add_row(
                Text(CURRENT_MARK if session_id == current else " "),
                safe_text(s.title, one_line=True),
                Text(human_local(s.updated)),
                safe_text(model, one_line=True),
                Text(str(s.messages), justify="right"),
                key=session_id,
            )
        if keep in self.shown:
            table.move_cursor(row=self.shown.index(keep))

    def highlighted(self) -> str | None:
        """The id of the highlighted session, if any."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def summary(self, session_id: str) -> SessionSummary | None:
        return next((s for s in self.summaries if s.id == session_id), None)

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search(event.value)

    # -- resume -----------------------------------------------------------------------------

    @on(Input.Submitted, "#search")
    @on(DataTable.RowSelected)
    def action_resume(self) -> None:
        if not self.guard.decides():
            return  # typed, not chosen: Enter resumes after a pause in typing
        if self.ask is None and (session_id := self.highlighted()) is not None:
            self.resume(session_id)

    @work(exclusive=True, group="sessions-switch")
    async def resume(self, session_id: str) -> None:
        from ...config import ConfigError

        app = self.tui_app
        if current_session_id(app) == session_id:
            self.dismiss()
            return
        reason = refusal(app, session_id)
        if reason is not None:
            self.notify(reason, severity="warning", markup=False)
            return
        try:
            await app.switch_session(session_id)
        except (SessionError, ConfigError) as exc:
            self.notify(visible_line(str(exc)), severity="error", markup=False)
            return
        self.dismiss()

    # -- questions --------------------------------------------------------------------------

    def ask_line(self, ask: Ask, prompt: str, value: str) -> None:
        self.ask = ask
        question = self.query_one(Question)
        question.update(safe_text(prompt, one_line=True))
        question.add_class("-shown")
        answer = self.query_one("#answer", Input)
        answer.value = value
        answer.add_class("-shown")
        answer.focus()
        self.guard.arm()

    def ask_yes_no(self, ask: Ask, prompt: str) -> None:
        self.ask = ask
        self._question, self._shown_question = prompt, ""
        question = self.query_one(Question)
        question.add_class("-shown")
        question.focus()
        self.guard.arm()

    def _end_ask(self) -> None:
        self.ask = None
        self.query_one(Question).remove_class("-shown")
        self.query_one("#answer", Input).remove_class("-shown")
        self.query_one(DataTable).focus()
        self.guard.arm()

    async def on_key(self, event: events.Key) -> None:
        ask = self.ask
        if ask is None or ask.kind != "confirm" or event.key not in ("y", "n"):
            return
        event.stop()
        if not self.guard.decides():
            return  # pressed during the arming delay: decides nothing
        self._end_ask()
        if event.key == "y" and ask.on_yes is not None:
            await ask.on_yes()
        elif ask.on_no:
            self.notify(ask.on_no, markup=False)

    @on(Input.Submitted, "#answer")
    async def _answered(self, event: Input.Submitted) -> None:
        event.stop()
        ask = self.ask
        if ask is None or not self.guard.decides():
            return
        self._end_ask()
        if ask.kind == "rename":
            session_edits.rename(self, ask.session_id, event.value)

    def action_close(self) -> None:
        if self.ask is not None:
            self._end_ask()
        else:
            self.dismiss()

    def action_to_table(self) -> None:
        self.query_one(DataTable).focus()

    # -- rename, delete, fork: session_edits.py ---------------------------------------------

    def action_rename(self) -> None:
        session_edits.ask_rename(self)

    def action_delete(self) -> None:
        session_edits.ask_delete(self)

    def action_fork(self) -> None:
        session_edits.pick_fork(self)
