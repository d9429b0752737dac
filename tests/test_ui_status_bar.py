"""The status line at every width: it shortens itself (hint, then labels, then the least needed
parts) rather than cut off the approval mode, the sandbox, the context or the connection state.
The real widget in a Textual app under Pilot, narrow (two lines) and wide (one)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tui_agent.ui.widgets.status_bar import StatusBar

HINT = "offline demo model; see README to configure a provider"


class StatusApp(App[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012  (as the app's)
    CSS = "Screen.-narrow StatusBar { height: 2; }"

    def compose(self) -> ComposeResult:
        yield StatusBar()


def _fill(bar: StatusBar, model: str = "qwen2.5-coder-32b-instruct") -> None:
    bar.profile = "local"
    bar.model = model
    bar.mode = "auto-all"
    bar.sandbox = "workspace-write +net"
    bar.tokens = 123_456
    bar.context = "ctx 98.3k/128k 77%"
    bar.connection = "retrying in 12 s"
    bar.mcp = "MCP 2/3 ready"
    bar.hint = HINT


@pytest.mark.parametrize("width", [40, 50, 60, 72, 80, 100, 120, 170, 230])
async def test_what_matters_is_always_on_the_line(width: int) -> None:
    app = StatusApp()
    async with app.run_test(size=(width, 6)) as pilot:
        bar = app.query_one(StatusBar)
        _fill(bar)
        await pilot.pause()
        text = bar.render().plain
        room = bar.content_size.width * (2 if width < 80 else 1)
        seen = text[: room - 1]  # what is left of it when the end is cut with an ellipsis
        for part in ("AUTO-ALL", "workspace-write +net", "77%", "retrying in 12 s"):
            assert part in seen, (width, text)
        assert "ctx 98.3k/128k 77%" in seen or "ctx 77%" in seen, (width, text)
        # It fits, or it is already the shortest form.
        assert len(text) <= room or text == bar._line(0).plain, (width, text)
        if width >= 100 or 50 <= width < 80:
            assert len(text) <= room, (width, text)


async def test_the_hint_goes_first_then_the_labels_then_profile_and_tokens() -> None:
    app = StatusApp()
    async with app.run_test(size=(230, 6)) as pilot:
        bar = app.query_one(StatusBar)
        _fill(bar)
        await pilot.pause()
        wide = bar.render().plain
        assert wide == (
            "local · qwen2.5-coder-32b-instruct · approval: AUTO-ALL · sandbox: "
            "workspace-write +net · 123,456 tokens · ctx 98.3k/128k 77% · retrying in 12 s · "
            f"MCP 2/3 ready · {HINT}"
        )
        await pilot.resize_terminal(170, 6)  # the hint goes first
        await pilot.pause()
        assert bar.render().plain == wide.removesuffix(f" · {HINT}")
        await pilot.resize_terminal(150, 6)  # then the labels
        await pilot.pause()
        assert bar.render().plain == (
            "local · qwen2.5-coder-32b-instruct · AUTO-ALL · workspace-write +net · 123k tok"
            " · ctx 98.3k/128k 77% · retrying in 12 s · MCP 2/3 ready"
        )
        await pilot.resize_terminal(120, 6)  # then the model's tail and the context's counts
        await pilot.pause()
        assert bar.render().plain == (
            "local · qwen2.5-coder-32b-i… · AUTO-ALL · workspace-write +net · 123k tok"
            " · ctx 77% · retrying in 12 s · MCP 2/3 ready"
        )
        await pilot.resize_terminal(110, 6)  # then the profile and the tokens
        await pilot.pause()
        assert bar.render().plain == (
            "qwen2.5-coder-32b-i… · AUTO-ALL · workspace-write +net"
            " · ctx 77% · retrying in 12 s · MCP 2/3 ready"
        )


async def test_at_80_columns_the_demo_keeps_profile_model_and_tokens() -> None:
    app = StatusApp()
    async with app.run_test(size=(80, 6)) as pilot:
        bar = app.query_one(StatusBar)
        bar.profile, bar.model, bar.sandbox = "demo", "tui-agent-demo", "workspace-write"
        bar.tokens, bar.context, bar.connection = 1_234, "ctx 1.2k/16k 7%", "deciding"
        await pilot.pause()
        assert bar.render().plain == (
            "demo · tui-agent-demo · ask · workspace-write · 1.2k tok · ctx 7% · deciding"
        )
