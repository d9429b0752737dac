"""The start-up cost the command sandbox adds to a command, as tui-agent pays it.

    python3 bench/sandbox_bench.py [--runs 40] [--app-mb 100]

Runs ``true`` through ``run_in_process_group`` (what run_command uses) alternately unconfined
and under each confined policy, ``--runs`` times each, in this one process, and reports the
median wall time of a call and the added cost over the unconfined ``true`` of the same run (a
ratio and milliseconds). The confined call includes everything a real call pays: the policy's
Landlock rules (listing folders for the denied paths), the private temporary folder, the
fork of the launcher and the init, namespaces, a private /proc and the loopback interface.

Goal (issue 13): under 20 ms added a call. As root a confined call also makes a pids cgroup
and moves its launcher into it (the process limit; RLIMIT_NPROC does not bind root): the line
``workspace-write, no cgroup`` is the same call without it.

Where bubblewrap is installed, ``bwrap --unshare-all`` runs the same ``true`` unconfined through
the same call (every namespace, a read-only root, its own /proc and /dev, the workspace bound
writable, dying with its parent): the floor of a compiled sandbox. The last line prints the
added cost of each confined policy as a multiple of bubblewrap's (issue 33's goal: 1.5x).

Confined calls go through the sandbox's fork server (``sandbox/fork_server.py``), as
run_command's do; the line ``workspace-write, app forks`` is the same call the old way, the app
forked with the sandbox's ``preexec_fn`` (what the server replaces, and what a call falls back
to without it), interleaved in the same run. ``--app-mb`` makes this process as large as a
running app first: each fork of the app, and each exit of such a copy, costs in proportion to
its memory, which the fork server's small process does not pay.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tui_agent.sandbox import SandboxMode, SandboxPolicy, confine, confinement, detect, spawner
from tui_agent.sandbox.pids_cgroup import pids_parent
from tui_agent.tools.process import run_in_process_group

POLICIES = {
    "unconfined": SandboxPolicy(mode=SandboxMode.OFF),
    "workspace-write": SandboxPolicy(),
    "workspace-write+network": SandboxPolicy(network=True),
    "read-only": SandboxPolicy(mode=SandboxMode.READ_ONLY),
}


NO_CGROUP = "workspace-write, no cgroup"
FORKED = "workspace-write, app forks"
BWRAP = "bwrap --unshare-all"


def bwrap_argv(workspace: Path) -> list[str] | None:
    program = shutil.which("bwrap")
    if program is None:
        return None
    where = str(workspace)
    return [
        program,
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", where, where,
        "true",
    ]  # fmt: skip


async def one_call(
    policy: SandboxPolicy,
    workspace: Path,
    argv: list[str] | None = None,
    cgroup: bool = True,
    server: bool = True,
) -> float:
    started = time.perf_counter()
    if not cgroup:  # root: what the pids cgroup adds, as the call would pay without it
        parent, confine.pids_parent = confine.pids_parent, lambda: None  # type: ignore[assignment]
    try:
        return await _call(policy, workspace, argv, started, server)
    finally:
        if not cgroup:
            confine.pids_parent = parent


async def _call(
    policy: SandboxPolicy, workspace: Path, argv: list[str] | None, started: float, server: bool
) -> float:
    with confinement(policy, workspace) as launch:
        result = await run_in_process_group(
            argv or ["true"],
            cwd=workspace,
            env={**os.environ, **launch.env},
            timeout_s=30,
            output_cap=1000,
            preexec=launch.preexec,
            spawn=launch.spawn if server else None,
        )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"true failed under {policy.label()}: {result.output!r}")
    return elapsed


async def main(runs: int) -> None:
    caps = detect()
    print(
        f"landlock ABI {caps.landlock_abi}, namespaces {caps.namespaces}, private /proc "
        f"{caps.fresh_proc}; {runs} runs each, {os.cpu_count()} cores"
    )
    # As root the process limit is a pids cgroup per command (sandbox/pids_cgroup.py): measured
    # with and without it.
    split = os.geteuid() == 0 and pids_parent() is not None
    off = POLICIES["unconfined"]
    spawner.prepare()
    deadline = time.monotonic() + 10
    while spawner.server() is None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    print("fork server:", "running" if spawner.server() else "NOT running (calls fork the app)")
    with tempfile.TemporaryDirectory() as folder:
        bwrap = bwrap_argv(Path(folder))
        names = (
            *POLICIES,
            *([NO_CGROUP] if split else []),
            FORKED,
            *([BWRAP] if bwrap else []),
        )
        times: dict[str, list[float]] = {name: [] for name in names}
        for policy in POLICIES.values():  # warm-up
            await one_call(policy, Path(folder))
        for _ in range(runs):
            for name, policy in POLICIES.items():
                times[name].append(await one_call(policy, Path(folder)))
            if split:
                default = POLICIES["workspace-write"]
                times[NO_CGROUP].append(await one_call(default, Path(folder), cgroup=False))
            forked = await one_call(POLICIES["workspace-write"], Path(folder), server=False)
            times[FORKED].append(forked)
            if bwrap:
                times[BWRAP].append(await one_call(off, Path(folder), bwrap))
    base = statistics.median(times["unconfined"])
    added = {name: statistics.median(samples) - base for name, samples in times.items()}
    for name, samples in times.items():
        median = statistics.median(samples)
        print(
            f"{name:>26}: {median * 1000:7.2f} ms a call, x{median / base:5.2f} of unconfined, "
            f"+{added[name] * 1000:6.2f} ms"
        )
    if bwrap and added[BWRAP] > 0:
        ratios = ", ".join(
            f"{name} {added[name] / added[BWRAP]:.2f}x"
            for name in times
            if name not in ("unconfined", BWRAP)
        )
        print(f"added cost against bubblewrap's (+{added[BWRAP] * 1000:.2f} ms): {ratios}")
    else:
        print("bubblewrap is not installed: no ratio against it")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--app-mb",
        type=int,
        default=0,
        help="first fill this much memory, as the app's own (each fork copies its page tables)",
    )
    args = parser.parse_args()
    ballast = [bytearray(1 << 20) for _ in range(args.app_mb)]  # touched: resident
    asyncio.run(main(args.runs))
    sys.exit(0)
