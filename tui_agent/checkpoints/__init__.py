"""Checkpoints and rewind: what an approved call may change is captured before it runs, so the
person can go back to the state before any of their messages.

The public face:

- ``Checkpointer(workspace, root=None, limits=None)``: ``capture_files(call_id, tool, paths)``
  and ``files_after(call_id, paths)`` (the file tools), ``snapshot(call_id, tool)`` and
  ``snapshot_after(call_id)`` (other tools: the shadow repository); each returns the session
  record to append and never raises.
- ``plan_rewind(folder, records) -> Plan``: what undoing the changes in ``records`` would do
  (``PlannedFile``: path, action restore/delete/conflict/skipped, why, summary).
- ``apply(folder, changes, on_commit)``: the restorer (atomic per file, journaled);
  ``recover(folder)`` finishes or undoes a rewind a crash interrupted.
- ``CheckpointFolder(workspace, root=None)``: where a workspace's checkpoints are kept.
- ``prune.prune(keep_days, dry_run=...) -> PruneReport``: removes what no kept session refers to
  (``references.py`` reads the sessions, ``shadow_gc.py`` the git side); ``inventory.inventory``
  lists the folders (``tui-agent checkpoints``); ``daily.start_daily_prune(keep_days)`` prunes
  in a thread at most once a day.

Nothing here imports the agent, the tools or Textual; records are in ``session.records``.
"""

from __future__ import annotations

from .capture import Checkpointer
from .folder import CheckpointFolder
from .planner import Plan, PlannedFile, plan_rewind
from .restorer import apply, recover
from .shadow import Limits

__all__ = [
    "CheckpointFolder",
    "Checkpointer",
    "Limits",
    "Plan",
    "PlannedFile",
    "apply",
    "plan_rewind",
    "recover",
]
