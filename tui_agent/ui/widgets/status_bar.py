"""One line of state: profile, model, reasoning effort (when one is asked for), approval mode
(auto-all in warning colour), the command sandbox (off, or a protection missing, in warning
colour: see sandbox_view), tokens, the session's cost (for a model with a price), how full the
context window is (in warning colour past the compaction threshold), and the connection (idle,
streaming, waiting to retry, running tools, an error). In a narrow terminal it shortens itself
rather than cut the connection state off."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..sanitize import visible

# How many cells a model's name keeps when the line is short of room (then cut with "…").
MODEL_CELLS = 20


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
    effort: reactive[str] = reactive("")  # the reasoning effort asked for; "" when none is
    mode: reactive[str] = reactive("ask")
    tokens: reactive[int] = reactive(0)
    cost: reactive[str] = reactive("")  # the session's cost, "$0.0123"; "" for an unpriced model
    connection: reactive[str] = reactive("starting")
    hint: reactive[str] = reactive("")
    context: reactive[str] = reactive("")  # "ctx 12.3k/16k 77%" (see tui_agent/context/window)
    context_warning: reactive[bool] = reactive(False)  # past the compaction threshold
    mcp: reactive[str] = reactive("")  # "MCP 2/3 ready", or "" without MCP servers
    jobs: reactive[str] = reactive("")  # "2 jobs" running in the background, or "" when none
    sandbox: reactive[str] = reactive("")  # "workspace-write", "read-only +net", "OFF"
    sandbox_warning: reactive[bool] = reactive(False)  # off, or a protection missing

    def render(self) -> Text:
        # Under 80 columns it takes two lines (app.tcss). When even that cannot hold every part,
        # the labels go first, then the least needed parts, so the approval mode, the sandbox,
        # the context and the connection state stay seen.
        narrow = self.screen.has_class("-narrow")
        room = self.content_size.width * (2 if narrow else 1) - (6 if narrow else 0)
        for detail in (5, 4, 3, 2, 1, 0):
            text = self._line(detail)
            if detail == 0 or room <= 0 or text.cell_len <= room:
                break
        text.no_wrap = not narrow
        text.overflow = "ellipsis"
        return text

    def _line(self, detail: int) -> Text:
        """5: every part with its label; 4: no hint; 3: short labels; 2: the model cut to
        MODEL_CELLS and the context as its share only; 1: no profile or tokens; 0: no model
        either."""
        parts: list[Text] = []
        if detail >= 1:
            if detail >= 2:
                parts.append(Text(visible(self.profile or "-"), style="bold"))
            model = Text(visible(self.model or "-"))
            if detail <= 2:
                model.truncate(MODEL_CELLS, overflow="ellipsis")
            parts.append(model)
        if self.effort and detail >= 2:
            parts.append(Text(f"effort {visible(self.effort)}" if detail >= 3 else self.effort))
        parts.append(self._mode(labelled=detail >= 4))
        if self.sandbox:
            sandbox = Text("sandbox: " if detail >= 4 else "")
            sandbox.append(
                self.sandbox, style="bold reverse yellow" if self.sandbox_warning else ""
            )
            parts.append(sandbox)
        if detail >= 2:
            parts.append(Text(f"{self.tokens:,} tokens" if detail >= 4 else _short(self.tokens)))
            if self.cost:
                parts.append(Text(visible(self.cost)))
        if self.context:
            context = self.context if detail >= 3 else _share(self.context)
            parts.append(Text(context, style="bold yellow" if self.context_warning else ""))
        style = "red" if self.connection.startswith("error") else ""
        parts.append(Text(visible(self.connection), style=style))
        if self.mcp:
            parts.append(Text(visible(self.mcp)))
        if self.jobs:
            parts.append(Text(visible(self.jobs), style="cyan"))
        if self.hint and detail == 5:
            parts.append(Text(visible(self.hint), style="italic"))
        return Text(" · ").join(parts)

    def _mode(self, labelled: bool) -> Text:
        text = Text("approval: " if labelled else "")
        if self.mode == "auto-all":
            text.append("AUTO-ALL", style="bold reverse yellow")
        elif self.mode == "auto-read":
            text.append("auto read-only", style="yellow")
        elif self.mode == "plan":
            text.append("PLAN", style="bold reverse cyan")
        else:
            text.append("ask", style="green")
        return text


def _share(context: str) -> str:
    """ "ctx 12.3k/16k 77%" as "ctx 77%": how full, without the counts."""
    words = context.split()
    return f"{words[0]} {words[-1]}" if len(words) >= 3 else context


def _short(tokens: int) -> str:
    """12,345 tokens as "12.3k tok"."""
    if tokens < 1000:
        return f"{tokens} tok"
    if tokens < 100_000:
        return f"{tokens / 1000:.1f}k tok"
    return f"{tokens // 1000:,}k tok"
