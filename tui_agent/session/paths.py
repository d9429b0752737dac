"""The one place that knows where tui-agent keeps its files (platformdirs' user directories).

Nothing here creates a directory except ``ensure_private_dir``: a read-only home must not stop
the app from starting.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

import platformdirs

APP_NAME = "tui-agent"


def data_dir() -> Path:
    """The user data directory (``$XDG_DATA_HOME/tui-agent`` on Linux)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def sessions_dir() -> Path:
    """Where session files live."""
    return data_dir() / "sessions"


def demo_workspace_dir() -> Path:
    """The offline demo's own workspace, with its sample files (``demo/workspace.py``): the
    one folder of the data directory tools may use."""
    return data_dir() / "demo-workspace"


def config_dir() -> Path:
    """The user config directory (``$XDG_CONFIG_HOME/tui-agent`` on Linux)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    """The user log directory."""
    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` as 0700 (missing parents too); tighten it to 0700 if it exists looser.

    Raises OSError when it cannot be created.
    """
    missing = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        # XDG: directories the app creates are 0700 (Path.mkdir(parents=True) would use 0777).
        folder.mkdir(mode=0o700, exist_ok=True)
    info = path.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
    if stat.S_IMODE(info.st_mode) != 0o700:
        # Not ours to change if another user owns it; the files inside are still 0600.
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
    return path


def protected_dirs() -> tuple[Path, ...]:
    """The app's own folders (config, data with the sessions, logs): off limits to tools, all
    but the demo workspace (``ToolContext.unprotected``) when it is the session's workspace."""
    return (config_dir(), data_dir(), log_dir())
