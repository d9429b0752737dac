"""Gemini ``streamGenerateContent?alt=sse``, including Vertex's streamed ``partialArgs``.

Function calls usually arrive whole, ``args`` as an object. With partialArgs a call opens with
``{name, willContinue: true}``, its arguments arrive as (jsonPath, value) pieces, and an empty
``{}`` closes it (or nothing does, and the finish reason ends it). Calls are keyed by their
position in the turn. The first chunk with a ``finishReason`` is the terminal event; STOP is
used for tool turns too. A Google Search the server ran (grounding) shows only in the
candidate's ``groundingMetadata`` (and, beside declared functions, as ``toolCall`` parts): its
queries and sources are gathered and told once as ``ServerToolUsed`` when the turn ends;
nothing of it runs here.
"""

from __future__ import annotations

from typing import Any

from ...stream.events import (
    ReasoningDelta,
    ServerToolUsed,
    StreamEvent,
    StreamFailure,
    TextDelta,
    ToolArgumentsFinal,
    ToolArgumentsProgress,
    ToolCallClosed,
    ToolCallStarted,
    TurnEnd,
    UsageReported,
)
from ...stream.jsonparse import dumps_compact
from ..decoding import StreamDecoder, error_message, parse_payload
from ..server_tools import grounding_detail
from .partial_args import PartialArgsError, PartialArgsObject

_KNOWN_EVENTS: frozenset[str] = frozenset()


class GenerateContentDecoder(StreamDecoder):
    def __init__(self) -> None:
        super().__init__()
        self._next_key = 0
        self._open_key: int | None = None
        self._open_args: PartialArgsObject | None = None
        self._usage: dict[str, Any] | None = None
        self._queries: dict[str, None] = {}  # what the server searched, in order
        self._sources: dict[str, None] = {}  # the pages its answer was grounded on

    def decode(self, event: str, data: str) -> list[StreamEvent]:
        # A call's arguments come as an object (or pieces of one): read exactly.
        payload = parse_payload(event, data, _KNOWN_EVENTS, "functionCall" in data)
        if payload is None:
            return []
        if isinstance(payload, StreamFailure):
            return [payload]
        if not isinstance(payload, dict):
            return [StreamFailure("protocol", "a chunk that is not a JSON object")]
        out: list[StreamEvent] = []
        if not self._identified:
            out += self.identify(payload.get("responseId"), data)
        if payload.get("error") or event == "error":
            out.append(StreamFailure("error", error_message(payload)))
        finish_reason = None
        candidates = payload.get("candidates")
        if isinstance(candidates, list) and candidates:
            candidate = candidates[0]
            if isinstance(candidate, dict):
                content = candidate.get("content")
                parts = content.get("parts") if isinstance(content, dict) else None
                if isinstance(parts, list):
                    for part in parts:
                        if isinstance(part, dict):
                            self._part(part, out)
                finish_reason = candidate.get("finishReason")
                self._grounding(candidate.get("groundingMetadata"))
        else:
            feedback = payload.get("promptFeedback")
            if isinstance(feedback, dict):
                finish_reason = feedback.get("blockReason")
        usage = payload.get("usageMetadata")
        if isinstance(usage, dict) and usage != self._usage:
            # Sent on every chunk, mostly unchanged: only a change is news.
            self._usage = usage
            out.append(UsageReported(usage))
        if isinstance(finish_reason, str) and finish_reason:
            self._close_open_call(out)
            if self._queries or self._sources:
                detail = grounding_detail(list(self._queries), list(self._sources))
                out.append(ServerToolUsed("google_search", detail))
            out.append(TurnEnd(finish_reason))
        return out

    def _grounding(self, metadata: object) -> None:
        if not isinstance(metadata, dict):
            return
        queries = metadata.get("webSearchQueries")
        for query in queries if isinstance(queries, list) else ():
            if isinstance(query, str) and query.strip():
                self._queries[query.strip()] = None
        chunks = metadata.get("groundingChunks")
        for chunk in chunks if isinstance(chunks, list) else ():
            web = chunk.get("web") if isinstance(chunk, dict) else None
            if not isinstance(web, dict):
                continue
            title, uri = web.get("title"), web.get("uri")
            source = title if isinstance(title, str) and title.strip() else uri
            if isinstance(source, str) and source.strip():
                self._sources[source.strip()] = None

    def _part(self, part: dict[str, Any], out: list[StreamEvent]) -> None:
        text = part.get("text")
        if isinstance(text, str):
            if text:
                out.append(ReasoningDelta(text) if part.get("thought") is True else TextDelta(text))
            return
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._function_call(call, out)
            return
        server_call = part.get("toolCall")  # a search the server ran (beside functions)
        if isinstance(server_call, dict):
            args = server_call.get("args")
            self._grounding(
                {"webSearchQueries": args.get("queries")} if isinstance(args, dict) else None
            )

    def _function_call(self, call: dict[str, Any], out: list[StreamEvent]) -> None:
        name = call.get("name")
        pieces = call.get("partialArgs")
        continues = call.get("willContinue") is True
        if isinstance(name, str) and name:
            self._close_open_call(out)
            key = self._next_key
            self._next_key += 1
            call_id = call.get("id")
            out.append(ToolCallStarted(key, call_id if isinstance(call_id, str) else "", name))
            args = call.get("args")
            if isinstance(args, dict):
                out.append(ToolArgumentsFinal(key, dumps_compact(args)))
            if continues or isinstance(pieces, list):
                self._open_key, self._open_args = key, PartialArgsObject()
            else:
                out.append(ToolCallClosed(key))
                return
        elif self._open_key is None:
            if isinstance(pieces, list) and pieces:
                out.append(StreamFailure("protocol", "partialArgs for a call that is not open"))
            return
        if self._open_args is not None and isinstance(pieces, list):
            for piece in pieces:
                try:
                    if not isinstance(piece, dict):
                        raise PartialArgsError("a partialArgs piece that is not an object")
                    size = self._open_args.apply(piece)
                except PartialArgsError as exc:
                    out.append(StreamFailure("protocol", str(exc)))
                    return
                out.append(ToolArgumentsProgress(self._open_key, size))
        if not continues:
            # ``{}`` closes the call; so does the last piece that does not say it continues.
            self._close_open_call(out)

    def _close_open_call(self, out: list[StreamEvent]) -> None:
        if self._open_key is None or self._open_args is None:
            return
        if self._open_args.value:
            out.append(ToolArgumentsFinal(self._open_key, dumps_compact(self._open_args.value)))
        out.append(ToolCallClosed(self._open_key))
        self._open_key = self._open_args = None
