"""Every stdio server starts below a lifeline (mcp/lifeline.py) that ends the server's whole tree
when the server exits, when the SDK stops it, and when the app dies, even by SIGKILL.

The SDK starts each server in a new session and kills that group on stop; a server's ``setsid``
daemon leaves the group, and nothing at all happened when the app itself was killed. So the
SDK's spawn function is replaced by one that starts ``python -I -S lifeline.py APP_PID COMMAND
ARGS`` in the server's place (there is no public hook; the replacement keeps the SDK's
arguments, its new session and its pipes). The lifeline is a child subreaper, so every
descendant stays below it, and it has the parent-death signal, so the app's death reaches it.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import shutil
import signal
import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp.client.stdio as stdio_module

from .bounded_stdout import bound_stdout
from .limits import DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH
from .server_cgroup import end_group, new_group

LIFELINE = str(Path(__file__).with_name("lifeline.py"))
_spawned: ContextVar[Spawned | None] = ContextVar("tui_agent_mcp_spawned", default=None)
_running: dict[int, Any] = {}  # lifeline pid -> its process, until it was ended
_groups: dict[int, Path] = {}  # lifeline pid -> its cgroup (as root), until it was ended


@dataclass
class Spawned:
    """What the next spawn in this task reads its stdout with, and the process it made."""

    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    max_depth: int = MAX_DEPTH
    on_refused: Callable[[str], None] | None = None
    processes: list[Any] = field(default_factory=list)


def lifeline_argv(command: str, args: list[str], group: Path | None = None) -> list[str]:
    """The command line that starts ``command`` below a lifeline tied to this process (in the
    cgroup ``group``, when there is one)."""
    joined = ["--group", str(group)] if group is not None else []
    return [sys.executable, "-I", "-S", LIFELINE, str(os.getpid()), *joined, command, *args]


def _check_program(command: str, env: dict[str, str] | None, cwd: Path | str | None) -> None:
    """FileNotFoundError or PermissionError as a direct start would raise them (the lifeline
    starts fine whatever the program is, so the error is found here)."""
    if os.sep in command:
        path = Path(cwd or ".", command) if not os.path.isabs(command) else Path(command)
        if not path.exists():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)
        if path.is_dir() or not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command)
        return
    search = (env or {}).get("PATH", os.defpath)
    if shutil.which(command, path=search) is None:
        found = shutil.which(command, mode=os.F_OK, path=search)
        code = errno.EACCES if found else errno.ENOENT
        error = PermissionError if found else FileNotFoundError
        raise error(code, os.strerror(code), command)


async def spawn(
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    errlog: TextIO = sys.stderr,
    cwd: Path | str | None = None,
) -> Any:
    """The SDK's spawn, with the server below a lifeline."""
    _check_program(command, env, cwd)
    group = new_group()
    try:
        process = await anyio.open_process(
            lifeline_argv(command, list(args), group),
            env=env,
            stderr=errlog,
            cwd=cwd,
            start_new_session=True,
        )
    except BaseException:
        if group is not None:
            end_group(group)
        raise
    if group is not None:
        _groups[process.pid] = group
    box = _spawned.get() or Spawned()
    bound_stdout(process, box.max_message_bytes, box.max_depth, box.on_refused)
    box.processes.append(process)
    _running[process.pid] = process
    return process


def _install() -> None:
    if sys.platform == "win32" or stdio_module._create_platform_compatible_process is spawn:
        return
    stdio_module._create_platform_compatible_process = spawn
    atexit.register(kill_all)


def recorder(box: Spawned) -> Spawned:
    """Let ``box`` receive the process spawned next in this task (and bound its stdout)."""
    _install()
    _spawned.set(box)
    return box


def end(process: Any) -> None:
    """Tell the lifeline to SIGKILL everything below it (its own exit follows); nothing when it
    has ended already (its pid may be another process's by now). As root, whatever is left in
    its cgroup is killed too (all of it, if the lifeline itself was killed)."""
    pid = getattr(process, "pid", -1)
    _running.pop(pid, None)
    if getattr(process, "returncode", 0) is None:
        with contextlib.suppress(OSError):
            os.kill(process.pid, signal.SIGUSR1)
    group = _groups.pop(pid, None)
    if group is not None:
        end_group(group)


def kill_all() -> None:
    for process in list(_running.values()):
        end(process)
