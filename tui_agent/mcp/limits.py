"""What one session accepts from its MCP servers, each bound with the setting that raises it.

A server is other people's code: one message, one schema, one tool list or a storm of change
notifications must not cost the app unbounded memory, time or request bytes. Each limit that is
hit says so, with its cause, to the person (a notice) or to the model (an error result).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_TOOLS = 128
MAX_DEPTH = 200  # JSON nesting of one message (the SDK's parser gives up near 255, silently)
SCHEMA_NODES = 20_000  # objects, arrays and values of one tool's schema once its $refs are inlined
DEFAULT_LIST_CHANGED_INTERVAL_S = 1.0
# A JSON-RPC error code of our own: what the app refused to read, in place of the server's answer.
REFUSED_CODE = -32070


@dataclass(frozen=True)
class McpLimits:
    """``max_message_bytes``: one line a stdio server writes (a result included);
    ``max_tools``: the MCP tools one request offers, across servers; ``list_changed_interval_s``:
    at most one tools/list per server in this time, however often it says its tools changed."""

    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    max_tools: int = DEFAULT_MAX_TOOLS
    list_changed_interval_s: float = DEFAULT_LIST_CHANGED_INTERVAL_S
    max_depth: int = MAX_DEPTH
    schema_nodes: int = SCHEMA_NODES
