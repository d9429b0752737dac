"""Events a provider may send that the record's redaction must survive: a ``type`` that is a
list or an object (the redaction once hashed it to test for opaque data and crashed: the turn
was lost and the loop died), with a key streamed in pieces around them."""

from __future__ import annotations

import json
from pathlib import Path

from tui_agent.agent.events import LoopEnded

from ..agent_helpers import agent_over, of_type
from ..fake_provider import Reply

PROTOCOL = "openai-chat"
KEY_IN_TEXT = "sk-proj-" + "Q7w" * 12


def _chunk(delta: dict[str, object], **extra: object) -> bytes:
    body = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": None, **extra}]
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _body() -> bytes:
    pieces = ["Here it is: ", KEY_IN_TEXT[:10], KEY_IN_TEXT[10:25], KEY_IN_TEXT[25:], " done."]
    chunks = [_chunk({"role": "assistant", "content": ""}, type=[])]
    chunks += [_chunk({"content": p}, type={"nested": ["x"]}) for p in pieces]
    chunks.append(_chunk({}, type=[{"type": {}}]))
    last = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    last["choices"] = [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    chunks.append(b"data: " + json.dumps(last).encode() + b"\n\n")
    return b"".join(chunks) + b"data: [DONE]\n\n"


async def test_a_type_that_is_a_list_or_an_object_is_saved_redacted(tmp_path: Path) -> None:
    async with agent_over(PROTOCOL, tmp_path, Reply(_body()), require_tools=False) as harness:
        events = await harness.send("show me")
        assert of_type(events, LoopEnded)[-1].outcome == "complete"
        records = harness.records()
        assert records[-1].type == "assistant"
        assert records[-1].text.startswith("Here it is: sk-proj-")
        saved = harness.writer.path.read_text()
    assert KEY_IN_TEXT not in saved
    assert KEY_IN_TEXT[:16] not in saved.replace("sk-proj-", "")
