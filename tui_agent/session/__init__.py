"""Sessions on disk: one append-only JSONL file per session, in the platform's data folder.

The public face:

- ``SessionStore(directory=None, redactor=None)``: ``create(profile=, protocol=, model=,
  workspace=, title=None) -> SessionWriter``, ``open_for_append(id_or_path) -> SessionWriter``,
  ``resume(id_or_path) -> (LoadedSession, SessionWriter)``, ``load(id_or_path) -> LoadedSession``,
  ``list() -> list[SessionSummary]`` (newest first), ``latest_for_workspace(workspace) -> id|None``,
  ``rename(id, title)``, ``delete(id)``, ``resolve(id_or_path) -> Path``. An id may be a unique
  prefix of one.
- ``SessionWriter``: ``append(record, *, sync=None) -> record as stored``, ``close()``;
  ``degraded`` (a message for the user, or None), ``error``, ``unsaved``, ``path``, ``session_id``.
  It holds the session's lock until closed; ``append`` never raises for I/O.
- ``LoadedSession``: ``header``, ``records`` (after the header, file order), ``problems``
  (lines that were skipped, for the user), ``path``, ``id``, ``title``.
- ``Redactor(secrets)``: ``redact(text)``, ``redact_json(text)``; ``redact_record(record,
  redactor)``, ``redact_session(loaded, redactor)``. The rule for opaque provider data is in
  ``event_redaction``; text that arrives in pieces goes through ``stream_redaction``.
- ``new_session_id()``, ``is_session_path(arg)``; ``paths``: ``sessions_dir()``, ``config_dir()``,
  ``log_dir()``, ``data_dir()``, ``protected_dirs()``, ``ensure_private_dir(path)``.
- Errors (all ``SessionError``): ``SessionNotFoundError``, ``SessionLockedError``,
  ``SessionCorruptError``, ``SessionClosedError``.

Record types are in ``records``.
"""

from __future__ import annotations

from .errors import (
    SessionClosedError,
    SessionCorruptError,
    SessionError,
    SessionLockedError,
    SessionNotFoundError,
)
from .ids import is_session_path, new_session_id
from .loader import LoadedSession, load_session
from .record_redaction import redact_record, redact_session
from .redaction import Redactor
from .store import SessionStore
from .summary import SessionSummary
from .writer import SessionWriter

__all__ = [
    "LoadedSession",
    "Redactor",
    "SessionClosedError",
    "SessionCorruptError",
    "SessionError",
    "SessionLockedError",
    "SessionNotFoundError",
    "SessionStore",
    "SessionSummary",
    "SessionWriter",
    "is_session_path",
    "load_session",
    "new_session_id",
    "redact_record",
    "redact_session",
]
