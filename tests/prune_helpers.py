"""Prune tests' shared pieces: a workspace whose real tools ran through the checkpoint hook, real
session files (the store's own writer) holding what each session's calls recorded, and clocks
turned back by setting modification times."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tui_agent.agent import rewind as rw
from tui_agent.agent.call_checkpoints import CallCheckpoints
from tui_agent.agent.recorder import SessionRecorder
from tui_agent.checkpoints import Checkpointer
from tui_agent.checkpoints.prune import PruneReport, prune
from tui_agent.checkpoints.shadow import ShadowRepo
from tui_agent.checkpoints.shadow_gc import ShadowGc
from tui_agent.session import SessionStore
from tui_agent.session.records import CheckpointRecord, UserRecord

from .checkpoint_helpers import Bench

DAY = 86_400.0


class World:
    """A workspace ``ws``, its checkpoints under ``checkpoints``, sessions under ``sessions``
    (or the folders given: the data folder's, for the command line)."""

    def __init__(
        self, root: Path, *, checkpoints: Path | None = None, sessions: Path | None = None
    ) -> None:
        self.bench = bench = Bench(root)
        if checkpoints is not None:
            bench.checkpoints_root = checkpoints
            bench.checkpointer = Checkpointer(bench.workspace, root=checkpoints)
            bench.hook = CallCheckpoints(bench.checkpointer, SessionRecorder(bench.kept))
        self.workspace = bench.workspace
        self.root = bench.checkpoints_root
        self.sessions = sessions if sessions is not None else root / "sessions"
        self.store = SessionStore(self.sessions)

    @property
    def folder(self) -> Any:
        return self.bench.folder

    async def session(self, *calls: tuple[str, dict[str, Any]]) -> str:
        """A saved session: one message of the person's, then ``calls`` run and recorded."""
        start = len(self.bench.kept.records)
        for name, arguments in calls:
            await self.bench.call(name, json.dumps(arguments))
        with self.store.create(
            profile="p", protocol="openai-chat", model="m", workspace=str(self.workspace)
        ) as writer:
            writer.append(UserRecord(text="change the files"))
            for record in self.bench.kept.records[start:]:
                writer.append(record)
        return writer.session_id

    def path(self, session: str) -> Path:
        return self.store.resolve(session)

    def age(self, session: str, days: float) -> None:
        """The session was last changed ``days`` ago."""
        when = time.time() - days * DAY
        os.utime(self.path(session), (when, when))

    def age_checkpoints(self, hours: float = 2) -> None:
        """Everything in the checkpoints folder was written ``hours`` ago (past the grace)."""
        when = time.time() - hours * 3600
        for folder, dirs, files in os.walk(self.root):
            for name in dirs + files:
                os.utime(os.path.join(folder, name), (when, when), follow_symlinks=False)

    def prune(self, keep_days: int = 30, **options: Any) -> PruneReport:
        return prune(keep_days, root=self.root, sessions=self.sessions, **options)

    def blobs_of(self, session: str) -> set[str]:
        found = set()
        for record in self.store.load(session).records:
            if isinstance(record, CheckpointRecord):
                found |= {f.digest[7:] for f in record.files if f.digest.startswith("sha256:")}
        return found

    def trees_of(self, session: str) -> set[str]:
        return {
            r.tree
            for r in self.store.load(session).records
            if getattr(r, "tree", None) and r.type in ("checkpoint", "checkpoint_done")
        }

    def kept_blobs(self) -> set[str]:
        root = self.folder.blobs.root
        if not root.exists():
            return set()
        return {p.parent.name + p.name for p in root.glob("*/*") if not p.name.startswith(".")}

    def present(self, objects: set[str]) -> set[str]:
        gc = ShadowGc(ShadowRepo(self.folder))
        return set(gc.present(objects)) if gc.exists() else set()

    def rewind(self, session: str) -> rw.RewindResult:
        """The real rewind path: the session's files back to before its message 1."""
        loaded = self.store.load(session)
        plan = rw.plan_to(loaded, 1, self.root)
        with self.store.open_for_append(session) as writer:
            return rw.apply_plan(
                rw.folder_of(loaded, self.root),
                plan,
                lambda _item: False,
                lambda record: writer.append(record, sync=True),
                to=1,
            )


def write(path: str, content: str) -> tuple[str, dict[str, Any]]:
    return "write_file", {"path": path, "content": content}


def command(line: str) -> tuple[str, dict[str, Any]]:
    return "run_command", {"command": line}
