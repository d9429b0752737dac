"""The first screen comes before anything heavy is imported.

In a fresh interpreter: import the app module and construct the app, then run it headless and
look at ``sys.modules`` at the moment Textual posts ``Ready`` (the first frame is on screen).
httpx, pydantic, the providers, the tools, the transport, the session store and the agent loop
must not be there yet; they come with the boot worker, after the first frame (checked too, so
the probe is known to see them). Timing is in bench/ui_startup_bench.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HEAVY = (
    "httpx",
    "httpx_sse",
    "pydantic",
    "pydantic_core",
    "tui_agent.providers",
    "tui_agent.tools",
    "tui_agent.transport",
    "tui_agent.session",
    "tui_agent.config",
    "tui_agent.demo",
    "tui_agent.turn_reader",
    "tui_agent.agent",
    # The approval rules (their regular expressions) and importlib.metadata (the version, with
    # the email parser) were the command line's parser's own cost on every launch.
    "tui_agent.approval",
    "importlib.metadata",
    # Textual's RichLog (a tool result's output) brings rich.pretty and attrs.
    "rich.pretty",
)
# tui_agent.wiring holds the light HostOptions the app needs; everything else in it is heavy.
LIGHT_IN_WIRING = ("tui_agent.wiring", "tui_agent.wiring.host_options")

CHILD = r"""
import asyncio, json, sys

HEAVY = tuple(json.loads(sys.argv[1]))
LIGHT = tuple(json.loads(sys.argv[2]))

def is_heavy(name):
    if name.startswith("tui_agent.wiring."):
        return name not in LIGHT
    return any(name == top or name.startswith(top + ".") for top in HEAVY)

def heavy():
    # A copy: the boot worker imports in its thread while this looks.
    return sorted(name for name in sys.modules.copy() if is_heavy(name))

from textual import events
from tui_agent.wiring.host_options import HostOptions
from tui_agent.ui.app import TuiAgentApp

seen = {"imported": heavy()}
app = TuiAgentApp(HostOptions(profile="demo", workspace=sys.argv[3]))
seen["constructed"] = heavy()

def hook(message):
    if isinstance(message, events.Ready) and "first_frame" not in seen:
        seen["first_frame"] = heavy()

async def main():
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        for _ in range(1500):
            if app.host is not None:
                break
            await pilot.pause(0.02)
        seen["booted"] = heavy()
        await pilot.press("ctrl+q")

asyncio.run(main())
print(json.dumps(seen))
"""


def _run_child(tmp_path: Path, script: str) -> Any:
    """``script`` in a fresh interpreter with throwaway folders; the JSON of its last line."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
        env[f"XDG_{name.upper()}_HOME"] = str(tmp_path / name)
    env["TUI_AGENT_DEMO_PACE"] = "0"
    (tmp_path / "ws").mkdir()
    argv = [json.dumps(HEAVY), json.dumps(LIGHT_IN_WIRING), str(tmp_path / "ws")]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _probe(tmp_path: Path) -> dict[str, list[str]]:
    result: dict[str, list[str]] = _run_child(tmp_path, CHILD)
    return result


@pytest.mark.heavy
def test_nothing_heavy_is_imported_before_the_first_screen(tmp_path: Path) -> None:
    seen = _probe(tmp_path)
    assert seen["imported"] == []
    assert seen["constructed"] == []
    assert "first_frame" in seen, "Textual never posted Ready"
    assert seen["first_frame"] == []
    # The probe does see them once the boot worker ran (so the empty lists above mean it).
    assert {"httpx", "pydantic", "tui_agent.providers", "tui_agent.tools"} <= set(seen["booted"])


CLI_CHILD = r"""
import json, sys

HEAVY = tuple(json.loads(sys.argv[1]))
LIGHT = tuple(json.loads(sys.argv[2]))

def heavy():
    return sorted(
        name for name in sys.modules.copy()
        if (name not in LIGHT if name.startswith("tui_agent.wiring.")
            else any(name == top or name.startswith(top + ".") for top in HEAVY))
    )

import textual.app

def run(self, *args, **kwargs):  # the moment the command hands over to the app
    print(json.dumps(heavy()))
    raise SystemExit(0)

textual.app.App.run = run
from tui_agent.cli import main
main(["--workspace", sys.argv[3]])
"""


def test_the_command_line_imports_nothing_heavy_before_the_app_runs(tmp_path: Path) -> None:
    """`tui-agent` as a person starts it: the parser (every subcommand's arguments, doctor's
    too) and the checks before the screen load no pydantic, httpx or config model (issue 33:
    doctor's module top cost about 0.2 s of every launch)."""
    assert _run_child(tmp_path, CLI_CHILD) == []


# What the session's opening leaves to later: the HTTP transport (httpcore) and the markdown
# widgets (markdown-it, pygments) are made in a thread once the session is open (ui/app.py's
# warm_after_open), not by the boot; and
# httpx's command line (click, with rich's syntax and Pygments) never (ui/lean_imports.py).
AFTER_OPEN = (
    "httpcore",
    "markdown_it",
    "pygments",
    "tui_agent.ui.widgets.assistant_message",
    "click",
    "httpx._main",
)

OPEN_CHILD = r"""
import asyncio, gc, json, sys

AFTER = tuple(json.loads(sys.argv[1]))

from tui_agent.ui import app as app_module
from tui_agent.wiring.host_options import HostOptions

warmed = []
app_module.warm_after_open = lambda client: warmed.append(True)  # the thread left out
app = app_module.TuiAgentApp(HostOptions(profile="demo", workspace=sys.argv[3]))
seen = {}

def booting():
    return any(w.group == "boot" and not w.is_finished for w in app.workers)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1500):
            if app.router is not None and not booting():
                break
            await pilot.pause(0.02)
        await pilot.pause(0.05)
        seen["loaded_by_the_open"] = sorted(
            name for name in sys.modules.copy()
            if any(name == top or name.startswith(top + ".") for top in AFTER)
        )
        seen["warmed"] = bool(warmed)
        seen["collector_on"] = gc.isenabled()
        await pilot.press("ctrl+q")

asyncio.run(main())
print(json.dumps(seen))
"""


@pytest.mark.heavy
def test_the_session_opens_without_the_markdown_widgets(tmp_path: Path) -> None:
    """The boot opens the session without making the HTTP transport or importing the markdown
    widgets (they come in a thread after it: ~110 ms of the open, issue 33), and the garbage
    collector, off while the start loads its ~120,000 long-lived objects (ui/startup_gc.py), is
    on again once open."""
    script = OPEN_CHILD.replace("json.loads(sys.argv[1])", json.dumps(list(AFTER_OPEN)))
    seen = _run_child(tmp_path, script)
    assert seen["loaded_by_the_open"] == []
    assert seen["warmed"], "the markdown widgets were never warmed once the session was open"
    assert seen["collector_on"]
