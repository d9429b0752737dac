"""Records of every type for the session tests, and opaque provider data to keep byte-exact."""

from __future__ import annotations

import base64
import json
from typing import Any

from tui_agent.session.records import (
    AssistantRecord,
    DecisionRecord,
    HeaderRecord,
    NoteRecord,
    RawEvent,
    ToolCallRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)

# Looks exactly like a Google API key, inside encrypted reasoning: opaque, so it must survive.
GOOGLE_LOOKALIKE = "AIza" + "SyD3-abcdefghijklmnopqrstuvwxyz01234"[:35]
ENCRYPTED = (
    base64.b64encode(bytes(range(256)) * 3).decode()[:300]
    + "/"
    + GOOGLE_LOOKALIKE
    + base64.b64encode(b"tail" * 50).decode()
)
SIGNATURE = "EvMCCkYICxgCKkCHP2cSuEdcJK/0rFwqES/ecn+VurRpNTwI4XNyM0vnNf" + "sk-" + "Q" * 40
REAL_LOOKING_KEY = "sk-proj-" + "AbCdEfGh1234" * 4

OPAQUE_EVENTS = [
    RawEvent(
        t=0.1,
        event="response.output_item.done",
        data=json.dumps(
            {
                "type": "response.output_item.done",
                "item": {"type": "reasoning", "summary": [], "encrypted_content": ENCRYPTED},
            },
            separators=(",", ":"),
        ),
    ),
    RawEvent(
        t=0.2,
        event="content_block_delta",
        # Spaced JSON and an escaped slash: re-serializing would change these bytes.
        data='{"type": "content_block_delta", "index": 0, '
        '"delta": {"type": "signature_delta", "signature": "' + SIGNATURE + '"}}',
    ),
    RawEvent(
        t=0.3,
        event="",
        data='{"candidates":[{"content":{"parts":[{"text":"hi","thoughtSignature":"'
        + ENCRYPTED
        + '"}]}}],"note":"a\\/b"}',
    ),
    RawEvent(
        t=0.4,
        event="content_block_start",
        data=json.dumps(
            {"content_block": {"type": "redacted_thinking", "data": ENCRYPTED}}, indent=1
        ),
    ),
    RawEvent(t=0.5, event="", data="[DONE]"),
]


def text_event(text: str) -> RawEvent:
    """An OpenAI Chat text delta."""
    return RawEvent(t=0.6, event="", data=json.dumps({"choices": [{"delta": {"content": text}}]}))


def every_record(secret: str = "nothing-secret-here") -> list[Any]:
    """One record of each type (header first), with ``secret`` in every free-text field."""
    args = json.dumps({"path": "a.txt", "token": secret})
    return [
        HeaderRecord(
            ts=1.0,
            id="0abc",
            created=1.0,
            profile="default",
            protocol="openai-chat",
            model="m1",
            workspace="/w",
            title="t " + secret,
        ),
        UserRecord(ts=2.0, text="please use " + secret),
        AssistantRecord(
            ts=3.0,
            protocol="openai-chat",
            model="m1",
            text="using " + secret,
            reasoning="the key is " + secret,
            tool_calls=[ToolCallRecord(id="call_1", name="read_file", arguments=args)],
            stop_reason="tool_calls",
            usage={"prompt_tokens": 9, "details": {"echo": secret}},
            response_id="resp_1",
            raw=[*OPAQUE_EVENTS, text_event("using " + secret)],
        ),
        DecisionRecord(
            ts=4.0,
            call_id="call_1",
            decision="edit",
            digest="d" * 64,
            reason="because " + secret,
            arguments=args,
        ),
        ToolStartRecord(ts=5.0, call_id="call_1", digest="d" * 64),
        ToolResultRecord(ts=6.0, call_id="call_1", name="read_file", output="out " + secret),
        TruncatedRecord(
            ts=7.0,
            protocol="anthropic",
            model="m1",
            reason="error",
            error="HTTP 401 for key " + secret,
            stop_reason=None,
            text="partial " + secret,
            pending_calls=[{"id": "call_2", "name": "x"}],
            raw=[text_event("partial " + secret)],
        ),
        WithdrawRecord(ts=8.0),
        NoteRecord(ts=9.0, kind="notice", text="note " + secret),
    ]
