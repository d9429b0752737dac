"""The jobs panel (/jobs, F9): this session's background commands, each with its state and
command, and the tail of the chosen one's output; ``s`` stops it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ...tools.builtin.job_tools import job_plain
from ...tools.jobs import Job, JobTable
from ..sanitize import exact_text

TAIL_LINES = 40
TAIL_BYTES = 16 * 1024
_STATE_STYLES = {"running": "bold cyan", "exited": "green", "stopped": "dim", "failed": "red"}


def job_line(job: Job) -> Text:
    """'1  running  npm run dev': one line, the command cut to it."""
    line = Text(f"{job.id:>2}  ", no_wrap=True, overflow="ellipsis")
    state = job.state if job.running else job.describe_end()
    line.append(f"{state:<12}", _STATE_STYLES.get(job.state, ""))
    line.append("  ")
    line.append_text(exact_text(job.command, one_line=True))
    return line


def job_tail(job: Job, secrets: tuple[str, ...] = ()) -> Text:
    """The last lines of what the job printed, made safe to show."""
    raw = bytes(job.output.data[-TAIL_BYTES:])
    if not raw:
        return Text("(no output yet)" if job.running else "(no output)", "dim")
    lines = job_plain(raw, secrets).rstrip("\n").split("\n")[-TAIL_LINES:]
    return exact_text("\n".join(lines))


class JobsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    JobsScreen { align: center middle; }
    JobsScreen > Vertical {
        width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1;
    }
    JobsScreen OptionList { height: auto; max-height: 40%; }
    JobsScreen #tail { height: 1fr; border-top: solid $panel; }
    JobsScreen #hint { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "stop_job", "Stop job"),
        Binding("escape", "dismiss_screen", "Close"),
    ]

    def __init__(self, table: JobTable, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.table = table
        self.secrets = secrets

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Background jobs", "bold"))
            yield OptionList(id="jobs")
            with VerticalScroll(id="tail"):
                yield Static(id="tail-text")
            yield Static("Up/Down choose · s stop the job · Esc close", id="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.table.listeners.append(self._changed)
        self.refresh_jobs()
        self.set_interval(0.5, self.refresh_tail)  # the output of a running job grows
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        if self._changed in self.table.listeners:
            self.table.listeners.remove(self._changed)

    def _changed(self, job: Job) -> None:
        self.refresh_jobs()

    def refresh_jobs(self) -> None:
        options = self.query_one(OptionList)
        keep = options.highlighted
        options.clear_options()
        jobs = self.table.jobs()
        if not jobs:
            empty = "no background jobs: the model starts one with run_command background: true"
            options.add_option(Option(Text(empty, "dim"), disabled=True))
        for job in jobs:
            options.add_option(Option(job_line(job), id=str(job.id)))
        if jobs:
            options.highlighted = keep if keep is not None and keep < len(jobs) else len(jobs) - 1
        self.refresh_tail()

    def refresh_tail(self) -> None:
        job = self.selected()
        text = job_tail(job, self.secrets) if job is not None else Text("")
        self.query_one("#tail-text", Static).update(text)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_tail()

    def selected(self) -> Job | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return self.table.get(int(option.id)) if option.id is not None else None

    def action_stop_job(self) -> None:
        job = self.selected()
        if job is None or not job.running:
            return
        self.app.notify(f"stopping job {job.id}", markup=False)
        self.app.run_worker(self.table.stop(job), group="stop-job")  # outlives the list

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
