"""A tiny app that mounts one ApprovalPrompt, for the Pilot and snapshot tests."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input

from tui_agent.approval import ApprovalRequest, Decision
from tui_agent.tools.arguments import arguments_digest, canonical_json
from tui_agent.ui.arming import Clock, KeyClock
from tui_agent.ui.screens.confirm_edit import ConfirmEdit
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt

RISKS = {"read_file": "read", "write_file": "write", "edit_file": "write", "run_command": "execute"}


def make_request(
    tool_name: str, arguments: dict[str, Any], *, position: int = 1, total: int = 1
) -> ApprovalRequest:
    return ApprovalRequest(
        call_id="call_1",
        tool_name=tool_name,
        risk=RISKS.get(tool_name, "execute"),
        arguments=arguments,
        canonical=canonical_json(arguments),
        digest=arguments_digest(arguments),
        position=position,
        total=total,
    )


class PromptApp(App[None]):
    """An input to take focus away (``decoy_input``) and the prompt, focused; decisions kept."""

    def __init__(
        self,
        request: ApprovalRequest,
        workspace: Path,
        *,
        arming_delay: float = 0.0,
        with_future: bool = True,
        decoy_input: bool = True,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.workspace = workspace
        self.arming_delay = arming_delay
        self.with_future = with_future
        self.decoy_input = decoy_input
        self.decisions: list[Decision] = []
        self.future: asyncio.Future[Decision] | None = None
        self.key_clock = KeyClock(clock=clock)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.key_clock.key_event(event.time)  # as TuiAgentApp does
        await super().on_event(event)

    def compose(self) -> ComposeResult:
        if self.decoy_input:
            yield Input(id="elsewhere")
        if self.with_future:
            self.future = asyncio.get_running_loop().create_future()
        yield ApprovalPrompt(
            self.request,
            workspace=self.workspace,
            arming_delay=self.arming_delay,
            future=self.future,
        )

    def on_mount(self) -> None:
        self.query_one(ApprovalPrompt).focus()

    def on_approval_prompt_decided(self, message: ApprovalPrompt.Decided) -> None:
        self.decisions.append(message.decision)

    @property
    def prompt(self) -> ApprovalPrompt:
        return self.query_one(ApprovalPrompt)


def key_now(app: App[Any], key: str) -> None:
    """A key as the terminal delivers it, without Pilot's wait for idle (which can take longer
    than an arming delay on a busy machine)."""
    event = events.Key(key, key)
    event.set_sender(app)
    app.post_message(event)


async def wait_until_armed(pilot: Pilot[None], prompt: ApprovalPrompt, still: bool = False) -> None:
    """Wait (bounded) for the preview and the arming delay; for a snapshot (``still``) then for
    the screen as drawn to hold still (a loaded machine may lay the prompt out once more after
    it armed); never used to time assertions."""
    for _ in range(400):
        if prompt.armed:
            if still:
                await screen_still(pilot)
            else:
                await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError("the prompt never armed")


async def screen_still(pilot: Pilot[Any], looks: int = 3) -> None:
    """Draw every widget again, then wait until the screen as drawn was the same ``looks`` times
    in a row, 0.1 s apart (6 s at most). Drawn again: under load a widget may keep lines it drew
    before the last layout, which look the same but are cut into other pieces in the SVG."""
    for widget in pilot.app.screen.walk_children():
        widget.refresh()
    pilot.app.screen.refresh(layout=True)  # the screen's own cuts too, from the regions as now
    shot, still = "", 0
    for _ in range(60):
        await pilot.pause(0.1)
        now = pilot.app.export_screenshot()
        still = still + 1 if now == shot else 0
        if still >= looks - 1:
            return
        shot = now


async def confirm_edit(pilot: Pilot[Any], *, run: bool = True) -> ConfirmEdit:
    """After Ctrl+S on an edit: wait for the diff dialog to arm, then press y (or n)."""
    app = pilot.app
    for _ in range(400):
        screen = app.screen
        if isinstance(screen, ConfirmEdit) and screen.armed:
            await pilot.pause()
            await pilot.press("y" if run else "n")
            return screen
        await pilot.pause(0.02)
    raise AssertionError("the edit's diff was never shown armed")


def screen_lines(app: App[None]) -> list[str]:
    """The text of every screen row as the terminal would show it."""
    # Textual has no public way to get the composed screen; the compositor is what paints it.
    update = app.screen._compositor.render_full_update()
    return ["".join(strip.text for strip in row) for row in update.strips]


def screen_text(app: App[None]) -> str:
    return "\n".join(line.rstrip() for line in screen_lines(app))


def screen_rows(app: App[None]) -> list[str]:
    """Each screen row without the prompt's side borders and the spaces around them."""
    return [line.strip(" │") for line in screen_lines(app)]


def terminal_output(app: App[None]) -> str:
    """What would be written to the terminal for a full repaint, escape sequences included."""
    update = app.screen._compositor.render_full_update()
    return update.render_segments(app.console)


# The sequences Textual itself writes: colours and attributes (SGR) and cursor moves.
_OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[[0-9]+;[0-9]+H")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def stray_controls(output: str) -> list[str]:
    """Control characters left in terminal output once Textual's own sequences are removed."""
    return _CONTROL.findall(_OWN_SEQUENCES.sub("", output))
