"""An npm ACP agent (Claude Code's adapter, Gemini CLI) run by tui-agent's ACP client against
the loopback fake provider: ``NpmAgent`` holds what differs between agents (its name, its
command in tests/acp_agents/node_modules/.bin, its fake key, wire format, side answers and
environment) and makes what does not: the skip when it is not installed, the fake provider, the
config table, a ``tui-agent run --agent`` in a ``Home``, and an ``AcpSession`` on its own.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tui_agent.acp_client.session import AcpSession
from tui_agent.agent.events import LoopEnded, TurnCompleted, TurnTruncated
from tui_agent.approval.policy import ApprovalPolicy
from tui_agent.checkpoints import Checkpointer
from tui_agent.stream.events import TextDelta

from .fake_provider import FakeProvider
from .run_helpers import Home

BIN = Path(__file__).resolve().parent / "acp_agents" / "node_modules" / ".bin"
SLOW_WORDS = [("text", f"word{n} ") for n in range(400)]  # with a Drip: a long stream


@dataclass(frozen=True)
class NpmAgent:
    name: str  # the config's [agents.NAME]
    program: str  # its file in BIN
    shown: str  # in the skip reason
    protocol: str  # the fake provider's wire format
    key: str
    aside: Callable[[Any], tuple[int, Any] | None]
    env: Callable[[Path, FakeProvider], dict[str, str]]  # HOME and the provider's variables
    args: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return BIN / self.program

    def command(self) -> list[str]:
        return [str(self.path), *self.args]

    def skip_unless_installed(self) -> pytest.MarkDecorator:
        why = None
        if shutil.which("node") is None:
            why = "node is not installed"
        elif not self.path.exists():
            why = f"{self.shown} is not installed: run `npm ci` in tests/acp_agents (.ci/run does)"
        return pytest.mark.skipif(why is not None, reason=why or "")

    def server(self) -> FakeProvider:
        server = FakeProvider(self.protocol, api_key=self.key, require_tools=False)
        server.aside = self.aside
        return server

    def config(self, root: Path, server: FakeProvider) -> str:
        """config.toml's table for the agent, its HOME ``root``."""
        env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in self.env(root, server).items())
        command = json.dumps(self.command())
        return f"[agents.{self.name}]\ncommand = {command}\nenv = {{ {env} }}\n"

    def configure(self, home: Home, server: FakeProvider) -> None:
        home.write_config(self.config(home.root, server))

    def run(self, home: Home, prompt: str, approve: str, *extra: str) -> Any:
        argv = [sys.executable, "-m", "tui_agent.cli", "run", "--agent", self.name, prompt]
        argv += ["--workspace", str(home.workspace), "--approve", approve, "--json", *extra]
        return home.run_argv(argv, key=None)

    def session(
        self, tmp_path: Path, server: FakeProvider, approver: Any, writer: Any
    ) -> AcpSession:
        workspace = tmp_path / "ws"
        workspace.mkdir(exist_ok=True)
        return AcpSession(
            self.name,
            self.command(),
            self.env(tmp_path, server),
            workspace=workspace,
            approver=approver,
            policy=ApprovalPolicy(),
            writer=writer,
            checkpointer=Checkpointer(workspace, root=tmp_path / "checkpoints"),
        )

    async def approve_on_the_app(
        self, tmp_path: Path, server: FakeProvider, workspace: Path, prompt: str, seen: str
    ) -> None:
        """In the ACP app: ``prompt`` sent, the approval prompt (``seen`` on the screen) answered
        y once armed, and the turn's "All done." shown; ``server`` is scripted to say it."""
        from tui_agent.ui.acp_app import AcpApp
        from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
        from tui_agent.wiring.host_options import HostOptions

        from .approval_prompt_app import screen_text
        from .ui_app_helpers import SIZE, send, wait_for, wait_text

        folder = tmp_path / "config" / "tui-agent"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text(self.config(tmp_path, server))
        app = AcpApp(HostOptions(workspace=str(workspace)), self.name)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.acp is not None, f"{self.shown} to start", 60)
            await send(pilot, prompt)
            await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the prompt", 60)
            approval = app.query_one(ApprovalPrompt)
            await wait_for(pilot, lambda: approval.armed, "the prompt to arm")
            assert seen in screen_text(app)
            await pilot.press("y")
            await wait_text(pilot, "All done.", 60)
            await wait_for(pilot, lambda: not app.busy, "the prompt to end")


async def assert_esc_cancels(session: AcpSession, writer: Any) -> None:
    """Cancelled at its first text, the turn ends truncated and keeps no assistant record."""
    await session.start()
    events: list[Any] = []
    try:
        async for event in session.send("talk slowly"):
            events.append(event)
            if isinstance(event, TextDelta) and not session._cancelled:
                session.cancel()
    finally:
        await session.close()
    assert [e for e in events if isinstance(e, TurnTruncated)]
    assert not [e for e in events if isinstance(e, TurnCompleted)]
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
    assert "assistant" not in [r.type for r in writer.records]
