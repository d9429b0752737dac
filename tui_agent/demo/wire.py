"""A Script as real Chat Completions stream chunks: text in pieces of a few words, each call's
name first and then its arguments in fragments of 3 to 8 characters, the finish_reason, a
usage chunk and ``[DONE]``. Deterministic: the same script and request number give the same
bytes."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from .script import Script, ScriptedCall

MODEL = "tui-agent-demo"
CREATED = 1_750_000_000  # fixed, so that a response is the same bytes every time
FRAGMENT_SIZES = (5, 3, 8, 4, 7, 6)
TEXT_PIECE_CHARS = 10

FrameKind = Literal["meta", "text", "args"]


@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE event; ``kind`` says how the server paces it."""

    data: str
    kind: FrameKind

    def encode(self) -> bytes:
        return f"data: {self.data}\n\n".encode()


def text_pieces(text: str) -> list[str]:
    """``text`` cut after whole words into pieces of about TEXT_PIECE_CHARS characters."""
    pieces: list[str] = []
    current = ""
    for token in re.findall(r"\S+\s*|\s+", text):
        current += token
        if len(current) >= TEXT_PIECE_CHARS:
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def argument_fragments(arguments: str) -> list[str]:
    """``arguments`` in fragments whose sizes cycle through FRAGMENT_SIZES."""
    fragments: list[str] = []
    sizes = itertools.cycle(FRAGMENT_SIZES)
    at = 0
    while at < len(arguments):
        size = next(sizes)
        fragments.append(arguments[at : at + size])
        at += size
    return fragments


def render(script: Script, number: int, prompt_tokens: int = 0) -> list[Frame]:
    """The events of response ``number`` (``chatcmpl-demo-<number>``), in wire order."""
    chunk_id = f"chatcmpl-demo-{number}"
    frames = [Frame(_chunk(chunk_id, {"role": "assistant", "content": ""}), "meta")]
    for piece in text_pieces(script.text):
        frames.append(Frame(_chunk(chunk_id, {"content": piece}), "text"))
    lanes = [_call_frames(chunk_id, index, call) for index, call in enumerate(script.calls)]
    if script.interleave:
        ordered = [f for row in itertools.zip_longest(*lanes) for f in row if f is not None]
    else:
        ordered = [frame for lane in lanes for frame in lane]
    if script.cut:
        # The body stops after half of the argument fragments, in the middle of a call.
        fragments = [i for i, frame in enumerate(ordered) if frame.kind == "args"]
        stop = fragments[len(fragments) // 2] if fragments else len(ordered)
        return frames + ordered[:stop]
    frames += ordered
    frames.append(Frame(_chunk(chunk_id, {}, script.finish_reason), "meta"))
    completion = (len(script.text) + sum(len(c.arguments) for c in script.calls)) // 4 + 1
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": prompt_tokens + completion,
    }
    frames.append(Frame(_json(_envelope(chunk_id, choices=[], usage=usage)), "meta"))
    frames.append(Frame("[DONE]", "meta"))
    return frames


def _call_frames(chunk_id: str, index: int, call: ScriptedCall) -> list[Frame]:
    """A call's announcement (id, type, name, empty arguments), then its argument fragments."""
    head = {"index": index, "id": call.id, "type": "function"}
    announce = {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
    frames = [Frame(_chunk(chunk_id, announce), "meta")]
    for fragment in argument_fragments(call.arguments):
        delta = {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}
        frames.append(Frame(_chunk(chunk_id, delta), "args"))
    return frames


def _chunk(chunk_id: str, delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return _json(_envelope(chunk_id, choices=[choice]))


def _envelope(chunk_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": chunk_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "system_fingerprint": "fp_demo",
        **fields,
    }


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
