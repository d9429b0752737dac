"""Times as the commands and the session browser show them."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(ts: float) -> str:
    """``2026-11-29T15:11:05.123Z``: ISO 8601, UTC, milliseconds (sorts as text, too)."""
    moment = datetime.fromtimestamp(ts, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def human_utc(ts: float) -> str:
    """``2026-11-29 15:11:05 UTC``."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def human_local(ts: float) -> str:
    """``2026-11-29 16:11`` in the local time zone, for the session table."""
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M")
