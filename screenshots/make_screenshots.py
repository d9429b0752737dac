"""Make the README's screenshots: the real app, headless, against the offline demo model.

    python3 screenshots/make_screenshots.py

Each state is a real run of TuiAgentApp (Textual's ``run_test``, 120x40) talking over loopback
to the demo model, in a throwaway workspace and throwaway user folders (no config, no key, no
session of yours is read or written). The demo model runs at pace 0 (instant) except for the
two shots taken while something streams. The SVGs are written next to this script.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.ui.widgets.transcript import Transcript
from tui_agent.wiring.host_options import HostOptions

OUT = Path(__file__).resolve().parent
SIZE = (120, 40)
TIMEOUT_S = 30.0
PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
NOTES = """\
# Release notes

- The transcript streams markdown as it arrives.
- Tool calls are shown the moment they are announced.
- Nothing runs until you approve it.
"""
NEW_NOTES = (
    "# Release notes\n\n- The transcript streams markdown as it arrives.\n- Tool calls are "
    "shown the moment they are announced.\n- Nothing runs until you approve it, by keypress.\n"
    "- Esc stops anything.\n"
)

Step = Callable[[Pilot[None]], Awaitable[None]]


def workspace(root: Path) -> Path:
    """A small fixed project for the demo model's tools to work on."""
    folder = root / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "notes.md").write_text(NOTES)
    (folder / "README.md").write_text("# tui-agent demo project\n\nA place to try the tools.\n")
    (folder / "src" / "app.py").write_text('def main() -> None:\n    print("hello")\n')
    return folder


async def wait_for(pilot: Pilot[None], condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def send(pilot: Pilot[None], text: str) -> None:
    box = pilot.app.query_one(PromptInput)
    box.focus()
    box.insert(text)
    await pilot.press("enter")


def agent_idle(app: TuiAgentApp) -> Callable[[], bool]:
    return lambda: not app.busy


async def shoot(
    name: str, steps: list[Step], *, project: Path, pace: float = 0.0, theme: str | None = None
) -> Path:
    """Run a fresh app through ``steps`` and save what is on screen as ``name``.svg."""
    os.environ["TUI_AGENT_DEMO_PACE"] = str(pace)
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(project)), theme_name=theme)
    path = OUT / f"{name}.svg"
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the app to start")
        transcript = app.query_one(Transcript)
        await wait_for(pilot, lambda: transcript.item_count > 0, "the demo notice")
        await pilot.pause(0.3)  # the notice and the footer are drawn
        for step in steps:
            await step(pilot)
        path.write_text(app.export_screenshot(title=f"tui-agent: {name.replace('_', ' ')}"))
        await pilot.press("ctrl+q")
    return path


def say(text: str) -> Step:
    async def step(pilot: Pilot[None]) -> None:
        await send(pilot, text)

    return step


async def settled(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    await wait_for(pilot, agent_idle(app), "the answer to finish")
    await pilot.pause(0.3)


async def armed(pilot: Pilot[None]) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the approval prompt")
    prompt = app.query_one(ApprovalPrompt)
    await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
    await pilot.pause(0.1)


async def mid_answer(pilot: Pilot[None]) -> None:
    """A long answer about half streamed."""
    app = pilot.app

    def half() -> bool:
        answers = list(app.query(AssistantMessage))
        return bool(answers) and len(answers[-1].text) > 2200

    await wait_for(pilot, half, "the answer to be half streamed")
    assert not app.query(AssistantMessage).last().settled, "the answer must still be streaming"


async def mid_arguments(pilot: Pilot[None]) -> None:
    """A call whose arguments are about half in (the demo's note is ~80 bytes of JSON)."""
    app = pilot.app

    def half() -> bool:
        cards = list(app.query(ToolCallCard))
        return bool(cards) and cards[-1].state == "preparing" and cards[-1].model.nbytes > 40

    await wait_for(pilot, half, "the arguments to be half in")


async def approve(pilot: Pilot[None]) -> None:
    await pilot.press("y")
    await settled(pilot)


async def sessions(pilot: Pilot[None]) -> None:
    from tui_agent.ui.screens.session_browser import SessionBrowser

    app = pilot.app
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser), "the session list")
    await pilot.pause(0.5)


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tui-agent-shots-") as temp:
        root = Path(temp)
        for name in ("config", "data", "state"):
            (root / name).mkdir()
            os.environ[f"XDG_{name.upper()}_HOME"] = str(root / name)
        for key in PROVIDER_KEYS:
            os.environ.pop(key, None)
        project = workspace(root)
        made = [
            await shoot("idle", [], project=project),
            await shoot(
                "streaming",
                [say("write me a long markdown essay"), mid_answer],
                project=project,
                pace=1.0,
            ),
            await shoot(
                "preparing_tool",
                [say("write plan.md"), mid_arguments],
                project=project,
                pace=3.0,
            ),
            await shoot(
                "approval_diff",
                [say(f'write notes.md saying "{NEW_NOTES}"'), armed],
                project=project,
            ),
            await shoot(
                "truncated_turn", [say("show me a truncated turn"), settled], project=project
            ),
            await shoot(
                "tool_done",
                [say("list the files in src/"), armed, approve],
                project=project,
            ),
            await shoot("session_list", [sessions], project=project),
        ]
    for path in made:
        print(path.relative_to(OUT.parent))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
