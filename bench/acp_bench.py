"""An ACP agent's streamed text in the app, against tui-agent's own loop streaming the same text.

Two contenders, in the same run, each the installed app in tmux (120x40, isolated HOME and XDG
folders), each shown the same markdown answer in chunks of the same size, sent as fast as they
can be:

- own loop: ``tui-agent`` against the fake provider on loopback (tests/fake_provider), the text
  as Chat Completions deltas;
- ACP: ``tui-agent --agent flood``, the agent bench/acp_flood_agent.py on the official SDK, the
  text as ``agent_message_chunk`` updates.

For each: the wall time and the app's CPU seconds (/proc; its own, not the agent's nor the
server's) from Enter to the text's last line on screen (tmux capture-pane, polled every 10 ms),
the CPU per KB of text; then, the stream idle, one more chunk (the probe) is sent (the fake
provider's held rest of the body is released; the agent is signalled) and timed from its sending
to its line on screen. Ratios are ACP / own loop.

    python3 bench/acp_bench.py                   # 200 KB in 20- and 200-byte chunks, best of 2
    python3 bench/acp_bench.py --kb 50 --chunk 20 --reps 3
"""

from __future__ import annotations

import argparse
import json
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

from bench.ui_answer_bench import KEY, KEY_ENV, cpu_seconds, environment  # noqa: E402
from bench.ui_stream_bench import answer as markdown_answer  # noqa: E402
from tests import wire  # noqa: E402
from tests.fake_provider import FakeProvider, Hold, Reply  # noqa: E402

POLL_S = 0.01
TIMEOUT_S = 300.0
PROTOCOL = "openai-chat"
PROFILE: Path | None = None  # --profile: the app runs under cProfile, its stats written here


def python(what: str) -> str:
    if PROFILE is None:
        return sys.executable
    return f"{sys.executable} -m cProfile -o {PROFILE / (what + '.prof')}"


class Result:
    def __init__(self, wall: float, cpu: float, probe: float) -> None:
        self.wall, self.cpu, self.probe = wall, cpu, probe

    def best(self, other: Result | None) -> Result:
        if other is None:
            return self
        return Result(
            min(self.wall, other.wall), min(self.cpu, other.cpu), min(self.probe, other.probe)
        )


class Tmux:
    def __init__(self) -> None:
        self.tmux = shutil.which("tmux") or "tmux"
        self.name = f"acp-bench-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-L", self.name, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def start(self, command: str, root: Path, env: dict[str, str] | None = None) -> None:
        subprocess.run(
            [self.tmux, "-L", self.name, "new-session", "-d", "-s", self.name, "-x", "120",
             "-y", "40", "-c", str(root / "ws"), command],
            env=env or environment(root), check=True, timeout=10,
        )  # fmt: skip

    def quit(self, what: str) -> None:
        """With --profile: the app leaves (ctrl+q) so that its profile is written."""
        if PROFILE is None:
            return
        self.run("send-keys", "-t", self.name, "C-q")
        deadline = time.monotonic() + 30
        while not (PROFILE / f"{what}.prof").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def pid(self) -> int:
        return int(self.run("display-message", "-p", "-t", self.name, "#{pane_pid}").strip())

    def wait(self, text: str, what: str, timeout: float = TIMEOUT_S) -> float:
        deadline = time.monotonic() + timeout
        while True:
            if text in self.screen():
                return time.monotonic()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} never showed:\n{self.screen()}")
            time.sleep(POLL_S)


def own_loop(text: str, chunk: int, last_line: str, probe: str, root: Path) -> Result:
    deltas = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    ops: list[wire.Op] = [("text", delta) for delta in deltas] + [("text", probe)]
    body = wire.BUILDERS[PROTOCOL](list(ops), stop="stop")
    held = body.rfind(b"\n\n", 0, body.find(probe.strip().encode())) + 2  # the probe's event
    tmux = Tmux()
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=True) as server:
        server.script(Reply(ops, stop="stop", faults=Hold(held)))
        tmux.start(
            f"exec {python('own')} -m tui_agent --protocol {PROTOCOL} --model fake-model"
            f" --base-url {server.base_url} --api-key-env {KEY_ENV} --workspace {root / 'ws'}",
            root,
        )
        try:
            tmux.wait("fake-model", "the app", 30)
            time.sleep(0.5)  # let startup work settle before timing
            pid = tmux.pid()
            tmux.run("send-keys", "-t", tmux.name, "-l", "a long answer, please")
            start = (time.monotonic(), cpu_seconds(pid))
            tmux.run("send-keys", "-t", tmux.name, "Enter")
            seen = tmux.wait(last_line, "the last line")
            wall, cpu = seen - start[0], cpu_seconds(pid) - start[1]
            time.sleep(0.5)  # idle
            sent = time.monotonic()
            server.release()
            shown = tmux.wait(probe.strip(), "the probe")
            tmux.quit("own")
            return Result(wall, cpu, shown - sent)
        finally:
            tmux.run("kill-server")


