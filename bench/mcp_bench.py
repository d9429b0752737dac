"""Benchmark: the cost of one MCP tool call over a no-op built-in tool, measured in the same run.

    python3 bench/mcp_bench.py            # 300 calls each, ~15 s
    python3 bench/mcp_bench.py --calls 50

Both go through what the agent does for a call: validate_call (the strict parse, then the tool's
schema: pydantic for the built-in, jsonschema for the MCP tool) and the tool's run function. The
built-in stand-in does nothing; the MCP tool is tests/mcp_servers/edge.py's ``count`` with n=1
over stdio (one JSON-RPC round trip to another process). It prints the median and p90 of each,
the ratio of the medians, and the server's start time (initialize + tools/list). It measures;
it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui_agent.mcp.config import McpServerConfig  # noqa: E402
from tui_agent.mcp.servers import McpServers  # noqa: E402
from tui_agent.stream.turn import ToolCall  # noqa: E402
from tui_agent.tools.registry import ToolRegistry  # noqa: E402
from tui_agent.tools.spec import Risk, ToolContext, ToolOutput, ToolSpec  # noqa: E402
from tui_agent.tools.validation import ValidatedCall, validate_call  # noqa: E402


class _NoArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    n: int


async def _noop(args: object, ctx: ToolContext) -> ToolOutput:
    return ToolOutput("1")


async def _timed(registry: ToolRegistry, name: str, ctx: ToolContext, calls: int) -> list[float]:
    times: list[float] = []
    for index in range(calls):
        started = time.perf_counter()
        checked = validate_call(registry, ToolCall(f"c{index}", name, '{"n": 1}'))
        assert isinstance(checked, ValidatedCall), checked
        output = await checked.spec.run(checked.args, ctx)
        times.append(time.perf_counter() - started)
        assert not output.is_error, output.text
    return times


def _line(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return f"| {label} | {statistics.median(times) * 1e6:,.0f} µs | {p90 * 1e6:,.0f} µs |"


async def main(calls: int) -> None:
    with tempfile.TemporaryDirectory() as marks:
        config = McpServerConfig(
            command=sys.executable,
            args=["-m", "tests.mcp_servers.edge"],
            env={"PYTHONPATH": str(ROOT), "MARK_DIR": marks},
        )
        servers = McpServers({"edge": config}, Path(marks))
        started = time.perf_counter()
        servers.start()
        await servers.wait_ready()
        startup = time.perf_counter() - started
        try:
            noop = ToolSpec("noop", "Does nothing.", _NoArgs, Risk.READ, _noop)
            registry = ToolRegistry([noop, *servers.tool_specs()])
            ctx = ToolContext(workspace=Path(marks))
            await _timed(registry, "noop", ctx, 20)  # warm both paths
            await _timed(registry, "mcp__edge__count", ctx, 20)
            builtin = await _timed(registry, "noop", ctx, calls)
            mcp = await _timed(registry, "mcp__edge__count", ctx, calls)
        finally:
            await servers.stop()
    print(f"{calls} calls each; server start (spawn, initialize, tools/list): {startup:.2f} s\n")
    print("| tool | median | p90 |\n|---|---|---|")
    print(_line("no-op built-in", builtin))
    print(_line("MCP over stdio", mcp))
    ratio = statistics.median(mcp) / statistics.median(builtin)
    print(f"\none MCP call costs {ratio:,.0f}x a no-op built-in call (medians, same run)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))
