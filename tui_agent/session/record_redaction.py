"""Redacting a whole record before it is written: every string field, by one rule per kind.

- ``raw`` (the provider's events): ``event_redaction`` (opaque values untouched).
- ``arguments`` (tool call JSON): ``Redactor.redact_json``, so the result stays valid JSON.
- Every other string, including those inside lists, dicts and nested models, is redacted as text:
  ids the provider chose (``id``, ``call_id``, ``response_id``) too, since a provider may put
  anything in them. An id is redacted the same way wherever it is, so a call and its result
  still pair. Only ``type`` (the record's kind, never the provider's) is left alone.

A ``DecisionRecord.digest`` is kept as computed from the arguments that were shown; after
redaction the stored arguments may no longer hash to it, so nothing must re-verify it on resume.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from pydantic import BaseModel

from .event_redaction import redact_events
from .loader import LoadedSession
from .records import RawEvent
from .redaction import Redactor

IDENTIFIER_FIELDS = frozenset({"type"})

M = TypeVar("M", bound=BaseModel)


def redact_record(record: M, redactor: Redactor) -> M:
    """A copy of ``record`` with secrets redacted (``record`` itself when there were none)."""
    updates: dict[str, Any] = {}
    for name in type(record).model_fields:
        if name in IDENTIFIER_FIELDS:
            continue
        value = getattr(record, name)
        new: Any
        if name == "raw" and isinstance(value, list):
            new = _redact_raw(value, redactor)
        elif name == "arguments" and isinstance(value, str):
            new = redactor.redact_json(value)
        else:
            new = _redact_value(value, redactor)
        if new is not value:
            updates[name] = new
    return record.model_copy(update=updates) if updates else record


def redact_session(loaded: LoadedSession, redactor: Redactor) -> LoadedSession:
    """A copy of a loaded session with every record (header too) and problem redacted."""
    return dataclasses.replace(
        loaded,
        header=redact_record(loaded.header, redactor),
        records=[redact_record(record, redactor) for record in loaded.records],
        problems=[redactor.redact(problem) for problem in loaded.problems],
    )


def _redact_raw(events: list[Any], redactor: Redactor) -> list[Any]:
    if not all(isinstance(event, RawEvent) for event in events):
        redacted: list[Any] = _redact_value(events, redactor)
        return redacted
    new = redact_events(events, redactor)
    return events if new is events else new if isinstance(new, list) else list(new)


def _redact_value(value: Any, redactor: Redactor) -> Any:
    """Redact strings anywhere in a value; the same object when nothing changed."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, BaseModel):
        return redact_record(value, redactor)
    if isinstance(value, list):
        items = [_redact_value(item, redactor) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = {key: _redact_value(item, redactor) for key, item in value.items()}
        return value if all(pairs[key] is value[key] for key in value) else pairs
    return value
