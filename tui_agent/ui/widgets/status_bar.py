"""One line of state: profile, model, approval mode (auto-all in warning colour), the command
sandbox (off, or a protection missing, in warning colour: see sandbox_view), tokens, how
full the context window is (in warning colour past the compaction threshold), and
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
    context: reactive[str] = reactive("")  # "ctx 12.3k/16k 77%" (see tui_agent/context/window)
    context_warning: reactive[bool] = reactive(False)  # past the compaction threshold
    mcp: reactive[str] = reactive("")  # "MCP 2/3 ready", or "" without MCP servers
    sandbox: reactive[str] = reactive("")  # "workspace-write", "read-only +net", "OFF"
    sandbox_warning: reactive[bool] = reactive(False)  # off, or a protection missing

    def render(self) -> Text:
        # Under 80 columns it takes two lines (app.tcss), so the connection state stays seen.
        text = Text(no_wrap=not self.screen.has_class("-narrow"), overflow="ellipsis")
        text.append(visible(self.profile or "-"), style="bold")
        text.append(" · ")
        text.append(visible(self.model or "-"))
        text.append(" · approval: ")
        if self.mode == "auto-all":
            text.append("AUTO-ALL", style="bold reverse yellow")
        elif self.mode == "auto-read":
            text.append("auto read-only", style="yellow")
        elif self.mode == "plan":
            text.append("PLAN", style="bold reverse cyan")
        else:
            text.append("ask", style="green")
        if self.sandbox:
            text.append(" · sandbox: ")
            text.append(self.sandbox, style="bold reverse yellow" if self.sandbox_warning else "")
        text.append(f" · {self.tokens:,} tokens · ")
        if self.context:
            text.append(self.context, style="bold yellow" if self.context_warning else "")
            text.append(" · ")
        style = "red" if self.connection.startswith("error") else ""
        text.append(visible(self.connection), style=style)
        if self.mcp:
            text.append(" · ")
            text.append(visible(self.mcp))
        if self.hint:
            text.append(" · ")
            text.append(visible(self.hint), style="italic")
        return text
