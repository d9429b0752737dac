"""One record, one line: how a record becomes bytes on disk and how a line becomes a record."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from ..stream import jsonparse
from .records import RawEvent, Record

BOM = b"\xef\xbb\xbf"
_BATCH = 1024  # raw events encoded at a time: about 150-250 KB of JSON for tiny events
# The writer puts "ts" then "type" first (field order), so a line's type can be read cheaply.
_TYPE_SNIFF = re.compile(rb'\{"ts":[-+0-9.eE]{1,32},"type":"([a-z_]{1,32})"')


@functools.cache
def record_adapter() -> TypeAdapter[Record]:
    """Every record type's validator, built by the first line read: the schemas of ~20 record
    models cost ~50 ms, which a new session's opening (it only writes) does not pay."""
    return TypeAdapter(Record)


class LineError(ValueError):
    """A line that holds no usable record; the message says why."""


def encode_line(record: Any) -> bytes:
    """The record as one JSON line ending in a newline (JSON escapes any newline inside)."""
    try:
        return record.model_dump_json().encode() + b"\n"  # type: ignore[no-any-return]
    except PydanticSerializationError:
        # Lone surrogates (model text the stdlib parser let through) are not UTF-8; JSON can
        # still carry them as \ud800 escapes, which the loader reads back as they were.
        plain = record.model_dump(mode="python")
        return json.dumps(plain, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def encode_pieces(record: Any) -> Iterator[bytes]:
    """The same record as ``encode_line``, as pieces of one line (``_BATCH`` raw events each).

    A record's raw events (up to a turn's limit, tens of MB) are encoded a batch at a time after
    the rest of the record, so the line is never built whole. Everything but the raw events is
    encoded first: what can fail to encode fails before the first piece.
    """
    raw = getattr(record, "raw", None)
    if not isinstance(raw, list) or not raw or not all(isinstance(e, RawEvent) for e in raw):
        yield encode_line(record)
        return
    head = encode_line(record.model_copy(update={"raw": []}))
    if not head.endswith(b',"raw":[]}\n'):  # the encoder's fallback form: keep it whole
        yield encode_line(record)
        return
    yield head[: -len(b"]}\n")]
    for at in range(0, len(raw), _BATCH):
        batch = [{"t": e.t, "event": e.event, "data": e.data} for e in raw[at : at + _BATCH]]
        try:
            piece = orjson.dumps(batch)
        except TypeError:  # a lone surrogate: escaped, as encode_line's fallback does
            piece = json.dumps(batch, ensure_ascii=True, separators=(",", ":")).encode()
        yield (b"," if at else b"") + piece[1:-1]
    yield b"]}\n"


def clean_line(line: bytes) -> bytes:
    """A line without a leading BOM and without NULs or blanks around it."""
    line = line.strip(b"\x00 \t\r")
    while line.startswith(BOM):
        line = line[len(BOM) :].strip(b"\x00 \t\r")
    return line


def sniff_type(line: bytes) -> str | None:
    """The record type named at the start of a line our writer wrote, without parsing it."""
    match = _TYPE_SNIFF.match(line, 0, 96)
    return match.group(1).decode() if match else None


def decode_line(line: bytes) -> tuple[Record, bool]:
    """Parse one cleaned line; returns the record and whether invalid UTF-8 had to be replaced.

    Raises LineError when the line is not a record.
    """
    replaced = False
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            text = line.decode()
        except UnicodeDecodeError:
            text = line.decode(errors="replace")
            replaced = True
        try:
            value = jsonparse.loads(text)
        except ValueError:
            raise LineError("torn or corrupt record") from None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise LineError("not a record")
    try:
        return record_adapter().validate_python(value), replaced
    except ValidationError as exc:
        kinds = {str(error["type"]) for error in exc.errors()}
        if "union_tag_invalid" in kinds:
            raise LineError(f"unknown record type {value['type']!r}") from None
        raise LineError(f"invalid {value['type']} record") from None