def acp(text: str, chunk: int, last_line: str, probe: str, root: Path) -> Result:
    (root / "text.md").write_text(text)
    times = root / "times.json"
    agent = [sys.executable, str(ROOT / "bench" / "acp_flood_agent.py"), str(root / "text.md"),
             str(chunk), probe, str(times)]  # fmt: skip
    tmux = Tmux()
    env = environment(root)  # the folders and settings, then the agent's entry beside them
    config = root / "config" / "tui-agent" / "config.toml"
    config.write_text(config.read_text() + f"\n[agents.flood]\ncommand = {json.dumps(agent)}\n")
    command = f"exec {python('acp')} -m tui_agent --agent flood --workspace {root / 'ws'}"
    tmux.start(command, root, env)
    try:
        tmux.wait("Flood Agent", "the agent", 30)
        time.sleep(0.5)
        pid = tmux.pid()
        agent_pid = int(times.read_text())
        tmux.run("send-keys", "-t", tmux.name, "-l", "a long answer, please")
        start = (time.monotonic(), cpu_seconds(pid))
        tmux.run("send-keys", "-t", tmux.name, "Enter")
        seen = tmux.wait(last_line, "the last line")
        wall, cpu = seen - start[0], cpu_seconds(pid) - start[1]
        time.sleep(0.5)
        os.kill(agent_pid, signal.SIGUSR1)
        shown = tmux.wait(probe.strip(), "the probe")
        deadline = time.monotonic() + 10
        while not times.read_text().startswith("{"):
            if time.monotonic() > deadline:
                raise RuntimeError("the agent never wrote its times")
            time.sleep(POLL_S)
        sent = json.loads(times.read_text())["probe"]
        tmux.quit("acp")
        return Result(wall, cpu, shown - sent)
    finally:
        tmux.run("kill-server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="runs per case; the best is kept")
    parser.add_argument("--kb", type=int, default=200, help="text size in KB (default 200)")
    parser.add_argument(
        "--chunk", type=int, nargs="+", default=[20, 200], help="chunk sizes in bytes"
    )
    parser.add_argument("--profile", type=Path, help="write each app's cProfile stats here")
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile
    if shutil.which("tmux") is None or not Path("/proc/self/stat").exists():
        sys.exit("needs tmux and /proc")
    size = args.kb * 1024
    print(
        "| text, chunk | own loop s (CPU s) | ACP s (CPU s) | CPU ms/KB own / ACP | CPU ratio "
        "| probe ms own / ACP |"
    )
    print("|---|---|---|---|---|---|")
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        for chunk in args.chunk:
            last_line = f"The last line, {uuid.uuid4().hex[:10]}."
            probe = f"\n\nThe probe, {uuid.uuid4().hex[:10]}.\n"
            text = markdown_answer(size) + " end.\n\n" + last_line + "\n"
            best: dict[str, Result] = {}
            for _ in range(args.reps):
                for name, contender in (("own", own_loop), ("acp", acp)):
                    root = Path(folder) / uuid.uuid4().hex[:8]
                    root.mkdir()
                    best[name] = contender(text, chunk, last_line, probe, root).best(best.get(name))
            own, other = best["own"], best["acp"]
            kb = size / 1024
            print(
                f"| {args.kb} KB, {chunk} B | {own.wall:.2f} ({own.cpu:.2f}) "
                f"| {other.wall:.2f} ({other.cpu:.2f}) "
                f"| {own.cpu * 1000 / kb:.1f} / {other.cpu * 1000 / kb:.1f} "
                f"| {other.cpu / max(own.cpu, 0.01):.2f}x "
                f"| {own.probe * 1000:.0f} / {other.probe * 1000:.0f} |",
                flush=True,
            )
    print(f"\n{time.monotonic() - started:.0f} s in all; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
