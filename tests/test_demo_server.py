"""The demo server over real sockets: httpx in, TurnReader (framer, decoder, assembler) out."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tui_agent import TurnReader, assemble
from tui_agent.demo import DemoServer, pace_from_env, respond
from tui_agent.demo.server import HOST
from tui_agent.stream.turn import TruncatedTurn, Turn, TurnResult

from .support.waiting import ends


@dataclass
class Answer:
    status: int
    headers: httpx.Headers
    body: bytes
    result: TurnResult
    broke: bool  # the connection closed before the body was complete

    def chunks(self) -> list[dict[str, Any]]:
        """Every data event's JSON, in order ([DONE] left out)."""
        out = []
        for event in self.body.decode().split("\n\n"):
            if event.startswith("data: ") and event != "data: [DONE]":
                out.append(json.loads(event.removeprefix("data: ")))
        return out


def body_for(prompt: str, history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    messages = [{"role": "system", "content": "sys"}, *(history or [])]
    messages.append({"role": "user", "content": prompt})
    return {"model": "tui-agent-demo", "stream": True, "messages": messages}


async def post(client: httpx.AsyncClient, server: DemoServer, body: dict[str, Any]) -> Answer:
    reader = TurnReader("openai-chat")
    received = b""
    broke = False
    url = f"{server.base_url}/chat/completions"
    try:
        async with client.stream("POST", url, json=body) as response:
            async for chunk in response.aiter_bytes():
                received += chunk
                reader.feed(chunk)
    except httpx.RemoteProtocolError:
        broke = True
    return Answer(response.status_code, response.headers, received, reader.close(), broke)


async def ask(prompt: str, **kwargs: Any) -> Answer:
    async with DemoServer(pace=0) as server, httpx.AsyncClient() as client:
        return await post(client, server, body_for(prompt, **kwargs))


@pytest.mark.parametrize(
    "prompt",
    [
        "list the files",
        "read README.md",
        "search TODO",
        "write notes.txt saying hello",
        "edit notes.txt: a -> b",
        "run ls -la",
        "$ echo hi",
        "long",
        "help",
        "list and read README.md in parallel",
    ],
)
async def test_each_intent_decodes_to_the_complete_turn_the_brain_planned(prompt: str) -> None:
    answer = await ask(prompt)
    assert answer.status == 200 and not answer.broke
    assert answer.headers["content-type"] == "text/event-stream"
    assert answer.body.endswith(b"data: [DONE]\n\n")
    script = respond(body_for(prompt))
    result = answer.result
    assert isinstance(result, Turn), result
    assert result.text == script.text
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (c.id, c.name, c.arguments) for c in script.calls
    ]
    assert result.stop_reason == script.finish_reason
    assert result.usage is not None and result.usage["completion_tokens"] > 0
    # The same bytes decode the same way whatever the chunking (the recorded-body path).
    assert (
        assemble("openai-chat", [answer.body[i : i + 7] for i in range(0, len(answer.body), 7)])
        == result
    )


async def test_chunks_are_real_chat_completions_chunks() -> None:
    answer = await ask("read README.md")
    chunks = answer.chunks()
    for chunk in chunks:
        assert chunk["id"] == "chatcmpl-demo-1"
        assert chunk["object"] == "chat.completion.chunk"
        assert chunk["model"] == "tui-agent-demo"
        assert isinstance(chunk["created"], int)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if _is_call(c)]
    head, *fragments = calls
    assert head == {
        "index": 0,
        "id": "call_demo_1_0",
        "type": "function",
        "function": {"name": "read_file", "arguments": ""},
    }
    pieces = [f["function"]["arguments"] for f in fragments]
    assert len(pieces) > 3 and all(3 <= len(p) <= 8 for p in pieces[:-1])
    assert "".join(pieces) == '{"path": "README.md"}'
    assert all(set(f) == {"index", "function"} for f in fragments)
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert [c["choices"][0]["finish_reason"] for c in finish] == ["tool_calls"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0


def _is_call(chunk: dict[str, Any]) -> bool:
    return bool(chunk["choices"]) and "tool_calls" in chunk["choices"][0]["delta"]


async def test_parallel_fragments_interleave_on_the_wire_and_still_decode() -> None:
    answer = await ask("read a.txt and b.txt both")
    indexes = [
        c["choices"][0]["delta"]["tool_calls"][0]["index"] for c in answer.chunks() if _is_call(c)
    ]
    # Both announced, then fragments alternating 0, 1, 0, 1 while both have some left.
    assert indexes[:6] == [0, 1, 0, 1, 0, 1]
    assert indexes.count(0) > 3 and indexes.count(1) > 3
    result = answer.result
    assert isinstance(result, Turn)
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        ("call_demo_1_0", "read_file", '{"path": "a.txt"}'),
        ("call_demo_1_1", "read_file", '{"path": "b.txt"}'),
    ]


async def test_truncate_is_cut_before_the_finish_and_done() -> None:
    answer = await ask("truncate")
    assert answer.broke  # the chunked body never got its last chunk
    assert b"[DONE]" not in answer.body and b'finish_reason":"' not in answer.body
    result = answer.result
    assert isinstance(result, TruncatedTurn), result
    assert result.reason == "cut"
    assert result.text.startswith("Here is a turn that never finishes.")
    assert [(c.id, c.name) for c in result.pending_calls] == [("call_demo_1_0", "write_file")]


