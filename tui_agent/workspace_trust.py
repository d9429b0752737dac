"""Which content of a workspace the person trusted, by keypress after seeing it: the one store for
every kind (its instructions, prompt templates, MCP servers, hooks, skills and agents; ``KINDS``).

Per workspace folder and per kind, the SHA-256 of the content as it was shown and accepted: changed
content is not trusted until it was shown and accepted again. One JSON file in the app's data
folder, written whole and atomically under a lock. The files of earlier versions (one per kind)
are still read, so what was trusted there stays trusted.

Also the one rule for where a workspace's content may come from: a file or folder it offers must
resolve inside the workspace (``inside_workspace``); a symlink leading out is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .session.paths import data_dir, ensure_private_dir

STORE_FILE = "trusted_workspaces.json"
KINDS = ("instructions", "templates", "mcp", "hooks", "skills", "agents")
_EARLIER = {"mcp": "trusted_mcp_workspaces.json", "templates": "trusted_command_workspaces.json"}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _known() -> dict[str, dict[str, str]]:
    known: dict[str, dict[str, str]] = {}
    for kind, name in _EARLIER.items():
        for folder, digest in _read_json(data_dir() / name).items():
            known.setdefault(str(folder), {})[kind] = str(digest)
    for folder, parts in _read_json(data_dir() / STORE_FILE).items():
        if isinstance(parts, dict):
            mine = known.setdefault(str(folder), {})
            mine.update({str(k): str(v) for k, v in parts.items() if k in KINDS})
    return known


def trusted_digest(workspace: Path, kind: str) -> str | None:
    """The digest of ``kind`` the person trusted for ``workspace``, if any."""
    return _known().get(str(workspace), {}).get(kind)


def is_trusted(workspace: Path, kind: str, digest: str) -> bool:
    return trusted_digest(workspace, kind) == digest


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    fd = os.open(folder / ".trust.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def trust(workspace: Path, parts: Mapping[str, str]) -> None:
    """Remember that the person trusted exactly these digests (by kind) for ``workspace``."""
    unknown = set(parts) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown kinds of workspace content: {sorted(unknown)}")
    folder = ensure_private_dir(data_dir())
    with _locked(folder):
        known = {k: v for k, v in _read_json(folder / STORE_FILE).items() if isinstance(v, dict)}
        known.setdefault(str(workspace), {}).update(parts)
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".trust-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(known, out, indent=1, sort_keys=True)
            os.replace(temp, folder / STORE_FILE)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


def inside_workspace(path: Path, workspace: Path) -> bool:
    """Whether ``path`` (which may not exist) resolves inside ``workspace``: a symlink on the way
    that leads out of it (or a loop) makes it False."""
    try:
        return path.resolve(strict=False).is_relative_to(workspace.resolve(strict=False))
    except (OSError, RuntimeError, ValueError):
        return False
