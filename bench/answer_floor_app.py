"""The floor for bench/ui_answer_bench.py: the least a Textual app can do to show a streamed
answer. Enter sends one Chat Completions request, the deltas are gathered, and the whole text is
shown once, in one Static at the end of an anchored scroll view.

    python3 bench/answer_floor_app.py BASE_URL KEY_ENV
"""

from __future__ import annotations

import json
import os
import sys

import httpx
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class Floor(App[None]):
    BINDINGS = [("enter", "ask", "Ask")]  # noqa: RUF012

    def __init__(self, base_url: str, key: str) -> None:
        super().__init__()
        self.base_url = base_url
        self.key = key

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("floor ready", id="answer")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()

    @work
    async def action_ask(self) -> None:
        body = {
            "model": "fake-model",
            "stream": True,
            "messages": [{"role": "user", "content": "go"}],
        }
        parts: list[str] = []
        headers = {"Authorization": f"Bearer {self.key}"}
        async with (
            httpx.AsyncClient(timeout=120) as client,
            client.stream(
                "POST", f"{self.base_url}/chat/completions", json=body, headers=headers
            ) as response,
        ):
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                choices = json.loads(line[6:]).get("choices") or [{}]
                content = choices[0].get("delta", {}).get("content")
                if content:
                    parts.append(content)
        self.query_one("#answer", Static).update(Text("".join(parts)))
        self.query_one(VerticalScroll).scroll_end(animate=False)


if __name__ == "__main__":
    Floor(sys.argv[1], os.environ[sys.argv[2]]).run()
