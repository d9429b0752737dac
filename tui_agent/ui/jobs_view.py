"""Background jobs in the app: /jobs (and F9, and the palette) opens their list; ``/jobs stop N``
and the palette's "Jobs: stop N" stop one (its row of the actions' table: ``JOBS``, listed in
actions.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from .shell import Action, Entry, Key, Shell

if TYPE_CHECKING:  # the tools load with the session, not with the first screen
    from ..tools.jobs import Job, JobTable
    from ..wiring.host import SessionHost


def _table(app: Shell) -> JobTable | None:
    return app.host.agent.calls.context.jobs if app.host is not None else None


def _secrets(app: Shell) -> tuple[str, ...]:
    return app.host.agent.calls.context.secret_values if app.host is not None else ()


def attach_jobs(app: Shell, host: SessionHost) -> None:
    """The status line counts the session's running jobs, and a job that ends says so in the
    transcript (for as long as its session is the one shown)."""
    from .widgets.status_bar import StatusBar

    table = host.agent.calls.context.jobs
    if table is None:
        return

    def changed(job: Job) -> None:
        if app.host is not host:
            return  # its session was closed or switched away from
        running = len(table.running())
        plural = "s" if running != 1 else ""
        app.query_one(StatusBar).jobs = f"{running} job{plural}" if running else ""
        ended = job.task is not None and job.task.done()
        if ended and table.get(job.id) is job:  # one that never started was told by its call
            from .widgets.transcript import Transcript

            app.query_one(Transcript).add_notice(
                f"background job {job.id} ended ({job.describe_end()}): {job.command}", "info"
            )

    table.listeners.append(changed)
    app.query_one(StatusBar).jobs = ""


def jobs(app: Shell, arguments: str) -> object:
    """/jobs: the list; /jobs stop N: stop job N."""
    table = _table(app)
    if table is None:
        return None
    word, _, rest = arguments.strip().partition(" ")
    if word == "stop":
        return stop(app, table, rest.strip())
    if word:
        app.notify(f"/jobs takes nothing or 'stop N', not {word!r}", severity="warning")
        return None
    from .screens.jobs import JobsScreen

    app.push_screen(JobsScreen(table, _secrets(app)))
    return None


def stop(app: Shell, table: JobTable, which: str) -> object:
    job = table.get(int(which)) if which.isdigit() else None
    if job is None:
        app.notify(f"there is no background job {which or '(give its number)'}", markup=False)
        return None
    if not job.running:
        app.notify(f"job {job.id} has ended ({job.describe_end()})", markup=False)
        return None
    return _stopped(app, table, job)


async def _stopped(app: Shell, table: JobTable, job: Job) -> None:
    await table.stop(job)
    app.notify(f"job {job.id} stopped", markup=False)


def job_entries(app: Shell) -> Iterator[Entry]:
    table = _table(app)
    for job in table.running() if table is not None else ():
        yield Entry(f"Jobs: stop {job.id}", f"Stop background job {job.id}", f"stop {job.id}")


def job_choices(app: Shell, typed: str) -> Iterable[tuple[str, str]]:
    table = _table(app)
    running = table.running() if table is not None else []
    return [(f"stop {job.id}", f"stop job {job.id}") for job in running]


# Its row of the actions' table (actions.py).
JOBS = Action(
    "jobs",
    "the background commands: state, command and output; /jobs stop N stops one",
    jobs,
    Key("f9", "Jobs", show=False),
    palette=(Entry("Background jobs", "The background commands and their output (/jobs)"),),
    entries=job_entries,
    usage="[stop N]",
    complete=job_choices,
    needs_session=True,
)
