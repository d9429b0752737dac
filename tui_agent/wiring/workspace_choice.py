"""Which workspace a host opens in: the one named (``--workspace``, ``[settings] workspace``,
else the current folder), or, for the offline demo model with none named, its own folder of
sample files (``demo/workspace.py``)."""

from __future__ import annotations

from pathlib import Path

from ..agent.events import Notice
from ..config import Config, ResolvedProfile, resolve_workspace
from .host_options import HostOptions


def host_workspace(
    config: Config, options: HostOptions, profile: ResolvedProfile, notices: list[Notice]
) -> tuple[Path, tuple[Path, ...]]:
    """The workspace, and the folders inside the app's own that tools may use (the demo's).

    The demo model with no workspace named (--workspace, [settings] workspace) works in its
    own folder with sample files (demo/workspace.py), and says where."""
    named = options.workspace is not None or config.settings.workspace is not None
    if not profile.is_demo or named:
        return resolve_workspace(config, options.workspace), ()
    from ..demo.workspace import demo_workspace_notice, open_demo_workspace

    try:
        folder = open_demo_workspace()
    except OSError as exc:
        workspace = resolve_workspace(config)
        why = exc.strerror or str(exc)
        note = f"the demo's own folder cannot be made ({why}): it works in {workspace}"
        notices.append(Notice(note, "warning"))
        return workspace, ()
    notices.append(Notice(demo_workspace_notice(folder)))
    return folder, (folder,)
