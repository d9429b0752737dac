"""End to end: a streamed markdown answer, from the first byte to its last line on screen.

The installed app runs in tmux (120x40, isolated HOME and XDG folders) against the fake provider
on loopback (tests/fake_provider), which streams the answer as 20-character Chat Completions
deltas with no delay. The floor, measured in the same run, is bench/answer_floor_app.py: a
minimal Textual app that reads the same stream and shows the whole text once in one Static.

For each answer size: the wall time from the request reaching the server (the first byte follows
at once on loopback) to the answer's last line on screen (tmux capture-pane, polled every 20 ms),
and the CPU seconds the app's process spent in that time (/proc; Linux only). Ratios are
app / floor; the cost per KB shows whether it grows with the length.

    python3 bench/ui_answer_bench.py            # 20 KB, 200 KB, 1 MB, best of 2: 2-4 minutes
    python3 bench/ui_answer_bench.py --reps 1
    python3 bench/ui_answer_bench.py --kb 20 --reps 5
    python3 bench/ui_answer_bench.py --kb 20 --also before=../old-checkout   # two codes, one run
    python3 bench/ui_answer_bench.py --kb 20 --profile /tmp/prof   # cProfile of the timed part

``--also LABEL=PATH`` runs the app of another checkout (its ``tui_agent`` first on PYTHONPATH,
this one's bench and fake provider) as one more contender, interleaved with the others round
by round. ``--profile DIR`` runs every contender under bench/profiled_child.py, which profiles
the event loop's thread from the Enter to the last line on screen only, and writes one
``LABEL-KB-REP.prof`` a run (read them with ``python3 -m pstats``); the times then include the
profiler's overhead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tui_agent and tests, if not installed

from bench.ui_stream_bench import answer as markdown_answer  # noqa: E402
from tests.fake_provider import FakeProvider, Reply  # noqa: E402

SIZES = (20 * 1024, 200 * 1024, 1024 * 1024)
DELTA = 20
KEY_ENV = "FAKE_PROVIDER_KEY"
KEY = "fake-key-for-the-bench"
POLL_S = 0.02
TIMEOUT_S = 300.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def environment(root: Path, checkout: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env = {k: v for k, v in env.items() if not k.startswith("TMUX")}
    # Bytecode as a user's install has it (an installed package has it; an editable one writes
    # it on the first run): without it, what the app imports at its first answer is compiled
    # from source on every run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name in ("home", "config", "data", "state", "ws"):
        (root / name).mkdir(exist_ok=True)
    (root / "config" / "tui-agent").mkdir(exist_ok=True)
    # A known context window: the app asks the server nothing but the scripted request.
    (root / "config" / "tui-agent" / "config.toml").write_text(
        "[settings]\ncontext_window = 2000000\n"
    )
    if checkout is not None:  # its tui_agent before the installed (editable) one
        env["PYTHONPATH"] = os.pathsep.join([str(checkout), *filter(None, [env.get("PYTHONPATH")])])
    return env | {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "TERM": "xterm-256color",
        KEY_ENV: KEY,
    }


def measure(
    contender: str,
    text: str,
    last_line: str,
    root: Path,
    *,
    checkout: Path | None = None,
    profile: Path | None = None,
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) from the request to ``last_line`` on screen. ``contender``
    is "floor" or an app; ``checkout`` the app's code if not this one's; ``profile`` the file
    for a cProfile of the timed part."""
    tmux = shutil.which("tmux") or "tmux"
    name = f"answer-bench-{uuid.uuid4().hex[:8]}"
    deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]

    def run(*args: str) -> str:
        done = subprocess.run([tmux, "-L", name, *args], capture_output=True, text=True, timeout=10)
        return done.stdout

    def screen() -> str:
        return run("capture-pane", "-p", "-t", name)

    app = contender != "floor"
    python = str(sys.executable)
    if profile is not None:
        python += f" {ROOT / 'bench' / 'profiled_child.py'} {profile}"
    server = FakeProvider("openai-chat", api_key=KEY, require_tools=app)
    with server:
        server.script(Reply([("text", delta) for delta in deltas], stop="stop"))
        if app:
            command = (
                f"exec {python} -m tui_agent --protocol openai-chat --model fake-model"
                f" --base-url {server.base_url} --api-key-env {KEY_ENV} --workspace {root / 'ws'}"
            )
            ready = "fake-model"
        else:
            floor = ROOT / "bench" / "answer_floor_app.py"
            command = f"exec {python} {floor} {server.base_url} {KEY_ENV}"
            ready = "floor ready"
        subprocess.run(
            [tmux, "-L", name, "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
             "-c", str(root / "ws"), command],
            env=environment(root, checkout), check=True, timeout=10,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while ready not in screen():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{contender} never got ready:\n{screen()}")
                time.sleep(0.1)
            time.sleep(0.5)  # let startup work settle before timing
            pid = int(run("display-message", "-p", "-t", name, "#{pane_pid}").strip())
            if app:
                run("send-keys", "-t", name, "-l", "a long answer, please")
            if profile is not None:
                os.kill(pid, signal.SIGUSR1)
            run("send-keys", "-t", name, "Enter")
            first: tuple[float, float] | None = None
            deadline = time.monotonic() + TIMEOUT_S
            while True:
                if first is None and server.requests:
                    first = (time.monotonic(), cpu_seconds(pid))
                if first is not None and last_line in screen():
                    took = time.monotonic() - first[0], cpu_seconds(pid) - first[1]
                    if profile is not None:
                        os.kill(pid, signal.SIGUSR2)
                        while not profile.exists() and time.monotonic() < deadline:
                            time.sleep(0.05)
                    return took
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{contender}: the last line never showed:\n{screen()}")
                time.sleep(POLL_S)
        finally:
            run("kill-server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="runs per case; the best is kept")
    parser.add_argument(
        "--kb", type=int, nargs="+", help="answer sizes in KB (default: 20 200 1024)"
    )
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="the app of another checkout, as one more contender (repeatable)",
    )
    parser.add_argument("--profile", type=Path, help="a folder for a cProfile of each run")
    args = parser.parse_args()
    sizes = tuple(kb * 1024 for kb in args.kb) if args.kb else SIZES
    if shutil.which("tmux") is None or not Path("/proc/self/stat").exists():
        sys.exit("needs tmux and /proc")
    checkouts: dict[str, Path | None] = {"floor": None, "tui-agent": None}
    for also in args.also:
        label, _, path = also.partition("=")
        if not path or label in checkouts:
            sys.exit(f"--also {also}: LABEL=PATH, a label of its own")
        checkouts[label] = Path(path).resolve()
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    print("| answer | app | floor s (CPU s) | app s (CPU s) | wall ratio | CPU ratio | CPU ms/KB |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            last_line = f"The last line, {uuid.uuid4().hex[:10]}."
            text = markdown_answer(size) + " end.\n\n" + last_line + "\n"
            best: dict[str, tuple[float, float]] = {}
            for rep in range(args.reps):
                for contender, checkout in checkouts.items():
                    root = Path(folder) / uuid.uuid4().hex[:8]
                    root.mkdir()
                    profile = None
                    if args.profile is not None:
                        profile = args.profile / f"{contender}-{size // 1024}-{rep}.prof"
                        profile.unlink(missing_ok=True)
                    wall, cpu = measure(
                        contender, text, last_line, root, checkout=checkout, profile=profile
                    )
                    old = best.get(contender)
                    best[contender] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)
            fw, fc = best.pop("floor")
            for contender, (aw, ac) in best.items():
                print(
                    f"| {size // 1024:,} KB | {contender} | {fw:.2f} ({fc:.2f}) "
                    f"| {aw:.2f} ({ac:.2f}) | {aw / fw:.2f}x | {ac / max(fc, 0.01):.2f}x "
                    f"| {ac * 1000 / (size / 1024):.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
