"""`tui-agent serve` as a real subprocess, and the system's Chromium to look at it.

``Served(root, *argv)`` starts ``tui-agent ARGV --port 0`` in a process group of its own with an
isolated HOME and XDG folders under ``root`` (the offline demo model at pace 0, no provider key,
workspace ``root/ws``), reads the URL it prints and, when stopped, sends it SIGTERM (it ends
every app it started) and checks that nothing of its group is left (then kills what is).

``chromium()`` is the system's browser (never a downloaded one), or None. ``TERMINAL_HOOK`` is
an init script that keeps each xterm.js Terminal the page makes in ``window.__terms`` (its
``_core`` field is set once in the constructor: a setter on Object.prototype sees it), so
``screen_text(page)`` can read the terminal's buffer as rows of text.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
URL = re.compile(r"http://\S+/")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TERMINAL_HOOK = """
window.__terms = [];
Object.defineProperty(Object.prototype, "_core", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "_core", {value, writable: true, configurable: true});
    if (typeof this.loadAddon === "function") window.__terms.push(this);
  },
  get() { return undefined; },
});
"""
_SCREEN = """() => {
  const term = window.__terms[0];
  if (!term) return "";
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""
_CELL = """([row, column]) => {
  const term = window.__terms[0];
  const box = term.element.querySelector(".xterm-screen").getBoundingClientRect();
  const width = box.width / term.cols, height = box.height / term.rows;
  return [box.left + (column + 0.5) * width, box.top + (row + 0.5) * height];
}"""


def chromium() -> str | None:
    """The system's Chromium, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def isolated_env(root: Path) -> dict[str, str]:
    for folder in ("home", "config", "data", "state", "cache", "ws"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    return env | {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TUI_AGENT_DEMO_PACE": "0",
        "LANG": "C.UTF-8",
    }


class Served:
    """A running ``tui-agent ARGV --port 0`` (``with Served(root, "serve") as served: ...``)."""

    def __init__(self, root: Path, *argv: str, timeout: float = 20.0) -> None:
        self.root = root
        self.env = isolated_env(root)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", *argv, "--port", "0"],
            cwd=root / "ws",
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._found = threading.Event()
        assert self.process.stdout is not None and self.process.stderr is not None
        streams = ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr))
        for stream, lines in streams:
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()
        if not self._found.wait(timeout):
            self.stop()
            raise AssertionError(f"no URL printed: {''.join(self.stdout + self.stderr)}")
        (self.url,) = {m.group() for line in self.stdout for m in URL.finditer(line)}
        parts = urlsplit(self.url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.token = parts.path.strip("/")

    def _read(self, stream: Any, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)
            if URL.search(line):
                self._found.set()

    def children(self) -> list[int]:
        """The pids of the server's process group other than the server (its apps)."""
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != self.process.pid:
                try:
                    if os.getpgid(int(entry.name)) == self.process.pid:
                        pids.append(int(entry.name))
                except ProcessLookupError:
                    continue
        return pids

    def stop(self) -> list[int]:
        """SIGTERM to the server; the pids of its group still alive after it ended (killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        left = self.children() if Path("/proc").exists() else []
        if left:
            os.killpg(self.process.pid, signal.SIGKILL)
        return left

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def screen_text(page: Any) -> str:
    return str(page.evaluate(_SCREEN))


def wait_for_screen(page: Any, text: str, timeout: float = 20.0) -> str:
    """The screen once it shows ``text`` (AssertionError with the screen if it never does)."""
    deadline = time.monotonic() + timeout
    while text not in (shown := screen_text(page)):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never shown:\n{shown}")
        time.sleep(0.1)
    return shown


def cell_position(page: Any, row: int, column: int) -> tuple[float, float]:
    """The page coordinates of the middle of the terminal cell at ``row``, ``column``."""
    x, y = page.evaluate(_CELL, [row, column])
    return float(x), float(y)


def click_text(page: Any, text: str) -> None:
    """Click the first cell of ``text`` where the terminal shows it."""
    for row, line in enumerate(screen_text(page).splitlines()):
        if text in line:
            page.mouse.click(*cell_position(page, row, line.index(text)))
            return
    raise AssertionError(f"{text!r} not on the screen:\n{screen_text(page)}")


def files_holding(root: Path, secret: str) -> list[Path]:
    """Every file under ``root`` whose bytes hold ``secret``."""
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]
