"""Benchmark: a server of 5,000 tools (tests/mcp_servers/flood.py) through ``tui-agent mcp
list --json`` and through one ``tui-agent run`` request.

    python3 bench/mcp_flood_bench.py            # 3 runs each, ~30 s
    python3 bench/mcp_flood_bench.py --tools 2000 --runs 1

It prints the median wall time of ``mcp list`` and of ``run`` (start, initialize, tools/list,
the tools adapted, one request to a loopback fake provider), and the bytes of tools the request
carried. Then, in this process, the longest the event loop stood still (a 10 ms ticker's
longest gap) from the start until every one of the tools was adapted (``mcp_max_tools`` raised
to all of them, with a listener that reads the specs on each change, as the agent's does): the
screen's freeze. It measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fake_provider import FakeProvider  # noqa: E402
from tests.mcp_helpers import own_server  # noqa: E402
from tests.run_helpers import KEY, Home, final  # noqa: E402


def _timed(argv: list[str], home: Home) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=home.env(), capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return took


async def _stall(tools: int) -> tuple[float, int]:
    """The event loop's longest stall while ``tools`` tools start and are adapted."""
    from tui_agent.mcp.config import McpServerConfig
    from tui_agent.mcp.servers import McpServers

    config = McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.mcp_servers.flood", "many", str(tools)],
        env={"PYTHONPATH": str(ROOT)},
    )
    with tempfile.TemporaryDirectory() as folder:
        try:  # the limits came with the worker thread; before them every tool was offered
            from tui_agent.mcp.limits import McpLimits

            servers = McpServers({"f": config}, Path(folder), McpLimits(max_tools=tools + 10))
        except ImportError:
            servers = McpServers({"f": config}, Path(folder))
        offered = [0]
        servers.listen(lambda e: offered.__setitem__(0, len(servers.tool_specs())))
        longest = [0.0]
        running = True

        async def ticker() -> None:
            last = time.perf_counter()
            while running:
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                longest[0] = max(longest[0], now - last)
                last = now

        ticking = asyncio.create_task(ticker())
        servers.start()
        await servers.wait_ready()
        settled = getattr(servers, "tools_settled", None)
        if settled is not None:
            await settled()
        running = False
        await ticking
        await servers.stop()
    return longest[0], offered[0]


def main(tools: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        home.write_config(own_server("f", "flood", "many", str(tools)))
        listing = [sys.executable, "-m", "tui_agent.cli", "mcp", "list", "--json"]
        lists = [_timed(listing, home) for _ in range(runs)]
        times, carried = [], 0
        for _ in range(runs):
            with FakeProvider("openai-chat", api_key=KEY) as server:
                server.script(final(server.protocol, "Done."))
                times.append(_timed(home.argv(server, "hi"), home))
                carried = len(json.dumps(server.requests[0].json.get("tools", [])))
    print(
        f"| {tools:,} tools | mcp list {statistics.median(lists):.2f} s "
        f"| run {statistics.median(times):.2f} s | tools in the request {carried:,} bytes |"
    )
    stall, offered = asyncio.run(_stall(tools))
    print(f"| all {offered:,} tools adapted | the event loop's longest stall {stall:.2f} s |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    main(options.tools, options.runs)
