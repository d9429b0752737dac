"""The answer put in place of a line the app refused to read: it answers the request the line
answered, wherever a server puts the id, and nothing when the line answers no request."""

from __future__ import annotations

import json

from tui_agent.mcp.bounded_stdout import refusal, too_deep
from tui_agent.mcp.limits import REFUSED_CODE


def _answered(line: bytes) -> object:
    answer = refusal(line[:4096], line[-4096:], "why")
    return None if answer is None else json.loads(answer)["id"]


def test_the_id_is_found_first_last_or_before_jsonrpc() -> None:
    body = b'"result":{"content":[{"type":"text","text":"' + b"y" * 10_000 + b'"}]}'
    assert _answered(b'{"jsonrpc":"2.0","id":7,' + body + b"}") == 7
    assert _answered(b'{"id":"a-1",' + body + b',"jsonrpc":"2.0"}') == "a-1"
    assert _answered(b"{" + body + b',"jsonrpc":"2.0","id":8}') == 8
    assert _answered(b"{" + body + b',"id":9,"jsonrpc":"2.0"}') == 9
    answer = refusal(b'{"jsonrpc":"2.0","id":1,"result":{}}', b"", "too big")
    assert answer is not None
    assert json.loads(answer)["error"] == {"code": REFUSED_CODE, "message": "too big"}


def test_a_line_that_answers_no_request_gets_no_answer() -> None:
    note = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}'
    assert _answered(note) is None
    request = b'{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}'
    assert _answered(request) is None
    # An "id" inside the result, at its end, is not the message's.
    assert _answered(b'{"jsonrpc":"2.0","result":{"item":{"id":5}}}') is None


def test_nesting_is_measured_not_guessed() -> None:
    assert too_deep(b"[" * 201 + b"]" * 201, 200)
    assert not too_deep(b"[" * 200 + b"]" * 200, 200)
    assert not too_deep(b"[" + b"[1]," * 5000 + b"[1]]", 200)  # many brackets, shallow
    assert not too_deep(b'"' + b"[" * 500 + b'"', 200)  # brackets inside a string
