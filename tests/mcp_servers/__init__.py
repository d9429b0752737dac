"""Small MCP servers of our own, built with the SDK, for the edge cases (see test_mcp_edges.py)."""
