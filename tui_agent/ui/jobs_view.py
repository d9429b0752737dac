"""Background jobs in the app: /jobs (and F9, and the palette) opens their list; ``/jobs stop N``
and the palette's "Jobs: stop N" stop one (the row is in the actions' table, actions.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from .shell import Entry, Shell

if TYPE_CHECKING:  # the tools load with the session, not with the first screen
    from ..tools.jobs import Job, JobTable


def _table(app: Shell) -> JobTable | None:
    return app.host.agent.calls.context.jobs if app.host is not None else None


def _secrets(app: Shell) -> tuple[str, ...]:
    return app.host.agent.calls.context.secret_values if app.host is not None else ()


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
