"""search_text: real files, a real worker process, and a pattern that never finishes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.tools.builtin import search_text
from tui_agent.tools.text_files import looks_binary

from .support.waiting import ends
from .tools_helpers import call, make_context

REGISTRY = builtin_registry()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    context = make_context(tmp_path, protected=(tmp_path / "ws" / ".app",))
    ws = context.workspace
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    (ws / "README.md").write_text("# Title\nCall main() to start.\n")
    (ws / "logo.png").write_bytes(b"\x89PNG\0\0main()")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("main() in git\n")
    (ws / ".app").mkdir()
    (ws / ".app" / "log.txt").write_text("main() in the app's log\n")
    return context


async def search(ctx: ToolContext, **arguments: object) -> ToolOutput:
    return await call(REGISTRY, ctx, "search_text", json.dumps(arguments))


async def test_matches_as_path_line_text_in_path_order(ctx: ToolContext) -> None:
    output = await search(ctx, pattern=r"main\(\)")
    assert output == ToolOutput(
        "README.md:2: Call main() to start.\n"
        "src/main.py:3: def main():\n"
        "[search_text: 1 binary files skipped]"
    )


async def test_path_may_be_a_folder_or_a_file(ctx: ToolContext) -> None:
    assert (await search(ctx, pattern="os", path="src")).text == (
        "src/main.py:1: import os\nsrc/main.py:4:     return os.getcwd()"
    )
    assert (await search(ctx, pattern="Title", path="README.md")).text == "README.md:1: # Title"


async def test_no_matches_and_invalid_regex(ctx: ToolContext) -> None:
    none = await search(ctx, pattern="zebra", path="src")
    assert none == ToolOutput("no matches for 'zebra' in src")
    bad = await search(ctx, pattern="main(")
    assert bad.is_error
    assert bad.text.startswith("invalid regular expression: missing ), unterminated subpattern")
    missing = await search(ctx, pattern="x", path="nope")
    assert missing == ToolOutput("nope: no such file or directory", is_error=True)


async def test_many_matches_are_capped_with_a_note(ctx: ToolContext) -> None:
    (ctx.workspace / "many.txt").write_text("hit\n" * 2000)
    lines = (await search(ctx, pattern="^hit$", path="many.txt")).text.splitlines()
    assert len(lines) == search_text.MAX_MATCHES + 1
    assert lines[0] == "many.txt:1: hit"
    assert lines[-1] == "[search_text: stopped at 500 matches; narrow the pattern or the path]"


async def test_long_lines_are_shown_as_an_excerpt(ctx: ToolContext) -> None:
    (ctx.workspace / "wide.txt").write_text("a" * 5000 + "NEEDLE" + "b" * 5000 + "\n")
    text = (await search(ctx, pattern="NEEDLE", path="wide.txt")).text
    assert text.startswith("wide.txt:1: …aaa")
    assert "NEEDLE" in text and text.endswith("…")
    assert len(text) < 400


async def test_catastrophic_pattern_is_stopped_and_the_app_stays_responsive(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_text, "TIME_LIMIT_S", 0.5)
    monkeypatch.setattr(search_text, "KILL_MARGIN_S", 0.5)
    (ctx.workspace / "a_first.txt").write_text("quick match here\n")
    (ctx.workspace / "evil.txt").write_text("a" * 40 + "!\n")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    # The pattern never ends on evil.txt: only the (patched) 1 s limit stops the worker.
    output = await ends(search(ctx, pattern=r"^(a+)+$|quick"), "the search")
    ticking.cancel()
    # The search took at least its 1 s limit: a loop that was not frozen ticked meanwhile.
    assert ticks >= 3, "the event loop was frozen during the search"
    assert output.text.startswith("a_first.txt:1: quick match here\n")
    assert "stopped after 1 s; the pattern" in output.text  # the patched limit, not 25 s
    assert "may backtrack catastrophically" in output.text
    assert not output.is_error


async def test_workspace_python_files_cannot_hijack_the_worker(ctx: ToolContext) -> None:
    (ctx.workspace / "re.py").write_text("raise SystemExit('hijacked')\n")
    (ctx.workspace / "json.py").write_text("raise SystemExit('hijacked')\n")
    output = await search(ctx, pattern="hijacked")
    assert output.text.startswith("json.py:1: raise SystemExit('hijacked')\nre.py:1:")


def test_binary_sniffing() -> None:
    assert looks_binary(b"abc\0def")
    assert looks_binary(bytes(range(128, 256)) * 4)
    assert not looks_binary("héllo wörld ✓\n".encode())
    assert not looks_binary(b"")
    # A sample cut inside a multi-byte character is still text.
    assert not looks_binary("ab✓".encode()[:-1])
