"""MCP tool servers: their tools become ToolSpecs that go through the same validation, approval
and execution as built-in tools.

Kept empty on purpose: config/ imports ``mcp.config`` (pydantic only), and nothing here may pull
the MCP SDK in before a server is actually used.
"""
