"""Turn a policy into what starting one command needs: the child's setup and environment.

A confined command gets a private temporary folder (``TMPDIR``, ``TMP``, ``TEMP``), writable
in every mode and removed when the call ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from .detect import Capabilities, detect
from .git_guard import guarded_paths
from .host_view import host_view
from .launch import FORK_REFUSALS, Plan, preexec
from .memory_cgroup import counter, memory_group, memory_parent
from .pids_cgroup import pids_group, pids_parent
from .policy import SandboxMode, SandboxPolicy, denied_real_paths
from .rules import policy_rules
from .seccomp import network_filter
from .spawner import Spawn, spawner


@dataclass(frozen=True)
class Launch:
    """``preexec``: None when the command runs unconfined; ``env``: variables to add;
    ``spawn``: how an asyncio caller starts the confined program (the fork server's way, or
    a fork of the app with ``preexec``: see spawner.py); None when unconfined."""

    preexec: Callable[[], None] | None
    env: dict[str, str]
    report_fd: int = -1
    pids_events: str = ""  # the call's pids group's pids.events ("" without one)
    memory_events: str = ""  # the call's memory group's OOM counter file ("" without one)
    max_processes: int = 0
    memory_mb: int = 0
    write_mb: int = 0
    spawn: Spawn | None = None
    _reported: list[bytes] = field(default_factory=list)

    def _reports(self) -> bytes:
        """What the init wrote on the report pipe (read once, after the command ended): b"L"
        it stopped processes left running, b"W" it stopped the command at the write quota."""
        if not self._reported:
            data = b""
            if self.report_fd >= 0:
                try:
                    data = os.read(self.report_fd, 16)
                except OSError:
                    data = b""
            self._reported.append(data)
        return self._reported[0]

    def limits_hit(self) -> tuple[str, ...]:
        """Why the sandbox stopped the command at a limit (ask once, after it ended, while the
        groups still exist): as many forks refused as a fork bomb makes, an OOM kill."""
        stopped = []
        if counter(self.pids_events, "max") >= FORK_REFUSALS:
            stopped.append(f"stopped: it tried to run more than {self.max_processes} processes")
        if counter(self.memory_events, "oom_kill"):
            stopped.append(f"stopped: it used more than {self.memory_mb} MiB of memory in total")
        if b"W" in self._reports():
            stopped.append(f"stopped: it wrote more than {self.write_mb} MiB in the workspace")
        return tuple(stopped)

    def stopped_leftovers(self) -> bool:
        """True when the sandbox stopped processes the command left running (ask once, after
        the command ended)."""
        return b"L" in self._reports()


@contextlib.contextmanager
def confinement(
    policy: SandboxPolicy,
    workspace: Path,
    protected: tuple[Path, ...] = (),
    capabilities: Capabilities | None = None,
    unprotected: tuple[Path, ...] = (),
) -> Iterator[Launch]:
    """What to start the command with; the private temporary folder lives as long as this."""
    if not policy.confined:
        yield Launch(None, {})
        return
    caps = capabilities if capabilities is not None else detect()
    private = tempfile.mkdtemp(prefix="tui-agent-sandbox-")
    report_read, report_write = os.pipe()
    os.set_blocking(report_read, False)
    try:
        plan = plan_for(policy, workspace, protected, caps, private, unprotected)
        # The launcher and the init count too: the command itself keeps max_processes.
        with (
            pids_group(policy.max_processes + 2, pids_parent()) as procs,
            memory_group(policy.memory_mb, memory_parent(), procs) as memory,
        ):
            plan = replace(
                plan,
                report_fd=report_write,
                pids_procs=procs,
                memory_procs=memory.procs,
                memory_events=memory.events,
            )
            pids_events = os.path.join(os.path.dirname(procs), "pids.events") if procs else ""
            setup = preexec(plan)
            yield Launch(
                setup,
                _tmp(private),
                report_read,
                pids_events,
                memory.events,
                policy.max_processes,
                policy.memory_mb,
                policy.write_mb,
                spawner(plan, report_write, setup),
            )
    finally:
        os.close(report_write)
        os.close(report_read)
        _remove_later(private)


def _remove_later(private: str) -> None:
    """Remove the private folder off the call's path: on a busy disk even an empty folder's
    rmdir can take milliseconds, and a full one much longer. Nothing runs in it any more."""
    threading.Thread(
        target=shutil.rmtree, args=(private,), kwargs={"ignore_errors": True}, daemon=True
    ).start()


def plan_for(
    policy: SandboxPolicy,
    workspace: Path,
    protected: tuple[Path, ...],
    caps: Capabilities,
    private: str,
    unprotected: tuple[Path, ...] = (),
) -> Plan:
    denied = denied_real_paths(policy.denied, tuple(protected))
    writable: tuple[str, ...] = (os.path.realpath(workspace), os.path.realpath(private))
    if policy.mode is SandboxMode.READ_ONLY:
        writable = (writable[1],)
    # The demo workspace is readable though it lies in the (denied) data folder; the rest of
    # that folder stays denied: Landlock grants a folder and all beneath it, nothing above.
    readable = tuple(os.path.realpath(folder) for folder in unprotected)
    # The workspace's git folders: a read-only bind mount in the command's mount namespace, or,
    # with Landlock alone, left out of the workspace's write grant (git_guard.py).
    write_mode = policy.mode is SandboxMode.WORKSPACE_WRITE and policy.protect_git
    guarded, links = guarded_paths(writable[0]) if write_mode else ((), ())
    by_rules = links if caps.namespaces else (*guarded, *links)
    rules = policy_rules(writable, denied, readable, by_rules) if caps.landlock_abi else []
    real_workspace = os.path.realpath(workspace)
    view = (
        host_view(
            real_workspace,
            readable,
            policy.network,
            os.path.realpath(private),
            denied_real_paths(policy.denied),
        )
        if caps.namespaces
        else None
    )
    return Plan(
        app_pid=os.getpid(),
        namespaces=caps.namespaces,
        fresh_proc=caps.fresh_proc,
        new_network=caps.namespaces and not policy.network,
        landlock_abi=caps.landlock_abi,
        deny_tcp=not policy.network and not caps.namespaces,
        network_filter=network_filter()
        if caps.seccomp and not (policy.network or caps.namespaces)
        else b"",
        rules=tuple(rules),
        max_processes=policy.max_processes if caps.namespaces else None,
        memory_mb=policy.memory_mb,
        uid=os.getuid(),
        gid=os.getgid(),
        view=view,
        read_only=guarded if caps.namespaces else (),
        scratch_mb=policy.write_mb,
        write_mb=policy.write_mb,
    )


def _tmp(private: str) -> dict[str, str]:
    return {"TMPDIR": private, "TMP": private, "TEMP": private}
