"""What the OS offers the sandbox, found once at start (a probe of a few milliseconds).

Each protection is either active or missing with the reason. ``doctor`` shows them; a command
whose policy needs a missing one runs with a warning on its approval.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass

from .landlock import abi_version
from .launch import SETUP_MESSAGE, Plan, preexec
from .seccomp import available as seccomp_available


@dataclass(frozen=True)
class Capabilities:
    landlock_abi: int  # 0: none
    landlock_reason: str  # why there is none ("" when there is)
    namespaces: bool  # user + PID + mount namespaces (and network)
    namespaces_reason: str
    fresh_proc: bool  # a private /proc inside the PID namespace
    fresh_proc_reason: str
    seccomp: bool = False  # the network filter of the no-namespace fallback (seccomp.py)

    @property
    def network_ns(self) -> bool:
        return self.namespaces


NOTHING = Capabilities(0, "not probed", False, "not probed", False, "not probed")


@functools.cache
def detect() -> Capabilities:
    """What this machine offers (cached for the process's life)."""
    if not sys.platform.startswith("linux"):
        why = f"not Linux ({sys.platform}); macOS sandbox-exec support is future work"
        return Capabilities(0, why, False, why, False, why)
    try:
        abi = abi_version()
        landlock_reason = "" if abi else _landlock_absent_reason()
    except (OSError, AttributeError) as exc:
        abi, landlock_reason = 0, f"the Landlock call failed: {exc}"
    filters = seccomp_available()
    failure = _probe(fresh_proc=True)
    if failure is None:
        return Capabilities(abi, landlock_reason, True, "", True, "", filters)
    proc_failure = failure
    failure = _probe(fresh_proc=False)
    if failure is None:
        return Capabilities(abi, landlock_reason, True, "", False, proc_failure, filters)
    return Capabilities(abi, landlock_reason, False, failure, False, failure, filters)


def _landlock_absent_reason() -> str:
    try:
        with open("/sys/kernel/security/lsm", encoding="ascii") as handle:
            active = handle.read().strip()
    except OSError:
        active = ""
    if active and "landlock" not in active.split(","):
        return f"the kernel does not enable Landlock (active security modules: {active})"
    return f"the kernel ({os.uname().release}) does not offer Landlock (needs 5.13 or later)"


def _probe(*, fresh_proc: bool) -> str | None:
    """Run ``true`` in namespaces as a command would; None when it worked, else why not."""
    plan = Plan(
        app_pid=os.getpid(),
        namespaces=True,
        fresh_proc=fresh_proc,
        new_network=True,
        landlock_abi=0,
        deny_tcp=False,
        rules=(),
        max_processes=None,
        memory_mb=1 << 20,
        uid=os.getuid(),
        gid=os.getgid(),
    )
    try:
        done = subprocess.run(
            ["true"],
            preexec_fn=preexec(plan),
            capture_output=True,
            timeout=10,
            start_new_session=True,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the probe could not run: {exc}"
    if done.returncode == 0:
        return None
    text = done.stderr.decode("utf-8", "replace").strip()
    return text.removeprefix(SETUP_MESSAGE).removesuffix("; the command did not run") or (
        f"the probe ended with status {done.returncode}"
    )
