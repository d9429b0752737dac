"""Say in words when the sandbox (probably) stopped what a command tried.

The kernel does not tell a program that Landlock or a namespace refused it: the program sees
EACCES, ENETUNREACH or ENOMEM like any other failure. So a failed confined command whose output
shows such an error gets a note naming the wall it likely hit, and how to get past it: a new
approval to run it unconfined.
"""

from __future__ import annotations

import os

from .launch import SETUP_MESSAGE
from .policy import SandboxMode, SandboxPolicy

_FILES = ("Permission denied", "Read-only file system", "Operation not permitted")
_NETWORK = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "Connection refused",
    "getaddrinfo",
    "No address associated",
)
_PROCESSES = ("Cannot fork", "fork: Resource temporarily unavailable", "fork failed")
_MEMORY = (
    "Cannot allocate memory",
    "MemoryError",
    "memory exhausted",
    "out of memory",
    "bad_alloc",
)
RERUN_HINT = "the user can re-run it unconfined (a new approval)"


def blocked_notes(output: str, failed: bool, policy: SandboxPolicy) -> tuple[str, ...]:
    """Lines to add to a confined command's result; () when nothing points at the sandbox."""
    if not policy.confined:
        return ()
    if not failed:
        # A fork refused by the process limit is the sandbox's doing even when the command
        # went on and succeeded (a shell prints "Cannot fork" and carries on).
        if _any(output, _PROCESSES):
            return (f"the sandbox allows at most {policy.max_processes} processes at once",)
        return ()
    found: list[str] = []
    if SETUP_MESSAGE + "cannot" in output:
        return ("the sandbox could not be set up, so the command did not run; " + RERUN_HINT,)
    if _any(output, _FILES) or _hidden_denied(output, policy):
        where = (
            "no writes are allowed in read-only mode"
            if policy.mode is SandboxMode.READ_ONLY
            else "writes outside the workspace and to its git folders (.git, git add and commit) "
            "are refused"
        )
        found.append(
            f"the sandbox ({policy.label()}) may have blocked this: {where}, "
            "and the denied paths (credentials, the app's own files) cannot be read"
        )
    if not policy.network and _any(output, _NETWORK):
        found.append(f"the sandbox ({policy.label()}) may have blocked this: it has no network")
    if _any(output, _PROCESSES) or SETUP_MESSAGE + "stopped" in output:
        found.append(f"the sandbox allows at most {policy.max_processes} processes at once")
    if _any(output, _MEMORY):
        found.append(f"the sandbox allows each process at most {policy.memory_mb} MiB of memory")
    if found:
        found.append(RERUN_HINT)
    return tuple(found)


def _hidden_denied(output: str, policy: SandboxPolicy) -> bool:
    """A denied folder is an empty tmpfs in the command's namespace (host_view.py): reading in
    it says "No such file", not "Permission denied"."""
    if "No such file" not in output:
        return False
    for entry in policy.denied:
        path = os.path.expanduser(entry).rstrip("/")
        if path and (path + "/") in output:
            return True
    return False


def _any(text: str, needles: tuple[str, ...]) -> bool:
    return any(needle in text for needle in needles)