async def test_one_server_answers_many_requests_and_numbers_them() -> None:
    async with DemoServer(pace=0) as server, httpx.AsyncClient() as client:
        first = await post(client, server, body_for("truncate"))  # closes its connection
        second = await post(client, server, body_for("hi"))
        third = await post(client, server, body_for("ls"))
        assert server.responses == 3
    assert first.chunks()[0]["id"] == "chatcmpl-demo-1"
    assert second.chunks()[0]["id"] == "chatcmpl-demo-2"
    assert {c["id"] for c in third.chunks()} == {"chatcmpl-demo-3"}


async def test_the_same_request_gives_the_same_bytes() -> None:
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    first = await ask("list and read README.md in parallel", history=history)
    second = await ask("list and read README.md in parallel", history=history)
    assert first.body == second.body
    assert b"call_demo_2_0" in first.body


async def test_other_paths_and_methods_get_json_errors() -> None:
    async with DemoServer(pace=0) as server, httpx.AsyncClient() as client:
        origin = server.base_url.removesuffix("/v1")
        missing = await client.post(f"{origin}/v1/responses", json={})
        wrong_method = await client.get(f"{server.base_url}/chat/completions")
        not_json = await client.post(f"{server.base_url}/chat/completions", content=b"{nope")
        still_fine = await post(client, server, body_for("hi"))
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 405
    assert not_json.status_code == 400 and "JSON" in not_json.json()["error"]["message"]
    assert isinstance(still_fine.result, Turn)


async def test_it_listens_on_loopback_only_and_needs_no_key() -> None:
    async with DemoServer(pace=0) as server:
        assert server._server is not None
        hosts = {sock.getsockname()[0] for sock in server._server.sockets}
        assert hosts == {HOST} == {"127.0.0.1"}
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        async with httpx.AsyncClient(headers={"authorization": "Bearer whatever"}) as client:
            answer = await post(client, server, body_for("ls"))
    assert isinstance(answer.result, Turn)
    with pytest.raises(RuntimeError):
        _ = server.base_url  # stopped


async def test_pace_makes_the_stream_human_visible() -> None:
    async with DemoServer(pace=0.5) as server, httpx.AsyncClient() as client:
        started = time.monotonic()
        arrivals: list[float] = []
        url = f"{server.base_url}/chat/completions"
        async with client.stream("POST", url, json=body_for("read README.md")) as response:
            async for _ in response.aiter_bytes():
                arrivals.append(time.monotonic() - started)
    # 0.25 s before the first chunk, 40 ms per argument fragment, both halved.
    assert arrivals[0] >= 0.12
    assert arrivals[-1] - arrivals[0] >= 5 * 0.02
    assert len(arrivals) > 5  # not one burst


def test_pace_from_the_environment() -> None:
    assert pace_from_env({}) == 1.0
    assert pace_from_env({"TUI_AGENT_DEMO_PACE": "0"}) == 0.0
    assert pace_from_env({"TUI_AGENT_DEMO_PACE": "2.5"}) == 2.5
    for bad in ("fast", "-1", "nan", ""):
        assert pace_from_env({"TUI_AGENT_DEMO_PACE": bad}) == 1.0


async def test_stop_ends_a_stream_in_progress_and_a_client_may_leave() -> None:
    server = await DemoServer(pace=1).start()
    async with httpx.AsyncClient() as client:
        url = f"{server.base_url}/chat/completions"
        # A client that leaves mid-stream does not disturb the next one.
        async with client.stream("POST", url, json=body_for("long")) as response:
            async for _ in response.aiter_bytes():
                break
        reader = TurnReader("openai-chat")

        async def read_long() -> None:
            async with client.stream("POST", url, json=body_for("long")) as response:
                async for chunk in response.aiter_bytes():
                    reader.feed(chunk)

        task = asyncio.create_task(read_long())
        await asyncio.sleep(0.5)
        await ends(server.stop(), "the server's stop")
        with pytest.raises(httpx.HTTPError):  # cut, not read to its end
            await ends(task, "the cut stream")
    result = reader.close()
    assert isinstance(result, TruncatedTurn) and result.reason == "cut"


async def test_big_and_chunked_request_bodies_are_read() -> None:
    history = [
        {"role": "user", "content": "read big.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_demo_1_0",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "big.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_demo_1_0", "content": "x\n" * 1_000_000},
    ]
    body = json.dumps({"model": "tui-agent-demo", "messages": history}).encode()
    async with DemoServer(pace=0) as server:
        reader, writer = await asyncio.open_connection(HOST, server.port)
        pieces = b"".join(b"%x\r\n%b\r\n" % (len(p), p) for p in _split(body, 100_000))
        writer.write(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: demo\r\n"
            b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n" + pieces + b"0\r\n\r\n"
        )
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    head, _, chunked = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    result = assemble("openai-chat", [_unchunk(chunked)])
    assert isinstance(result, Turn)
    assert result.text.startswith("`big.txt` has 1,000,000 lines. It begins:")


def _split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _unchunk(data: bytes) -> bytes:
    out = b""
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return out
        out += data[:size]
        data = data[size + 2 :]


def test_the_demo_package_does_not_import_textual() -> None:
    code = (
        "import sys, tui_agent.demo, tui_agent.commands.run; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


async def test_a_bug_in_the_brain_is_a_500_answer_not_a_dead_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(body: dict[str, Any]) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr("tui_agent.demo.server.respond", broken)
    async with DemoServer(pace=0) as server, httpx.AsyncClient() as client:
        response = await client.post(f"{server.base_url}/chat/completions", json=body_for("hi"))
    assert response.status_code == 500
    assert response.json()["error"]["message"] == "the demo model failed: ValueError: boom"
