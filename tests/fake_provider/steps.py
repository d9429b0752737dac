"""Scripted steps: what one request is answered with, and how the answer goes wrong.

``plan()`` turns a step into a ``Plan``: the status or the SSE body, the byte offsets where the
stream stalls, waits for ``release()`` or is reset, the pacing, and the request expectations.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import wire
from ..wire import Op


@dataclass(frozen=True)
class Status:
    """Answer with this HTTP status instead of a stream (body: a JSON error unless given)."""

    code: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None


@dataclass(frozen=True)
class Stall:
    """Send ``after_bytes`` bytes of the body, then hold the connection open, silent."""

    after_bytes: int


@dataclass(frozen=True)
class HeadersThenSilence(Stall):
    """Send the status line and headers, then nothing."""

    after_bytes: int = 0


@dataclass(frozen=True)
class StallBeforeTerminal:
    """Send all but the last SSE event (the terminal one); the rest after ``server.release()``."""


@dataclass(frozen=True)
class Hold:
    """Send ``after_bytes`` bytes of the body, then the rest only after ``server.release()``."""

    after_bytes: int


@dataclass(frozen=True)
class Reset:
    """Abort the TCP connection (RST) after ``after_bytes`` body bytes; None: before the head."""

    after_bytes: int | None


@dataclass(frozen=True)
class Drip:
    """Write the body ``bytes_per_chunk`` bytes at a time, ``interval_s`` apart."""

    bytes_per_chunk: int = 1
    interval_s: float = 0.01


@dataclass(frozen=True)
class ErrorEvent:
    """After ``after_ops`` ops (None: all), the protocol's mid-stream error event ends the body."""

    message: str = "fake provider: overloaded"
    after_ops: int | None = None


Fault = Status | Stall | StallBeforeTerminal | Hold | Reset | Drip | ErrorEvent


@dataclass(frozen=True)
class ExpectToolResults:
    """The request ends with exactly these tool results: {call id: output substring or None}.

    For ``gemini`` a result is keyed by its functionResponse ``id``, or by ``name`` when the
    call had no id.
    """

    results: Mapping[str, str | None]


Expectation = ExpectToolResults | Callable[[Any], None]
_DEFAULT: Any = object()


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``ops``: a tests/wire.py op list, or the raw body bytes."""

    ops: Sequence[Op] | bytes = ()
    stop: str | None = _DEFAULT
    faults: Sequence[Fault] | Fault = ()
    expect: Sequence[Expectation] | Expectation = ()
    terminal: bool = True
    framing: str | None = None  # "chunked" or "close"; None: the server's default
    headers: Mapping[str, str] = field(default_factory=dict)


def BigArguments(
    size: int = 10_000_000,
    call_id: str = "call_big",
    name: str = "write_file",
    fragment: int = 1 << 20,
) -> list[Op]:
    """Ops for one call whose argument string is exactly ``size`` bytes of JSON."""
    head, tail = '{"content":"', '"}'
    args = head + "x" * (size - len(head) - len(tail)) + tail
    ops: list[Op] = [("call", 0, call_id, name)]
    ops += [("args", 0, args[i : i + fragment]) for i in range(0, len(args), fragment)]
    return [*ops, ("close", 0)]


@dataclass
class Plan:
    """A step made concrete: what is sent, where it stops, and what the request must hold."""

    status: Status | None = None
    body: bytes = b""
    cuts: list[tuple[int, str]] = field(default_factory=list)  # (offset, hold|abort|release)
    reset_before_head: bool = False
    drip: Drip | None = None
    framing: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    expect: list[Expectation] = field(default_factory=list)


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def normalize(step: Reply | Status | bytes | Sequence[Op]) -> Reply:
    """A step may also be written as a bare Status, raw body bytes or an op list."""
    if isinstance(step, Reply):
        return step
    if isinstance(step, Status):
        return Reply(faults=[step])
    return Reply(ops=step)


def last_event_start(body: bytes) -> int:
    """Offset where the body's last SSE event begins (0 if it has only one)."""
    trimmed = body.rstrip(b"\r\n")
    best = 0
    for sep in (b"\n\n", b"\r\n\r\n", b"\r\r"):
        at = trimmed.rfind(sep)
        if at >= 0:
            best = max(best, at + len(sep))
    return best


def plan(protocol: str, step: Reply) -> Plan:
    """Render a step's body for ``protocol`` and place its faults on it."""
    faults = _as_list(step.faults)
    out = Plan(framing=step.framing, headers=step.headers, expect=_as_list(step.expect))
    if step.framing not in (None, "chunked", "close"):
        raise ValueError(f"framing must be 'chunked' or 'close', not {step.framing!r}")
    errors = [f for f in faults if isinstance(f, ErrorEvent)]
    if isinstance(step.ops, bytes | bytearray):
        if errors:
            raise ValueError("ErrorEvent needs an op list, not raw body bytes")
        out.body = bytes(step.ops)
    elif errors:
        ops = list(step.ops)
        k = len(ops) if errors[0].after_ops is None else errors[0].after_ops
        out.body = wire.head(protocol, ops[:k]) + wire.error_event(protocol, errors[0].message)
    else:
        kwargs: dict[str, Any] = {} if step.stop is _DEFAULT else {"stop": step.stop}
        out.body = wire.BUILDERS[protocol](list(step.ops), terminal=step.terminal, **kwargs)
    for fault in faults:
        if isinstance(fault, Status):
            out.status = fault
        elif isinstance(fault, Drip):
            if fault.bytes_per_chunk < 1:
                raise ValueError("Drip.bytes_per_chunk must be at least 1")
            out.drip = fault
        elif isinstance(fault, Stall):
            out.cuts.append((min(fault.after_bytes, len(out.body)), "hold"))
        elif isinstance(fault, Reset):
            if fault.after_bytes is None:
                out.reset_before_head = True
            else:
                out.cuts.append((min(fault.after_bytes, len(out.body)), "abort"))
        elif isinstance(fault, StallBeforeTerminal):
            out.cuts.append((last_event_start(out.body), "release"))
        elif isinstance(fault, Hold):
            out.cuts.append((min(fault.after_bytes, len(out.body)), "release"))
        elif not isinstance(fault, ErrorEvent):
            raise TypeError(f"not a fault: {fault!r}")
    out.cuts.sort(key=lambda cut: (cut[0], cut[1] != "release"))
    return out


def error_body(message: str, code: int) -> bytes:
    """A JSON error body in the shape most providers use."""
    return json.dumps(
        {"error": {"message": message, "type": "fake_provider", "code": code}}
    ).encode()
