"""What a rewind would do: for every file the agent changed after a point, the state to go back
to, whether someone else changed it since (a conflict), and a short diff summary.

The changes are read from the session's records after the point, in order: ``checkpoint`` and
``checkpoint_done`` pairs (a file tool's exact states, or two shadow-repository trees whose
difference is what a command changed) and earlier ``rewind`` records. For each path the target
is its state before the first change, and the expected state is the one after the last change:
a file that is no longer in that state was changed by the person or another program since the
agent's last write, and is a conflict, never overwritten without asking.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..session.records import (
    CapturedFile,
    CheckpointDoneRecord,
    CheckpointRecord,
    RewindRecord,
)
from .blobs import MissingBlobError
from .files import Seen, blocked_by, look, matches, read_bytes
from .folder import CheckpointFolder
from .restorer import Change, recover
from .shadow import Limits, ShadowError, ShadowRepo

Action = Literal["restore", "delete", "conflict", "skipped"]
_DIFF_BYTES = 1 << 20


@dataclass
class PlannedFile:
    path: str
    action: Action
    target: CapturedFile
    expected: CapturedFile | None  # None: the state after the agent's last write is unknown
    seen: Seen  # the file now
    why: str = ""  # for a conflict or a skipped file
    summary: str = ""
    data: bytes | None = None  # the target's content (file) or link target (symlink)
    folders: tuple[str, ...] = ()

    @property
    def overwrite_action(self) -> Literal["restore", "delete"]:
        """What resolving a conflict by overwriting does."""
        return "delete" if self.target.kind == "missing" else "restore"

    def change(self) -> Change:
        if self.target.kind == "missing":
            return Change(self.path, "missing", folders=self.folders)
        return Change(self.path, self.target.kind, self.data or b"", self.target.mode)


@dataclass
class Plan:
    files: list[PlannedFile] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    checkpoints: int = 0  # calls and rewinds looked at

    @property
    def conflicts(self) -> list[PlannedFile]:
        return [f for f in self.files if f.action == "conflict"]


@dataclass
class _Path:
    target: CapturedFile
    expected: CapturedFile | None
    unknown_why: str = ""


def _changes(records: Iterable[Any], shadow: ShadowRepo, plan: Plan) -> dict[str, _Path]:
    paths: dict[str, _Path] = {}
    before: dict[str, CheckpointRecord] = {}

    def changed(old: CapturedFile, new: CapturedFile | None, why: str = "") -> None:
        known = paths.get(old.path)
        if known is None:
            paths[old.path] = _Path(old, new, why)
        else:
            known.expected, known.unknown_why = new, why

    for record in records:
        if isinstance(record, CheckpointRecord):
            plan.checkpoints += 1
            before[record.call_id] = record
            if record.notice:
                plan.notices.append(f"{record.tool}: {record.notice}")
            if record.error:
                plan.notices.append(f"{record.tool} was not checkpointed: {record.error}")
        elif isinstance(record, CheckpointDoneRecord):
            start = before.pop(record.call_id, None)
            if start is not None:
                _pair(start, record, shadow, changed, plan)
        elif isinstance(record, RewindRecord):
            plan.checkpoints += 1
            for item in record.files:
                changed(item.before, item.after)
    for start in before.values():  # no state after the call: a crash while it ran
        _pair(start, None, shadow, changed, plan)
    return paths


def _pair(start: CheckpointRecord, done: CheckpointDoneRecord | None, shadow: ShadowRepo,
          changed: Any, plan: Plan) -> None:  # fmt: skip
    unknown = "the agent's call did not finish recording (a crash?), so its result is unknown"
    if start.method == "file":
        after = {f.path: f for f in done.files} if done is not None else {}
        for old in start.files:
            new = after.get(old.path)
            changed(old, new, "" if new is not None else unknown)
        return
    if start.tree is None:
        return
    try:
        if done is None or done.tree is None:
            now = shadow.snapshot()
            if now.tree is not None:
                for old, _new in shadow.changes(start.tree, now.tree, (start.modes, now.modes)):
                    changed(old, None, unknown)
            return
        for old, new in shadow.changes(start.tree, done.tree, (start.modes, done.modes)):
            changed(old, new)
    except ShadowError as exc:
        plan.notices.append(f"{start.tool}: {exc}")


def plan_rewind(
    folder: CheckpointFolder, records: Iterable[Any], limits: Limits | None = None
) -> Plan:
    """The plan for undoing every change recorded in ``records``; reads, never writes the
    workspace (a snapshot may be added to the shadow repository, within ``limits``: the
    settings' checkpoint limits, the defaults when None)."""
    plan = Plan()
    done = recover(folder)
    if done:
        plan.notices.append(done)
    shadow = ShadowRepo(folder, limits)
    with folder.locked():
        paths = _changes(records, shadow, plan)
    git_wanted = [p.target.digest[4:] for p in paths.values() if p.target.digest.startswith("git:")]
    try:
        git_data = shadow.read_blobs(git_wanted) if git_wanted else {}
    except ShadowError as exc:
        plan.notices.append(str(exc))
        git_data = {}
    for rel in sorted(paths):
        item = _plan_file(folder, rel, paths[rel], git_data)
        if item is not None:
            plan.files.append(item)
    return plan


def _plan_file(
    folder: CheckpointFolder, rel: str, change: _Path, git_data: dict[str, bytes]
) -> PlannedFile | None:
    seen, _note = look(folder.workspace, rel)
    target = change.target
    if matches(seen, target):
        return None  # already as it was
    item = PlannedFile(rel, "restore", target, change.expected, seen, folders=tuple(target.folders))
    blocking = blocked_by(folder.workspace, rel) if seen.kind == "other" else ""
    if blocking:  # nothing is ever written through it, so there is nothing to overwrite
        item.action = "skipped"
        item.why = f"{blocking} is now a symbolic link or a file (never followed)"
        return item
    if target.kind in ("other", "uncovered"):
        item.action, item.why = "skipped", "its earlier state was not captured"
        return item
    if target.kind == "missing":
        item.action = "delete"
    else:
        algorithm, _, value = target.digest.partition(":")
        try:
            item.data = folder.blobs.read(value) if algorithm == "sha256" else git_data[value]
        except (MissingBlobError, KeyError):
            item.action, item.why = "skipped", "its earlier content is no longer kept"
            return item
    if seen.kind == "other":
        item.action, item.why = "conflict", "it is now a folder or another kind of file"
    elif change.expected is None:
        item.action, item.why = "conflict", change.unknown_why or "its later state is unknown"
    elif not matches(seen, change.expected):
        item.action, item.why = "conflict", "changed since the agent's last write"
    current = read_bytes(folder.workspace, rel, _DIFF_BYTES) if seen.kind == "file" else None
    item.summary = summary(item, current)
    return item


def summary(item: PlannedFile, current: bytes | None) -> str:
    """A few words on what changes: lines added and removed for text, sizes otherwise."""
    if item.target.kind == "missing":
        return f"made after that point, {item.seen.size:,} bytes"
    if item.seen.kind == "missing":
        return f"deleted after that point, {len(item.data or b''):,} bytes"
    if item.target.kind == "symlink" or item.seen.kind == "symlink":
        return "a symbolic link" if item.target.kind == "symlink" else "a link becomes a file"
    new = item.data or b""
    old = current if item.seen.size <= _DIFF_BYTES and len(new) <= _DIFF_BYTES else None
    if old is None or b"\0" in new[:8192] or b"\0" in old[:8192]:
        return f"binary, {item.seen.size:,} -> {len(new):,} bytes"
    added = removed = 0
    for line in difflib.unified_diff(
        old.decode("utf-8", "replace").splitlines(), new.decode("utf-8", "replace").splitlines(),
        lineterm="", n=0,
    ):  # fmt: skip
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return f"+{added} -{removed} lines" if added or removed else "mode only"
