"""One line of state: profile, model, approval mode (auto-all in warning colour), tokens, and
the connection (idle, streaming, waiting to retry, running tools, an error)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..sanitize import visible


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    profile: reactive[str] = reactive("")
    model: reactive[str] = reactive("")
    mode: reactive[str] = reactive("ask")
    tokens: reactive[int] = reactive(0)
    connection: reactive[str] = reactive("starting")
    hint: reactive[str] = reactive("")
    mcp: reactive[str] = reactive("")  # "MCP 2/3 ready", or "" without MCP servers

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(visible(self.profile or "-"), style="bold")
        text.append(" · ")
        text.append(visible(self.model or "-"))
        text.append(" · approval: ")
        if self.mode == "auto-all":
            text.append("AUTO-ALL", style="bold reverse yellow")
        elif self.mode == "auto-read":
            text.append("auto read-only", style="yellow")
        else:
            text.append("ask", style="green")
        text.append(f" · {self.tokens:,} tokens · ")
        style = "red" if self.connection.startswith("error") else ""
        text.append(visible(self.connection), style=style)
        if self.mcp:
            text.append(" · ")
            text.append(visible(self.mcp))
        if self.hint:
            text.append(" · ")
            text.append(visible(self.hint), style="italic")
        return text
