"""Sizes as the commands and notices show them (binary units, named as people say them)."""

from __future__ import annotations

_UNITS = ("KB", "MB", "GB", "TB")


def human_bytes(size: int) -> str:
    """``812 bytes``, ``1.5 KB``, ``10 MB``, ``340 MB`` (1 KB = 1,024 bytes)."""
    if size < 1024:
        return f"{size:,} byte{'' if size == 1 else 's'}"
    value = float(size)
    for unit in _UNITS:
        value /= 1024
        if value < 1024 or unit == _UNITS[-1]:
            break
    if value >= 100 or value == int(value):
        return f"{value:,.0f} {unit}"
    return f"{value:.1f} {unit}"
