"""Replaying a saved session as it streamed: no tool runs, no request is sent, nothing is written.

- ``ReplayScript.from_records(records, problems=())``: the steps (``Step(delay, event)``, the
  event an AgentEvent or ``UserSent``) the app saw, the raw provider events decoded again.
- ``ReplayPlayer(script, speed=1.0, clock=None)``: ``events()`` at the recorded pace / speed;
  ``pause()``, ``resume()``, ``toggle()``, ``step()``, ``faster()``, ``slower()``,
  ``describe()``.
- ``decision_line(CallDecided)``: "approved by you", "denied: <reason>", ...
- ``was_asked(CallDecided)`` / ``prompt_line(CallDecided)``: whether the user answered a prompt,
  and what the replayed prompt shows in place of its keys.
- ``text_transcript.transcript_text(script, header=())``: the script as plain text, for
  ``tui-agent replay ID --headless`` (no Textual).
"""

from __future__ import annotations

from .decisions import decision_line, prompt_line, was_asked
from .player import Clock, ReplayPlayer
from .script import ReplayEvent, ReplayScript, Step, UserSent

__all__ = [
    "Clock",
    "ReplayEvent",
    "ReplayPlayer",
    "ReplayScript",
    "Step",
    "UserSent",
    "decision_line",
    "prompt_line",
    "was_asked",
]
