"""Which protections a policy gets on this machine, which are missing, and why (``doctor``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .detect import Capabilities
from .memory_cgroup import memory_parent
from .pids_cgroup import pids_parent
from .policy import SandboxMode, SandboxPolicy


@dataclass(frozen=True, slots=True)
class Protection:
    name: str
    active: bool
    why: str  # how it is provided, or why it is missing
    # False: a bound that is good to have but whose absence is no way out of the sandbox
    # (doctor shows it as absent; approvals do not warn and doctor's exit status ignores it).
    essential: bool = True


def protections(policy: SandboxPolicy, caps: Capabilities) -> list[Protection]:
    """Every wall of the sandbox, active or not, for commands run under ``policy``."""
    if not policy.confined:
        return [Protection("sandbox", False, "mode off: commands run with all your rights")]
    landlock = f"Landlock ABI {caps.landlock_abi}"
    files = Protection(
        "file system (writes only in the workspace, denied paths unreadable)",
        caps.landlock_abi > 0,
        landlock if caps.landlock_abi else caps.landlock_reason,
    )
    if policy.network:
        network = Protection("network", True, "allowed by the network switch")
    elif caps.namespaces:
        network = Protection("network cut", True, "a network namespace of its own")
    elif caps.seccomp:
        network = Protection(
            "network cut", True, "a seccomp filter refuses internet sockets (no network namespace)"
        )
    elif caps.landlock_abi >= 4:
        network = Protection("network cut", True, f"{landlock} refuses TCP (UDP still passes)")
    else:
        network = Protection("network cut", False, caps.namespaces_reason)
    processes = Protection(
        "process lifetime (nothing outlives the call or the app)",
        caps.namespaces,
        "a PID namespace of its own" if caps.namespaces else caps.namespaces_reason,
    )
    view = Protection(
        "process view (other processes and the app's environment invisible)",
        caps.fresh_proc and caps.landlock_abi > 0,
        "a private /proc and Landlock's ptrace rule"
        if caps.fresh_proc and caps.landlock_abi
        else caps.fresh_proc_reason or caps.landlock_reason,
    )
    services = _host_services(policy, caps)
    counted, how = _process_limit(caps)
    limits = Protection(
        "limits",
        counted,
        f"at most {policy.max_processes} processes ({how}), {policy.memory_mb} MiB a process",
    )
    return [
        files,
        network,
        services,
        processes,
        view,
        limits,
        _git_folders(policy, caps),
        *_stops(policy, caps),
    ]


def _stops(policy: SandboxPolicy, caps: Capabilities) -> list[Protection]:
    """A fork bomb stopped (not left at the limit until the timeout), memory bounded in total."""
    if os.geteuid() == 0 and pids_parent() is not None and caps.namespaces:
        bomb = Protection(
            "fork bomb stopped", True, "the pids cgroup counts refused forks; the init stops it"
        )
    elif os.geteuid() == 0 and caps.namespaces and caps.fresh_proc:
        bomb = Protection("fork bomb stopped", True, "the init's count in its private /proc")
    else:
        bomb = Protection(
            "fork bomb stopped",
            False,
            "held at the process limit until the call's timeout: no pids cgroup counts the "
            "refused forks here",
            essential=False,
        )
    if memory_parent() is not None:
        memory = Protection(
            "total memory",
            True,
            f"at most {policy.memory_mb} MiB for all the command's processes (a memory cgroup)",
        )
    else:
        memory = Protection(
            "total memory",
            False,
            "no memory cgroup can be made here: only each process's address space is bounded",
            essential=False,
        )
    if caps.namespaces:
        writes = Protection(
            "write quota",
            True,
            f"{policy.write_mb} MiB: $TMPDIR a tmpfs of that size, the workspace's file system "
            "watched every 20 ms, no one file larger",
        )
    else:
        writes = Protection(
            "write quota",
            False,
            f"only no one file past {policy.write_mb} MiB: without namespaces no init watches "
            "the workspace and $TMPDIR is an ordinary folder",
            essential=False,
        )
    return [bomb, memory, writes]


def _host_services(policy: SandboxPolicy, caps: Capabilities) -> Protection:
    """Host sockets (tmux, D-Bus, agents) out of reach: see host_view.py."""
    name = "host services (no socket outside the workspace answers)"
    if not caps.namespaces:
        return Protection(
            name,
            False,
            "no mount namespace: pathname sockets stay reachable (Landlock does not govern "
            f"connecting to them; {caps.namespaces_reason}); only their variables are dropped",
        )
    how = "a private /tmp, /var/tmp, /dev/shm and /run; sockets in home and /var covered"
    if caps.landlock_abi >= 6:
        return Protection(name, True, how + "; abstract sockets closed by Landlock's scope")
    if not policy.network:
        return Protection(name, True, how + "; abstract sockets: a network namespace of its own")
    return Protection(
        name,
        False,
        how + f"; abstract sockets stay reachable (Landlock ABI {caps.landlock_abi} < 6)",
    )


def _git_folders(policy: SandboxPolicy, caps: Capabilities) -> Protection:
    """The workspace's git folders (see ``git_guard.py``)."""
    name = "git folders read-only (no hook or config left for your next git)"
    if not caps.landlock_abi:
        return Protection(name, False, caps.landlock_reason)
    if policy.mode is SandboxMode.READ_ONLY:
        return Protection(name, True, "the whole workspace is read-only")
    if not policy.protect_git:
        return Protection("git folders", True, "writable: sandbox_protect_git = false")
    if caps.namespaces:
        return Protection(name, True, "a read-only bind mount in the command's mount namespace")
    return Protection(
        name,
        True,
        "left out of Landlock's write grant (no mount namespace): new entries at the "
        "workspace's top are refused in a repository",
    )


def _process_limit(caps: Capabilities) -> tuple[bool, str]:
    """Whether the process count is bounded here, and how."""
    if os.geteuid() == 0:  # RLIMIT_NPROC does not bind root
        if pids_parent() is not None:
            return True, "a pids cgroup per command"
        if caps.namespaces and caps.fresh_proc:
            return True, "counted every 20 ms in its private /proc: no pids cgroup can be made"
        return False, "none: RLIMIT_NPROC does not bind root, and no pids cgroup can be made"
    if caps.namespaces:
        return True, "RLIMIT_NPROC in a user namespace of its own"
    return False, "none: without a user namespace RLIMIT_NPROC would count all your processes"


def missing(policy: SandboxPolicy, caps: Capabilities) -> list[str]:
    """The names of the protections ``policy`` wants and this machine cannot give."""
    return [p.name for p in protections(policy, caps) if not p.active and p.essential]


def approval_warning(policy: SandboxPolicy | None, caps: Capabilities) -> str:
    """What the approval prompt shows in warning colour; '' when fully confined."""
    if policy is None:
        return ""
    if not policy.confined:
        return "sandbox off: this command runs unconfined, with all your rights"
    gaps = missing(policy, caps)
    if not gaps:
        return ""
    return "protection missing on this machine: " + "; ".join(gaps) + " (see tui-agent doctor)"


def report(policy: SandboxPolicy, caps: Capabilities) -> str:
    """``tui-agent doctor``: one line per protection."""
    lines = [f"sandbox: {policy.label()}"]
    for item in protections(policy, caps):
        mark = "active " if item.active else "MISSING" if item.essential else "absent "
        lines.append(f"  [{mark}] {item.name}: {item.why}")
    if not policy.confined:
        return "\n".join(lines)
    lines.append(
        "  denied paths: " + ", ".join(policy.denied) + " and the app's config, data and logs"
    )
    return "\n".join(lines)
