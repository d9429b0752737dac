"""Hostile input, stream group (issue 6): what comes back is not a sane event stream.

Status 200 with an HTML or JSON body instead of an event stream, and a single event larger
than the configured limit (default 16 MB): memory stays bounded by the limit and the turn ends
with a clear error. Both go through the real transport (``stream_turn``) over loopback to the
fake provider, in every protocol; memory is measured in a child process, so the fake
provider's own buffers in this process are not counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui_agent import TurnReader, assemble
from tui_agent.conversation import UserMessage
from tui_agent.providers import PROTOCOLS, RequestSettings, request_builder
from tui_agent.transport import StreamLimits, stream_turn

from .. import wire
from ..fake_provider import BigArguments, FakeProvider, Reply
from ..run_helpers import KEY, Home

MB = 1 << 20
ROOT = Path(__file__).resolve().parents[2]


async def turn_from(server: FakeProvider, limits: StreamLimits | None = None) -> dict[str, Any]:
    protocol = server.protocol
    settings = RequestSettings(model="m", base_url=server.base_url)
    request = request_builder(protocol)([UserMessage("hi")], [], settings)
    async with httpx.AsyncClient() as client:
        result = await stream_turn(
            client,
            request,
            protocol,
            protocol,
            limits=limits or StreamLimits(),
            on_progress=lambda _: None,
            on_retry=lambda _: None,
            record=lambda *_: None,
        )
    return result.to_dict()


# -- status 200 with an HTML or JSON body instead of an event stream -------------------------

JSON_ERROR = b'{"error": {"message": "model overloaded", "code": 503}}'
HTML_PAGE = b"<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>"


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("application/json", JSON_ERROR, "model overloaded"),
        ("text/html; charset=utf-8", HTML_PAGE, "answered with text/html"),
        ("text/event-stream", JSON_ERROR, "model overloaded"),
        ("text/event-stream", HTML_PAGE, "answered with text/event-stream"),
        ("", JSON_ERROR, "model overloaded"),
        ("", b"\xef\xbb\xbf" + HTML_PAGE, "answered with no content type"),
    ],
    ids=[
        "json-body",
        "html-body",
        "json-body-labelled-event-stream",
        "html-body-labelled-event-stream",
        "json-body-no-content-type",
        "html-body-with-bom-no-content-type",
    ],
)
async def test_status_200_with_an_html_or_json_body_instead_of_an_event_stream(
    protocol: str, content_type: str, body: bytes, expected: str
) -> None:
    with FakeProvider(protocol, require_tools=False) as server:
        server.script(Reply(body, headers={"content-type": content_type}))
        d = await turn_from(server)
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
    assert expected in d["error"] and "not an event stream" in d["error"], d["error"]
    assert d["error"].startswith(f"{protocol}: HTTP 200")


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_status_200_with_a_cut_event_stream_is_still_a_cut(protocol: str) -> None:
    """Only a body with no event in it is named as not an event stream."""
    body = wire.head(protocol, [("text", "hi")])
    with FakeProvider(protocol, require_tools=False) as server:
        server.script(Reply(body + b'data: {"partial'))
        d = await turn_from(server)
    assert (d["outcome"], d["reason"], d["error"]) == ("truncated", "cut", None)


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(
    "body",
    [b"", HTML_PAGE, b"\x00\x00\xff\xfe", b'data: {"a":1'],
    ids=["empty", "html", "binary", "unterminated"],
)
def test_non_sse_bodies_are_turns_cut_before_they_began(protocol: str, body: bytes) -> None:
    d = assemble(protocol, [body]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "cut", [])


# -- a single event larger than the configured limit -----------------------------------------


def _measure(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.hostile.stream_memory", json.dumps(jobs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


@pytest.mark.heavy
def test_a_single_event_larger_than_the_limit_memory_stays_bounded() -> None:
    """An 8 MB event against a 1 MB limit in every protocol, and a 24 MB one against the
    default 16 MB: the client's peak stays near the limit, never near the event."""
    servers = [FakeProvider(p, require_tools=False) for p in PROTOCOLS]
    servers.append(FakeProvider("openai-chat", require_tools=False))
    jobs: list[dict[str, Any]] = []
    try:
        for n, server in enumerate(servers):
            server.start()
            job: dict[str, Any] = {"protocol": server.protocol, "base_url": server.base_url}
            job["limit"] = MB
            if n == 0:  # the first request imports and sets up what any request needs
                server.script(Reply([("text", "warm-up")]))
                jobs.append(job)
            default = n == len(PROTOCOLS)
            size = 24 * MB if default else 8 * MB
            server.script(Reply(BigArguments(size, fragment=size)))
            jobs.append(job | {"limit": None} if default else job)
        measured = _measure(jobs)[1:]
        jobs = jobs[1:]
    finally:
        for server in servers:
            server.stop()
    for job, got in zip(jobs, measured, strict=True):
        d, peak = got["turn"], got["peak"]
        limit: int = job["limit"] or 16 * MB
        shown = f"{limit // MB} MB"
        assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
        assert d["error"] == f"an event larger than {shown}: the stream was dropped"
        assert peak < limit * 1.1 + MB, (job, peak)


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_a_single_event_larger_than_the_limit_ends_the_turn_over_http(
    protocol: str,
) -> None:
    ops = [("text", "start"), *BigArguments(2 * MB, fragment=2 * MB)]
    with FakeProvider(protocol, require_tools=False) as server:
        server.script(Reply(ops))
        d = await turn_from(server, StreamLimits(max_event_bytes=MB))
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
    # Gemini announces a call in the event that carries its arguments: this one never came.
    names = [call["name"] for call in d["pending_calls"]]
    assert names == ([] if protocol == "gemini" else ["write_file"])
    assert d["error"] == "an event larger than 1 MB: the stream was dropped"
    assert d["text"] == "start"


