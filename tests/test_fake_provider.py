"""The fake provider over real sockets: conversations, request checks and every fault."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tui_agent import TurnReader, assemble

from . import wire
from .fake_provider import (
    BigArguments,
    Drip,
    ErrorEvent,
    ExpectToolResults,
    FakeProvider,
    Reply,
    Reset,
    StallBeforeTerminal,
    Status,
)
from .fake_provider.samples import CALL_ID, CALL_OPS, headers, request, url
from .fake_provider.steps import last_event_start

PROTOCOLS = list(wire.BUILDERS)
KEY = "test-key"
TIMEOUT = httpx.Timeout(5.0)
TEXT_OPS = [("text", "Sunny, "), ("text", "18C.")]


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=TIMEOUT) as c:
        yield c


def post(client: httpx.Client, server: FakeProvider, body: Any, key: str | None = KEY) -> Any:
    """Stream one request; the response (body read) and its decoded turn (None unless 200)."""
    target = url(server.base_url, server.protocol)
    with client.stream("POST", target, json=body, headers=headers(server.protocol, key)) as r:
        raw = list(r.iter_raw())
    turn = assemble(server.protocol, raw) if r.status_code == 200 else None
    return r, b"".join(raw), turn


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_two_step_conversation_with_correct_tool_result(
    protocol: str, client: httpx.Client
) -> None:
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(CALL_OPS),
            Reply(TEXT_OPS, expect=ExpectToolResults({CALL_ID: "18C"})),
        )
        r, _, turn = post(client, server, request(protocol))
        assert r.headers["content-type"] == "text/event-stream"
        assert turn.outcome == "complete"
        assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
            (CALL_ID, "get_weather", '{"city":"Paris"}')
        ]
        r, _, turn = post(client, server, request(protocol, result=(CALL_ID, "18C")))
        assert r.status_code == 200
        assert turn.outcome == "complete"
        assert turn.text == "Sunny, 18C."
        assert [q.json for q in server.requests] == [
            request(protocol),
            request(protocol, result=(CALL_ID, "18C")),
        ]
        server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_wrong_call_id_is_recorded_and_answered_400(protocol: str, client: httpx.Client) -> None:
    # For openai-responses the classic mistake: answering with the fc_ item id, not call_id.
    wrong = "fc_0" if protocol == "openai-responses" else "call_WRONG"
    with FakeProvider(protocol) as server:
        server.script(Reply(CALL_OPS), Reply(TEXT_OPS, expect=ExpectToolResults({CALL_ID: None})))
        post(client, server, request(protocol))
        r, body, _ = post(client, server, request(protocol, result=(wrong, "18C")))
        assert r.status_code == 400
        assert wrong.encode() in body and b"fake provider" in body
        failures = server.take_failures()
        assert len(failures) == 1 and wrong in failures[0]
        server.assert_all_consumed()


def test_expected_output_substring_and_callable_expectations(client: httpx.Client) -> None:
    def no_system(body: Any) -> None:
        assert "system" not in body, "a system prompt was sent"

    with FakeProvider("anthropic") as server:
        server.script(
            Reply(CALL_OPS),
            Reply(TEXT_OPS, expect=[ExpectToolResults({CALL_ID: "18C"}), no_system]),
            Reply(TEXT_OPS, expect=no_system),
        )
        post(client, server, request("anthropic"))
        assert post(client, server, request("anthropic", (CALL_ID, "rain")))[0].status_code == 400
        assert "lacks '18C'" in server.take_failures()[0]
        assert post(client, server, {**request("anthropic"), "system": "x"})[0].status_code == 400
        (failure,) = server.take_failures()
        assert failure.startswith("request 3 POST /v1/messages: a system prompt was sent")


def test_tool_result_shape_rules(client: httpx.Client) -> None:
    with FakeProvider("anthropic", check_on_exit=False) as server:
        server.script(Reply(TEXT_OPS))
        body = request("anthropic", (CALL_ID, "18C"))
        body["messages"][-1]["content"].insert(0, {"type": "text", "text": "also"})
        assert post(client, server, body)[0].status_code == 400
        assert "must come first" in server.take_failures()[0]
    with FakeProvider("openai-responses") as server:
        server.script(Reply(TEXT_OPS), Reply(TEXT_OPS))
        stateful = request("openai-responses", (CALL_ID, "18C"))
        stateful["input"] = stateful["input"][-1:]
        assert post(client, server, stateful)[0].status_code == 400
        assert "previous_response_id" in server.take_failures()[0]
        stateful["previous_response_id"] = "resp_test"
        assert post(client, server, stateful)[0].status_code == 200
    with FakeProvider("gemini") as server:  # a call without an id is answered by name
        server.script(Reply(TEXT_OPS, expect=ExpectToolResults({"get_weather": "18C"})))
        body = request("gemini", (CALL_ID, "18C"))
        del body["contents"][1]["parts"][0]["functionCall"]["id"]
        del body["contents"][2]["parts"][0]["functionResponse"]["id"]
        assert post(client, server, body)[0].status_code == 200
    with FakeProvider("gemini-interactions") as server:  # the user_input-wrapped shape
        server.script(Reply(TEXT_OPS, expect=ExpectToolResults({CALL_ID: "18C"})))
        body = request("gemini-interactions", (CALL_ID, "18C"))
        body["input"][-1] = {"type": "user_input", "content": [body["input"][-1]]}
        assert post(client, server, body)[0].status_code == 200


@pytest.mark.parametrize("protocol", ["openai-responses", "gemini-interactions"])
def test_only_the_last_batch_of_results_counts(protocol: str, client: httpx.Client) -> None:
    first, second = request(protocol, (CALL_ID, "1")), request(protocol, ("call_B", "2"))
    second["input"][-2]["call_id" if protocol == "openai-responses" else "id"] = "call_B"
    body = {**first, "input": first["input"] + second["input"][1:]}  # two rounds, stateless
    with FakeProvider(protocol) as server:
        server.script(Reply(TEXT_OPS, expect=ExpectToolResults({"call_B": "2"})))
        assert post(client, server, body)[0].status_code == 200


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_auth_headers_are_checked(protocol: str, client: httpx.Client) -> None:
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(TEXT_OPS), Reply(TEXT_OPS), Reply(TEXT_OPS))
        assert post(client, server, request(protocol), key="other")[0].status_code == 401
        assert post(client, server, request(protocol), key=None)[0].status_code == 401
        assert post(client, server, request(protocol))[0].status_code == 200
        failures = server.take_failures()
        assert len(failures) == 2 and all("header" in f for f in failures)
        assert KEY not in " ".join(failures) and "other" not in " ".join(failures)


def test_anthropic_version_stream_flag_tools_and_route_are_checked(client: httpx.Client) -> None:
    with FakeProvider("anthropic") as server:
        server.script(*[Reply(TEXT_OPS)] * 3)
        r = client.post(url(server.base_url, "anthropic"), json=request("anthropic"))
        assert r.status_code == 401 and "anthropic-version" in r.json()["error"]["message"]
        assert post(client, server, {**request("anthropic"), "stream": False})[0].status_code == 400
        no_tools = {k: v for k, v in request("anthropic").items() if k != "tools"}
        assert post(client, server, no_tools)[0].status_code == 400
        assert len(server.take_failures()) == 3
    with FakeProvider("gemini") as server:
        server.script(Reply(TEXT_OPS), Reply(TEXT_OPS))
        target = server.base_url + "/v1beta/models/m:streamGenerateContent"
        assert client.post(target, json=request("gemini")).status_code == 404
        assert client.post(server.base_url + "/v1/x", json=request("gemini")).status_code == 404
        assert "alt=sse" in server.take_failures()[0]


def test_script_exhausted_answers_500_and_unconsumed_steps_are_reported(
    client: httpx.Client,
) -> None:
    with FakeProvider("openai-chat", check_on_exit=False) as server:
        r, body, _ = post(client, server, request("openai-chat"))
        assert r.status_code == 500 and b"fake provider: no scripted step left" in body
        assert server.take_failures()
        server.script(Reply(TEXT_OPS), Status(503))
        post(client, server, request("openai-chat"))
        with pytest.raises(AssertionError, match="1 scripted step"):
            server.assert_all_consumed()
        server.failures.append("x")
        with pytest.raises(AssertionError, match="x"):
            server.assert_ok()


@pytest.mark.parametrize(
    ("code", "extra"),
    [
        (429, {"retry-after": "2"}),
        (429, {"retry-after-ms": "1500"}),
        (429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        (429, {"retry-after": "1e9"}),
        (500, {}),
        (503, {}),
        (529, {}),
    ],
)
def test_status_fault_sends_code_headers_and_json(
    code: int, extra: dict[str, str], client: httpx.Client
) -> None:
    with FakeProvider("anthropic") as server:
        body = b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'
        server.script(Reply(faults=[Status(code, extra, body if code == 529 else None)]))
        server.script(Reply(TEXT_OPS))  # the same connection still serves the retry
        r, raw, _ = post(client, server, request("anthropic"))
        assert r.status_code == code
        assert {k: r.headers[k] for k in extra} == extra
        assert b'"error"' in raw and (raw == body or code != 529)
        assert post(client, server, request("anthropic"))[2].outcome == "complete"
        server.assert_all_consumed()


@pytest.mark.parametrize("framing", ["chunked", "close"])
def test_reset_cuts_the_body_with_a_connection_error(framing: str, client: httpx.Client) -> None:
    ops = [("text", "x" * 100)] * 30
    full = wire.chat(ops, stop="stop")
    with FakeProvider("openai-chat", framing=framing) as server:
        server.script(Reply(ops, stop="stop", faults=[Reset(after_bytes=1000)]))
        got = bytearray()
        target = url(server.base_url, "openai-chat")
        with (
            pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)),
            client.stream("POST", target, json=request("openai-chat")) as r,
        ):
            for chunk in r.iter_raw():
                got += chunk
        assert bytes(got) == full[:1000]
        assert assemble("openai-chat", [bytes(got)]).reason == "cut"
        assert server.wait_connections(0, 2.0)


def test_reset_before_any_response_byte(client: httpx.Client) -> None:
    with FakeProvider("openai-responses") as server:
        server.script(Reply(TEXT_OPS, faults=[Reset(after_bytes=None)]), Reply(TEXT_OPS))
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            post(client, server, request("openai-responses"))
        assert post(client, server, request("openai-responses"))[2].outcome == "complete"


def test_drip_is_slow_and_arrives_in_many_pieces(client: httpx.Client) -> None:
    full = wire.responses(TEXT_OPS)
    pieces = -(-len(full) // 64)
    with FakeProvider("openai-responses") as server:
        server.script(Reply(TEXT_OPS, faults=[Drip(bytes_per_chunk=64, interval_s=0.01)]))
        started = time.monotonic()
        target = url(server.base_url, "openai-responses")
        with client.stream("POST", target, json=request("openai-responses")) as r:
            raw = list(r.iter_raw())
        assert time.monotonic() - started >= 0.8 * (pieces - 1) * 0.01
        assert max(map(len, raw)) <= 64 and len(raw) > pieces // 2 > 5
        assert b"".join(raw) == full and assemble("openai-responses", raw).outcome == "complete"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_stall_before_terminal_withholds_only_the_terminal_event(
    protocol: str, client: httpx.Client
) -> None:
    full = wire.BUILDERS[protocol](CALL_OPS)
    with FakeProvider(protocol) as server:
        server.script(Reply(CALL_OPS, faults=[StallBeforeTerminal()]))
        reader = TurnReader(protocol)
        got = bytearray()
        released = False
        target = url(server.base_url, protocol)
        hdrs = headers(protocol, None)
        with client.stream("POST", target, json=request(protocol), headers=hdrs) as r:
            assert r.status_code == 200
            for chunk in r.iter_raw():
                got += chunk
                reader.feed(chunk)
                if not released and full.startswith(got) and len(got) == last_event_start(full):
                    assert server.wait_stalled(2.0)
                    assert not reader.ended  # every event but the terminal one arrived
                    server.release()
                    released = True
        assert released and bytes(got) == full
        turn = reader.close()
        assert turn.outcome == "complete" and turn.tool_calls[0].id == CALL_ID


async def test_async_client_stall_before_terminal_and_release() -> None:
    with FakeProvider("anthropic") as server:
        server.script(Reply(CALL_OPS, faults=[StallBeforeTerminal()]))
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            target = url(server.base_url, "anthropic")
            hdrs = headers("anthropic", None)
            async with client.stream("POST", target, json=request("anthropic"), headers=hdrs) as r:
                reader = TurnReader("anthropic")
                async for chunk in r.aiter_raw():
                    reader.feed(chunk)
                    if await server.wait_stalled_async(0.01):
                        assert not reader.ended
                        server.release()
            assert reader.close().outcome == "complete"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_error_event_mid_stream_truncates_the_turn(protocol: str, client: httpx.Client) -> None:
    with FakeProvider(protocol) as server:
        server.script(Reply(TEXT_OPS + CALL_OPS, faults=[ErrorEvent("boom", after_ops=3)]))
        r, _, turn = post(client, server, request(protocol))
        assert r.status_code == 200
        assert turn.outcome == "truncated" and turn.reason == "error"
        assert "boom" in (turn.error or "")


def test_close_framing_ends_the_body_by_closing(client: httpx.Client) -> None:
    with FakeProvider("gemini-interactions", framing="close") as server:
        server.script(Reply(CALL_OPS), Reply(CALL_OPS, framing="chunked"))
        r, _, turn = post(client, server, request("gemini-interactions"))
        assert "transfer-encoding" not in r.headers and r.headers["connection"] == "close"
        assert turn.outcome == "complete"
        r, _, turn = post(client, server, request("gemini-interactions"))
        assert r.headers["transfer-encoding"] == "chunked" and turn.outcome == "complete"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_big_arguments_stream_completes(protocol: str, client: httpx.Client) -> None:
    with FakeProvider(protocol) as server:
        server.script(Reply(BigArguments(size=10_000_000)))
        _, raw, turn = post(client, server, request(protocol))
        assert len(raw) > 10_000_000 and turn.outcome == "complete"
        (call,) = turn.tool_calls
        assert call.id == "call_big" and len(call.arguments) >= 10_000_000
        assert len(json.loads(call.arguments)["content"]) == 10_000_000 - len('{"content":""}')
