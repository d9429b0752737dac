"""What delegating a large read to a subagent saves the conversation's context.

    python3 bench/subagent_bench.py [--kb 200]

One question about a file of ``--kb`` KB of text, answered twice by a real Agent over the
loopback fake provider (tests/fake_provider), auto-read approvals: once with the model reading
the file itself (read_file), once with it delegating the read to the built-in explore agent
(task), which reads the file in its own context and answers in one line. It prints, for each,
the conversation's context after the answer (``Agent.context_used``: the same estimate the
status line shows; the fake provider reports no usage), the bytes of the conversation's last
request, the subagent's own context, and the ratio with / without delegation. It measures; it
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tui_agent and tests, if not installed

from tests.agent_helpers import agent_over, answer, call_ops  # noqa: E402
from tests.fake_provider import Reply  # noqa: E402
from tui_agent.agent.events import SubagentEvent  # noqa: E402
from tui_agent.approval import ApprovalMode  # noqa: E402
from tui_agent.context.events import ContextUpdate  # noqa: E402
from tui_agent.prompting.agents import AgentBook  # noqa: E402

PROTOCOL = "openai-chat"
SUMMARY = "The log holds 1,000 lines of the same request; line 637 is the only error: disk full."


def _log(kb: int) -> str:
    lines, size, number = [], 0, 0
    while size < kb * 1024:
        number += 1
        line = f"{number:06d} INFO request handled in 12 ms for /api/items?page={number}\n"
        lines.append(line)
        size += len(line)
    return "".join(lines)


async def _run(delegate: bool, kb: int, folder: Path) -> tuple[int, int, int]:
    if delegate:
        task = {
            "description": "find the error",
            "prompt": "Find the error in app.log",
            "agent": "explore",
        }
        steps = [
            Reply(call_ops(("call_T", "task", task))),
            Reply(call_ops(("sub_R", "read_file", {"path": "app.log"}))),
            answer(PROTOCOL, SUMMARY),
            answer(PROTOCOL, "Line 637: disk full."),
        ]
    else:
        steps = [
            Reply(call_ops(("call_R", "read_file", {"path": "app.log"}))),
            answer(PROTOCOL, "Line 637: disk full."),
        ]
    settings = {"tool_output_cap": 4 * 1024 * 1024}  # the whole file reaches the model
    async with agent_over(
        PROTOCOL,
        folder,
        *steps,
        mode=ApprovalMode.AUTO_READ,
        settings=settings,
        agents=AgentBook() if delegate else None,
    ) as h:
        (h.workspace / "app.log").write_text(_log(kb))
        sub_context = 0
        async for event in h.agent.send("What is the error in app.log?"):
            if isinstance(event, SubagentEvent) and isinstance(event.event, ContextUpdate):
                sub_context = max(sub_context, event.event.used)
        last = h.server.requests[-1].body
        return h.agent.context_used(), len(last), sub_context


async def main(kb: int) -> None:
    rows = []
    for delegate in (False, True):
        with tempfile.TemporaryDirectory() as folder:
            rows.append((delegate, *await _run(delegate, kb, Path(folder))))
    print(f"a {kb} KB file, one question")
    print("| | conversation's context (tokens) | its last request (bytes) | subagent's context |")
    print("|---|---|---|---|")
    for delegate, used, size, sub in rows:
        name = "delegated to explore" if delegate else "read in the conversation"
        print(f"| {name} | {used:,} | {size:,} | {sub:,} |")
    (_, without, without_bytes, _), (_, with_, with_bytes, _) = rows
    print(
        f"ratio with / without: {with_ / without:.4f} of the tokens, "
        f"{with_bytes / without_bytes:.4f} of the bytes"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kb", type=int, default=200)
    asyncio.run(main(parser.parse_args().kb))
