"""The providers' own tools (their web search, Google Search grounding): how a profile switches
them on in each protocol's request, and what a decoder says of one the model used.

A server tool runs at the provider: nothing of it runs here, nothing is asked, and its result
goes to the model there. The stream shows that it ran (``ServerToolUsed``, shown as a card) and
the request of the next turn sends its blocks back as the provider made them (Anthropic's
``server_tool_use`` and result blocks are rebuilt from the raw events like every other block).

| protocol | `web_search` in the request's tools |
|---|---|
| anthropic | `{"type": "web_search_20250305", "name": "web_search"}` |
| openai-responses | `{"type": "web_search"}` |
| gemini-interactions | `{"type": "google_search"}` (Google Search grounding) |
| gemini | `{"google_search": {}}` (Google Search grounding), beside the functionDeclarations |

Chat Completions has none: a profile of it that asks for one is refused by its config.
generateContent tells a search only in the candidate's ``groundingMetadata`` (its
``webSearchQueries`` and the ``groundingChunks`` it used), told once, when the turn ends; a
request that also declares functions sets ``toolConfig.includeServerSideToolInvocations``, which
the API requires for the two together (Gemini 3 on the Gemini API; older models and Vertex
refuse the pair, and the server's message is shown).
"""

from __future__ import annotations

import json
from typing import Any

SERVER_TOOLS = ("web_search",)
_SHAPES: dict[str, dict[str, Any]] = {
    "anthropic": {"type": "web_search_20250305", "name": "web_search"},
    "openai-responses": {"type": "web_search"},
    "gemini-interactions": {"type": "google_search"},
    "gemini": {"google_search": {}},
}
DETAIL_CHARS = 300


def supports_server_tools(protocol: str) -> bool:
    return protocol in _SHAPES


def server_tool_entries(protocol: str, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """The request's tool entries for ``names`` (only ``web_search`` exists)."""
    if not names or protocol not in _SHAPES:
        return []
    return [dict(_SHAPES[protocol]) for name in names if name == "web_search"]


def grounding_detail(queries: list[str], sources: list[str]) -> str:
    """generateContent's grounding in a line: the queries it searched, then the sources."""
    asked = "; ".join(queries)
    found = f"sources: {', '.join(sources)}" if sources else ""
    return _cut(" · ".join(part for part in (asked, found) if part))


def detail(value: Any) -> str:
    """What a server tool was asked, in a line: its query or queries, a URL, else its JSON."""
    if isinstance(value, dict):
        for key in ("query", "url", "pattern"):
            if isinstance(value.get(key), str) and value[key]:
                return _cut(value[key])
        queries = value.get("queries")
        if isinstance(queries, list) and all(isinstance(q, str) for q in queries) and queries:
            return _cut("; ".join(queries))
        if not value:
            return ""
    if isinstance(value, str):
        return _cut(value)
    try:
        return _cut(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError):
        return ""


def server_tool_line(name: str, detail: str) -> str:
    """The line a card and `run` show for it (not yet sanitized)."""
    asked = f": {detail}" if detail else ""
    return f"[{name}] ran at the provider, nothing ran here{asked}"


def _cut(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"
