"""The session store: a folder of session files, each named by its id."""

from __future__ import annotations

import builtins
import contextlib
import os
import time
from pathlib import Path

from .errors import SessionError, SessionLockedError, SessionNotFoundError
from .ids import is_session_path, is_valid_session_id, new_session_id
from .loader import LoadedSession, load_session
from .paths import sessions_dir
from .records import HeaderRecord, NoteRecord
from .redaction import Redactor
from .summary import SessionSummary, same_workspace, summarize
from .writer import SessionWriter, is_held, lock_fd

SUFFIX = ".jsonl"


class SessionStore:
    """Create, open, load, list, rename and delete sessions in ``directory``.

    ``directory`` defaults to the platform's data folder (``paths.sessions_dir()``); it is made
    (0700) on the first ``create``. Every writer redacts with ``redactor``.
    """

    def __init__(self, directory: Path | None = None, redactor: Redactor | None = None) -> None:
        self.directory = directory if directory is not None else sessions_dir()
        self.redactor = redactor if redactor is not None else Redactor()
        self._summaries: dict[Path, tuple[int, int, SessionSummary]] = {}

    def resolve(self, id_or_path: str) -> Path:
        """The file of a session given by id, unique id prefix, or path."""
        if is_session_path(id_or_path):
            return Path(id_or_path).expanduser()
        if not is_valid_session_id(id_or_path):
            raise SessionNotFoundError(f"{id_or_path!r} is not a session id")
        exact = self.directory / (id_or_path + SUFFIX)
        if exact.is_file():
            return exact
        try:
            # Ids hold no glob characters (is_valid_session_id), so this is a plain prefix match.
            matches = sorted(self.directory.glob(id_or_path + "*" + SUFFIX))
        except OSError:
            matches = []
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise SessionNotFoundError(
                f"{id_or_path!r} matches {len(matches)} sessions; give more of the id"
            )
        raise SessionNotFoundError(f"no session {id_or_path!r}")

    def create(
        self,
        *,
        profile: str,
        protocol: str,
        model: str,
        workspace: str,
        title: str | None = None,
        base_url: str | None = None,
        api_key_env: str | None = None,
    ) -> SessionWriter:
        """Start a new session; its header is written (or kept in memory, if the disk refuses)."""
        while True:
            session_id = new_session_id()
            now = time.time()
            header = HeaderRecord(
                ts=now,
                id=session_id,
                created=now,
                profile=profile,
                protocol=protocol,
                model=model,
                workspace=workspace,
                title=title,
                base_url=base_url,
                api_key_env=api_key_env,
            )
            path = self.directory / (session_id + SUFFIX)
            with contextlib.suppress(FileExistsError):  # an id taken: draw another
                return SessionWriter.create(path, header, self.redactor)

    def open_for_append(self, id_or_path: str) -> SessionWriter:
        """Take the session for writing; SessionLockedError if another process has it."""
        path = self.resolve(id_or_path)
        try:
            return SessionWriter.open(path, path.stem, self.redactor)
        except (FileNotFoundError, IsADirectoryError):
            raise SessionNotFoundError(f"no session file at {path}") from None

    def load(self, id_or_path: str) -> LoadedSession:
        """Read a session (without taking it for writing)."""
        return load_session(self.resolve(id_or_path))

    def resume(self, id_or_path: str) -> tuple[LoadedSession, SessionWriter]:
        """Take the session for writing, then read it: nothing can be appended in between."""
        writer = self.open_for_append(id_or_path)
        try:
            return load_session(writer.path), writer
        except BaseException:
            writer.close()
            raise

    def list(self) -> builtins.list[SessionSummary]:
        """Every readable session, most recently updated first."""
        try:
            paths = [p for p in self.directory.glob("*" + SUFFIX) if p.is_file()]
        except OSError:
            return []
        found = []
        for path in paths:
            summary = self._summary(path)
            if summary is not None:
                found.append(summary)
        found.sort(key=lambda s: (s.updated, s.created, s.id), reverse=True)
        return found

    def _summary(self, path: Path) -> SessionSummary | None:
        try:
            info = path.stat()
        except OSError:
            return None
        cached = self._summaries.get(path)
        if cached is not None and cached[:2] == (info.st_mtime_ns, info.st_size):
            return cached[2]
        summary = summarize(path)
        if summary is not None:
            self._summaries[path] = (info.st_mtime_ns, info.st_size, summary)
        return summary

    def latest_for_workspace(self, workspace: str) -> str | None:
        """The id of the most recently updated session started in ``workspace``."""
        for summary in self.list():
            if same_workspace(summary.workspace, workspace):
                return summary.id
        return None

    def is_open(self, path: Path) -> bool:
        """Whether the session file is open for writing (in this process or another) now; True
        when that cannot be told."""
        return is_held(path)

    def rename(self, session_id: str, title: str) -> None:
        """Give a session a title (a ``rename`` note; the file stays append-only).

        A session open in this process is renamed through its own writer instead.
        """
        with self.open_for_append(session_id) as writer:
            writer.append(NoteRecord(kind="rename", text=title), sync=True)
            if writer.error is not None:
                raise SessionError(f"cannot rename session {session_id}: {writer.error}")

    def delete(self, session_id: str) -> None:
        """Delete a session file; refused while another process has the session open."""
        if is_session_path(session_id):
            raise SessionNotFoundError(f"{session_id!r} is not a session id")
        path = self.resolve(session_id)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise SessionError(f"cannot delete session {session_id}: {exc.strerror}") from None
        try:
            lock_fd(fd, session_id)
        except SessionLockedError:
            os.close(fd)
            raise SessionLockedError(
                f"cannot delete session {session_id}: it is open in another tui-agent process"
            ) from None
        try:
            # Unlinked while locked, so no writer can open it between our check and the unlink.
            path.unlink()
        except OSError as exc:
            raise SessionError(f"cannot delete session {session_id}: {exc.strerror}") from None
        finally:
            os.close(fd)
            self._summaries.pop(path, None)
