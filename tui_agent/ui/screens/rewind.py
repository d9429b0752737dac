"""Rewind to just before one of your messages: pick it, see which files will change (a diff
summary, conflicts named), choose files and conversation / files only / conversation only, and
decide each conflict. Nothing changes before the last choice, and every choice list starts on
its safe answer (Cancel, Keep), so typing into the screen by mistake never rewinds anything.

With ``undo`` the screen offers to undo the session's last rewind instead. The plan is made
and the rewind applied in worker threads (``agent.rewind``); every line shown is sanitized.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...agent import rewind as rw
from ...checkpoints import Limits, Plan, PlannedFile
from ...session import LoadedSession, SessionError
from ..sanitize import visible_line

PREVIEW = 80
CHOICES = {
    "both": "Rewind files and conversation",
    "files": "Rewind files only",
    "conversation": "Rewind conversation only (a new session that ends there)",
    "undo": "Undo the last rewind (its files)",
}


def preview(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= PREVIEW else line[: PREVIEW - 1] + "…"


def plan_lines(plan: Plan) -> Text:
    """What a rewind would do, one line per file, conflicts first."""
    text = Text()
    order = {"conflict": 0, "restore": 1, "delete": 2, "skipped": 3}
    for item in sorted(plan.files, key=lambda f: (order[f.action], f.path)):
        style = {"conflict": "bold yellow", "skipped": "dim"}.get(item.action, "")
        word = {"restore": "restore", "delete": "delete", "conflict": "CONFLICT"}.get(
            item.action, "skip"
        )
        why = f": {item.why}" if item.why else ""
        detail = f" ({item.summary})" if item.summary else ""
        text.append(f"  {word:<9}", style=style)
        text.append(visible_line(f"{item.path}{detail}{why}") + "\n")
    if not plan.files:
        text.append("  no file changes: the files are as they were then\n", style="dim")
    for notice in plan.notices:
        text.append(visible_line(f"  note: {notice}") + "\n", style="dim")
    return text


class RewindScreen(ModalScreen[rw.RewindResult | None]):
    """Dismisses with what was done, or None when nothing was."""

    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    RewindScreen > Vertical {
        width: 90%; height: auto; max-height: 85%; border: round $warning; background: $surface;
        padding: 0 1;
    }
    /* As tall as what it holds: no empty rows above the list while only the list is shown. */
    RewindScreen #rewind-plan { height: auto; max-height: 50vh; }
    RewindScreen #rewind-plan.-empty { display: none; }
    RewindScreen OptionList { height: auto; max-height: 40vh; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, app_host: Any, *, preselect: str | None = None, undo: bool = False) -> None:
        super().__init__()
        self.host = app_host
        self.preselect = preselect
        self.undo = undo
        self.loaded: LoadedSession | None = None
        self.number: int | None = None
        self.plan: Plan | None = None
        self.undoes: str | None = None
        self.step = "load"
        self.choice = ""
        self.conflicts: list[PlannedFile] = []
        self.overwrite: dict[str, bool] = {}
        self._picked: Callable[[str], None] = lambda _key: None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Reading the session…", id="rewind-title")
            with VerticalScroll(id="rewind-plan", classes="-empty"):
                yield Static("", id="rewind-body")
            yield OptionList(id="rewind-options")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._load()

    def _say(self, title: str, body: Text | str = "") -> None:
        self.query_one("#rewind-title", Static).update(Text(title))
        self.query_one("#rewind-body", Static).update(body)
        self.query_one("#rewind-plan").set_class(not str(body), "-empty")

    def _offer(self, options: list[tuple[str, str]], picked: Callable[[str], None]) -> None:
        menu = self.query_one(OptionList)
        menu.clear_options()
        menu.add_options([Option(visible_line(label), id=key) for key, label in options])
        menu.highlighted = 0
        self._picked = picked

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self._picked(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _limits(self) -> Limits:
        """The settings' checkpoint limits: the planner's snapshot keeps them too."""
        limits: Limits = self.host.config.settings.checkpoint_limits()
        return limits

    # -- steps ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="rewind")
    def _load(self) -> None:
        try:
            loaded = self.host.store.load(self.host.writer.session_id)
            plan = None
            if self.undo:
                plan, last = rw.undo_plan(loaded, limits=self._limits())
                self.undoes = last.id
        except SessionError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.loaded = loaded
        if plan is not None:
            self.app.call_from_thread(self._show_plan, plan)
        else:
            self.app.call_from_thread(self._pick_message, rw.user_messages(loaded.records))

    def _failed(self, error: str) -> None:
        self.notify(visible_line(error), severity="error", markup=False)
        self.dismiss(None)

    def _pick_message(self, messages: list[tuple[int, str]]) -> None:
        if not messages:
            self._failed("this session has none of your messages to rewind to")
            return
        self._say("Rewind to just before which of your messages? (Enter picks, Esc cancels)")
        self._offer(
            [(str(n), f"{n:>4}  {preview(text)}") for n, text in messages], self._picked_message
        )
        menu = self.query_one(OptionList)
        menu.highlighted = len(messages) - 1
        if self.preselect is not None:
            for at, (_n, text) in enumerate(messages):
                if text == self.preselect:
                    menu.highlighted = at

    def _picked_message(self, key: str) -> None:
        self.number = int(key)
        self._say(f"Looking at what changed since message {self.number}…")
        self._offer([("cancel", "Cancel")], lambda _key: self.action_cancel())
        self._plan()

    @work(thread=True, exclusive=True, group="rewind")
    def _plan(self) -> None:
        assert self.loaded is not None and self.number is not None
        try:
            plan = rw.plan_to(self.loaded, self.number, limits=self._limits())
        except SessionError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._show_plan, plan)

    def _show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.conflicts = plan.conflicts
        if self.undo:
            title = "Undo the last rewind: these files go back to how they were before it"
            choices = ["undo"]
        else:
            title = (
                f"Rewind to just before message {self.number}. Files that will change "
                f"({plan.checkpoints} checkpoint{'' if plan.checkpoints == 1 else 's'} after it):"
            )
            choices = ["both", "files", "conversation"]
        self._say(title, plan_lines(plan))
        self._offer([("cancel", "Cancel"), *((c, CHOICES[c]) for c in choices)], self._chosen)

    def _chosen(self, key: str) -> None:
        if key == "cancel":
            self.dismiss(None)
            return
        self.choice = key
        if key != "conversation" and self.conflicts:
            self._ask_conflict()
        else:
            self._run()

    def _ask_conflict(self) -> None:
        pending = [c for c in self.conflicts if c.path not in self.overwrite]
        if not pending:
            self._run()
            return
        item = pending[0]
        self._say(
            f"{visible_line(item.path)} {item.why}. Overwrite it with its earlier state "
            f"({visible_line(item.summary)})? ({len(pending)} conflict(s) left)",
            plan_lines(self.plan) if self.plan is not None else "",
        )
        options = [
            ("keep", "Keep it as it is"),
            ("overwrite", "Overwrite it"),
            ("keep-all", "Keep every remaining conflict"),
            ("overwrite-all", "Overwrite every remaining conflict"),
        ]
        self._offer(options, lambda key: self._decided(item, pending, key))

    def _decided(self, item: PlannedFile, pending: list[PlannedFile], key: str) -> None:
        if key.endswith("-all"):
            for each in pending:
                self.overwrite[each.path] = key.startswith("overwrite")
        else:
            self.overwrite[item.path] = key == "overwrite"
        self._ask_conflict()

    def _run(self) -> None:
        self._say("Rewinding…")
        self._offer([], lambda _key: None)
        self._apply()

    @work(thread=True, exclusive=True, group="rewind")
    def _apply(self) -> None:
        assert self.loaded is not None
        files = self.choice in ("both", "files", "undo")
        try:
            result = rw.perform(
                self.host.store,
                self.host.writer,
                self.loaded,
                self.plan if files else None,
                lambda item: self.overwrite.get(item.path, False),
                to=self.number,
                conversation=self.choice in ("both", "conversation"),
                undoes=self.undoes,
                limits=self._limits(),
            )
        except (SessionError, OSError) as exc:
            self.app.call_from_thread(self._failed, f"the rewind failed: {exc}")
            return
        self.app.call_from_thread(self.dismiss, result)
