"""An ACP agent on the official SDK (agent-client-protocol) that does what its prompt says, for
the tests of tui-agent's ACP client: a real process speaking the real protocol, whose moves are
known in advance (the SDK's own example agent only echoes).

Prompts:
- ``write PATH TEXT``: a tool call of kind edit, its permission asked; allowed, it writes TEXT to
  PATH through the client (``fs/write_text_file``) and reports the diff; refused, the call fails.
- ``read PATH``: reads PATH through the client and says what it found.
- ``run COMMAND``: a tool call of kind execute, its permission asked; allowed, COMMAND runs in a
  terminal of the client (``terminal/create``, ``wait_for_exit``, ``output``, ``release``).
- ``stream``: thinks, says a plan, then streams text slowly until cancelled.
- ``plan``: a plan of three entries (one with markup and a control character in it), then the
  same plan with the first completed and the second in progress, each after some text.
- anything else: a thought, then the prompt's text back, then ``end_turn``.

Run as ``python scripted_agent.py``; ``--no-load`` leaves the loadSession capability out. With
SCRIPTED_AGENT_PID_FILE set, it starts a helper that leaves its process group (``sleep``, in a
session of its own, as a daemon would) and writes the helper's process id there.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any
from uuid import uuid4

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    plan_entry,
    run_agent,
    start_tool_call,
    text_block,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message,
    update_agent_thought,
    update_plan,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandsUpdate,
    Implementation,
    PermissionOption,
    ToolCallLocation,
    ToolCallUpdate,
)

OPTIONS = [
    PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
]


class ScriptedAgent(Agent):
    _conn: Client

    def __init__(self, can_load: bool) -> None:
        self.can_load = can_load
        self.cancelled: set[str] = set()
        self._told: asyncio.Future[None] | None = None

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=self.can_load),
            agent_info=Implementation(name="scripted", title="Scripted Agent", version="1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session_id = uuid4().hex
        asyncio.get_running_loop().call_later(0.05, self._advertise, session_id)
        return NewSessionResponse(session_id=session_id)

    def _advertise(self, session_id: str) -> None:
        commands = [AvailableCommand(name="review", description="review the changes")]
        update = AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=commands
        )
        self._told = asyncio.ensure_future(self._conn.session_update(session_id, update))

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        if not self.can_load:
            raise RequestError.method_not_found("session/load")
        await self._say(session_id, "(loaded)")
        return LoadSessionResponse()

    async def _say(self, session_id: str, text: str) -> None:
        await self._conn.session_update(session_id, update_agent_message(text_block(text)))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        self.cancelled.discard(session_id)
        words = text.split(" ", 2)
        if words[0] == "write" and len(words) == 3:
            return await self._write(session_id, words[1], words[2])
        if words[0] == "read" and len(words) == 2:
            found = await self._conn.read_text_file(session_id=session_id, path=words[1])
            await self._say(session_id, f"found: {found.content}")
            return PromptResponse(stop_reason="end_turn")
        if words[0] == "run" and len(words) >= 2:
            return await self._run(session_id, text.removeprefix("run "))
        if text == "stream":
            return await self._stream(session_id)
        if text == "plan":
            return await self._plan(session_id)
        await self._conn.session_update(session_id, update_agent_thought(text_block("thinking")))
        await self._say(session_id, f"you said: {text}")
        return PromptResponse(stop_reason="end_turn")

    async def _write(self, session_id: str, path: str, content: str) -> PromptResponse:
        await self._say(session_id, f"I will write {path}.")
        call_id = uuid4().hex[:8]
        title = f"Write {path}"
        where = [ToolCallLocation(path=path)]
        raw = {"path": path, "content": content}
        await self._conn.session_update(
            session_id,
            start_tool_call(
                call_id, title, kind="edit", status="pending", locations=where, raw_input=raw
            ),
        )
        asked = ToolCallUpdate(tool_call_id=call_id, title=title, kind="edit", raw_input=raw)
        answer = await self._conn.request_permission(
            session_id=session_id, tool_call=asked, options=OPTIONS
        )
        outcome = answer.outcome
        if outcome.outcome == "cancelled" or session_id in self.cancelled:
            return PromptResponse(stop_reason="cancelled")
        if outcome.option_id == "no":
            await self._conn.session_update(session_id, update_tool_call(call_id, status="failed"))
            await self._say(session_id, "Not written, as you asked.")
            return PromptResponse(stop_reason="end_turn")
        await self._conn.session_update(session_id, update_tool_call(call_id, status="in_progress"))
        try:
            await self._conn.write_text_file(session_id=session_id, path=path, content=content)
        except RequestError as exc:
            await self._conn.session_update(
                session_id, update_tool_call(call_id, status="failed", raw_output=str(exc))
            )
            await self._say(session_id, "The write was refused.")
            return PromptResponse(stop_reason="end_turn")
        diff = tool_diff_content(path, content, None)
        await self._conn.session_update(
            session_id, update_tool_call(call_id, status="completed", content=[diff])
        )
        always = " (allowed always)" if outcome.option_id == "always" else ""
        await self._say(session_id, f"Wrote {path}{always}.")
        return PromptResponse(stop_reason="end_turn")

    async def _run(self, session_id: str, command: str) -> PromptResponse:
        call_id = uuid4().hex[:8]
        title = f"Run {command}"
        await self._conn.session_update(
            session_id,
            start_tool_call(call_id, title, kind="execute", raw_input={"command": command}),
        )
        asked = ToolCallUpdate(tool_call_id=call_id, title=title, kind="execute")
        answer = await self._conn.request_permission(
            session_id=session_id, tool_call=asked, options=OPTIONS
        )
        if answer.outcome.outcome == "cancelled":
            return PromptResponse(stop_reason="cancelled")
        if answer.outcome.option_id == "no":
            await self._conn.session_update(session_id, update_tool_call(call_id, status="failed"))
            return PromptResponse(stop_reason="end_turn")
        made = await self._conn.create_terminal(session_id=session_id, command=command)
        await self._conn.session_update(
            session_id,
            update_tool_call(
                call_id, status="in_progress", content=[tool_terminal_ref(made.terminal_id)]
            ),
        )
        ended = await self._conn.wait_for_terminal_exit(
            session_id=session_id, terminal_id=made.terminal_id
        )
        output = await self._conn.terminal_output(
            session_id=session_id, terminal_id=made.terminal_id
        )
        await self._conn.session_update(
            session_id,
            update_tool_call(
                call_id, status="completed", content=[tool_terminal_ref(made.terminal_id)]
            ),
        )
        await self._conn.release_terminal(session_id=session_id, terminal_id=made.terminal_id)
        await self._say(session_id, f"exit {ended.exit_code}: {output.output.strip()}")
        return PromptResponse(stop_reason="end_turn")

    async def _stream(self, session_id: str) -> PromptResponse:
        await self._conn.session_update(session_id, update_agent_thought(text_block("hmm")))
        plan = update_plan([plan_entry("count", status="in_progress"), plan_entry("stop")])
        await self._conn.session_update(session_id, plan)
        for number in range(10_000):
            if session_id in self.cancelled:
                return PromptResponse(stop_reason="cancelled")
            await self._say(session_id, f"{number} ")
            await asyncio.sleep(0.02)
        return PromptResponse(stop_reason="end_turn")

    async def _plan(self, session_id: str) -> PromptResponse:
        odd = "[bold]not markup[/bold]\x1b[31m"
        await self._say(session_id, "Planning. ")
        first = [
            plan_entry("read the code", priority="high"),
            plan_entry("change it"),
            plan_entry(odd, priority="low"),
        ]
        await self._conn.session_update(session_id, update_plan(first))
        await self._say(session_id, "Reading. ")
        second = [
            plan_entry("read the code", priority="high", status="completed"),
            plan_entry("change it", status="in_progress"),
            plan_entry(odd, priority="low"),
        ]
        await self._conn.session_update(session_id, update_plan(second))
        await self._say(session_id, "Changing.")
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.add(session_id)


async def main() -> None:
    if pid_file := os.environ.get("SCRIPTED_AGENT_PID_FILE"):
        helper = subprocess.Popen(["sleep", "600"], start_new_session=True)
        with open(pid_file, "w") as handle:
            handle.write(str(helper.pid))
    await run_agent(ScriptedAgent(can_load="--no-load" not in sys.argv))


if __name__ == "__main__":
    asyncio.run(main())