def test_an_event_larger_than_the_limit_ends_the_turn_and_nothing_more_is_read() -> None:
    body = wire.chat([("text", "start"), ("text", "x" * 5000)], stop="stop")
    reader = TurnReader("openai-chat", max_event_bytes=2048)
    for i in range(0, len(body), 512):
        reader.feed(body[i : i + 512])
        if reader.ended:
            break
    assert reader.ended
    d = reader.close().to_dict()
    assert (d["outcome"], d["reason"]) == ("truncated", "error")
    assert "larger than 2048 bytes" in d["error"]
    assert reader.feed(body) == []  # nothing more is read or kept


@pytest.mark.parametrize("chunk", [700, 1 << 16, None], ids=["small", "64k", "whole-body"])
def test_events_below_the_limit_of_any_total_size_are_fine(chunk: int | None) -> None:
    """The limit is for one event: many small ones, however they are chunked, are fine, and so
    are keep-alive comments without end."""
    body = b": keep-alive\n\n" * 2000 + wire.chat([("text", "y" * 1000)] * 50, stop="stop")
    assert len(body) > 20 * 4096
    step = chunk or len(body)
    reader = TurnReader("openai-chat", max_event_bytes=4096)
    for i in range(0, len(body), step):
        reader.feed(body[i : i + step])
    d = reader.close().to_dict()
    assert (d["outcome"], d["text"]) == ("complete", "y" * 50_000)


def test_the_limit_is_the_one_configured_in_settings(tmp_path: Path) -> None:
    """`max_event_bytes` in config.toml is what `tui-agent run` holds one event to."""
    home = Home(tmp_path)
    home.settings(max_event_bytes=64 * 1024)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply([("text", "start"), *BigArguments(200 * 1024, fragment=200 * 1024)]))
        done = home.run(server, "hello")
    assert done.code == 2
    assert "an event larger than 65536 bytes: the stream was dropped" in done.stderr
    assert "Traceback" not in done.stderr
