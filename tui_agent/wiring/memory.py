"""Memory: a message the person types starting with ``# `` is saved as one line of an AGENTS.md
(the workspace's, or their own in the config folder) instead of being sent, after they saw the
change as a diff. Only the person's typed message gets here (``ui/memory.py``), never model
output.

The person's own AGENTS.md (``user_agents_file``) is always sent (``setup.system_prompt``). The
workspace's goes through the workspace trust (``workspace_content``): when the app writes the
line the person confirmed into a file that was trusted (or sent with --trust-workspace), or
that it creates, the new content is trusted as it is now, so their own line never makes it ask
again. A file that was not trusted stays so: the rest of it was never shown.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from pathlib import Path

from ..session.paths import config_dir
from ..workspace_trust import inside_workspace, is_trusted, trust
from .workspace_content import AGENTS_FILE, AGENTS_FILE_LIMIT, Instructions, read_workspace_content

WORKSPACE = "workspace"
USER = "user"


def user_agents_file() -> Path:
    return config_dir() / AGENTS_FILE


def memory_line(text: str) -> str | None:
    """The line to remember, when ``text`` starts with ``#`` and a space; else None."""
    if not text.startswith(("# ", "#\t")):
        return None
    line = " ".join(text[1:].split())
    return line or None


def read_text(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(AGENTS_FILE_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def with_line(old: str, line: str) -> str:
    """``old`` with ``line`` appended as a bullet."""
    if old and not old.endswith("\n"):
        old += "\n"
    return f"{old}- {line}\n"


def memory_diff(label: str, old: str, new: str) -> list[str]:
    return list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), fromfile=label, tofile=label, lineterm=""
        )
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".agents-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o777)
        else:
            os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


class MemoryError_(Exception):
    """Why the line could not be saved (for the person)."""


def save_line(workspace: Path, target: str, line: str, trust_all: bool = False) -> Path:
    """Append ``line`` to the target's AGENTS.md; the workspace's new content is trusted when
    the old was (or ``trust_all``: --trust-workspace) or the file is new. Returns the path.
    Raises ``MemoryError_`` for the person."""
    if target == USER:
        path = user_agents_file()
        try:
            _write(path, with_line(read_text(path), line))
        except OSError as exc:
            raise MemoryError_(f"cannot write {path}: {exc.strerror or exc}") from exc
        return path
    path = workspace / AGENTS_FILE
    if not inside_workspace(path, workspace):
        raise MemoryError_(f"{path} leads outside the workspace (a symlink): not written")
    before = read_workspace_content(workspace).instructions
    keep = before is None or trust_all or is_trusted(workspace, "instructions", before.digest)
    try:
        _write(path, with_line(before.text if before is not None else "", line))
    except OSError as exc:
        raise MemoryError_(f"cannot write {path}: {exc.strerror or exc}") from exc
    after = read_workspace_content(workspace).instructions
    if keep and after is not None:
        trust(workspace, {"instructions": after.digest})
    return path


def workspace_instructions(workspace: Path, trust_all: bool) -> Instructions | None:
    """The workspace's AGENTS.md as it is now, when it is sent."""
    instructions = read_workspace_content(workspace).instructions
    if instructions is None:
        return None
    if trust_all or is_trusted(workspace, "instructions", instructions.digest):
        return instructions
    return None
