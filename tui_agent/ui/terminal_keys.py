"""Alt+Enter as terminals send it: ESC then CR (or ESC then LF, as foot does).

Where the terminal does not speak the kitty keyboard protocol (tmux, screen, most terminals
over ssh) Alt+Enter arrives as the two bytes ``ESC CR``. Textual reads that as a lone Enter: the
sequence is not in its table, and when it reissues the bytes as keys the Alt of a key from the
tuple branch is dropped (Textual issue #6378). The message box would then send the message the
person meant to break. ``install`` adds the two sequences to Textual's table as ``alt+enter``, so
the key arrives whole and at once; it never replaces an entry Textual already has.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

log = logging.getLogger(__name__)

ALT_ENTER_SEQUENCES = ("\x1b\r", "\x1b\n")


class _Key(StrEnum):
    """A key name for Textual's table (which reads ``.value`` of each entry of a tuple)."""

    ALT_ENTER = "alt+enter"


def install() -> bool:
    """Make ``ESC CR`` and ``ESC LF`` arrive as ``alt+enter``; True when they now do."""
    try:
        from textual import _ansi_sequences

        table: Any = _ansi_sequences.ANSI_SEQUENCES_KEYS
        for sequence in ALT_ENTER_SEQUENCES:
            table.setdefault(sequence, (_Key.ALT_ENTER,))
    except (ImportError, AttributeError, TypeError) as exc:  # a Textual that moved its table
        log.warning("Alt+Enter cannot be told from Enter in this terminal: %s", exc)
        return False
    return True
