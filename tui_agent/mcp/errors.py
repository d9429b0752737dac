"""The one error of an MCP server's declaration (below both config.py and start.py, which
raise it)."""

from __future__ import annotations


class McpConfigError(ValueError):
    """A server's declaration cannot be used; the message names the server and the fault."""
