"""How a finished program is reported to the model: its output, then how it ended."""

from __future__ import annotations

import signal

from .process import ProcessResult
from .spec import ToolOutput


def decode_output(raw: bytes) -> str:
    """Readable text from any bytes: invalid UTF-8 becomes U+FFFD, NUL characters are dropped."""
    return raw.decode("utf-8", "replace").replace("\0", "")


def describe_result(
    result: ProcessResult, *, timeout_s: float, notes: tuple[str, ...] = ()
) -> ToolOutput:
    """The call's result; an error when the program timed out, was killed or exited non-zero."""
    body = decode_output(result.output) or "(no output)"
    if not body.endswith("\n"):
        body += "\n"
    lines: list[str] = []
    if result.dropped_bytes:
        lines.append(
            f"[output truncated: kept the first {len(result.output):,} bytes, "
            f"dropped {result.dropped_bytes:,}]"
        )
    lines.extend(f"[{note}]" for note in notes)
    if result.timed_out:
        lines.append(
            f"[timed out after {timeout_s:g} s; the command and its child processes were stopped]"
        )
    elif result.returncode is not None and result.returncode < 0:
        lines.append(f"[ended by signal {_signal_name(-result.returncode)}]")
    else:
        lines.append(f"[exit code {result.returncode}]")
    if result.stopped_leftovers:
        lines.append("[processes the command left running in the background were stopped]")
    failed = result.timed_out or result.returncode != 0
    return ToolOutput(body + "\n".join(lines), is_error=failed)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
