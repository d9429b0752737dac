"""Trust this workspace's ``.mcp.json``? Every server whole (``server 3 of 60``: its command, each
argument, cwd, env, or its URL and headers, each ``${VAR}`` named as a variable, and the servers
that never start, and why), then one key: t starts them (and remembers this exact file for this
workspace), n or Esc starts nothing. A key decides only once the screen is armed and everything
was scrolled through (``TrustQuestion``): typing never trusts."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from ...mcp.workspace_file import VariablePolicy, WorkspaceServers
from ..sanitize import visible_line
from .trust_question import TrustQuestion


class McpTrustScreen(TrustQuestion):
    DEFAULT_CSS = """
    McpTrustScreen #lines { color: $text; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("t", "trust", "Trust and start")]

    def __init__(self, declared: WorkspaceServers, policy: VariablePolicy) -> None:
        count = len(declared.servers)
        super().__init__(
            visible_line(
                f"This workspace's {declared.path.name} declares MCP servers ({count}). "
                "Nothing of it runs until you trust it:"
            ),
            declared.describe(policy),
            "t: trust this file for this workspace and start them · n or Esc: not now "
            "(asked again next time; an edited file is asked again)",
        )
        self.declared = declared
