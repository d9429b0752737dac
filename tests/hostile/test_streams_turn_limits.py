"""A turn is bounded as a whole: past max_turn_events events or max_turn_bytes bytes the stream
is dropped, the turn ends truncated with reason "limit" and says which limit, nothing of it runs
or is saved as an assistant turn, and the memory it took stays bounded by what it kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..fake_provider import FakeProvider, Reply
from ..run_helpers import KEY, RUN_TIMEOUT_S, Home
from .stream_memory import measure

MB = 1024 * 1024
_HEAD = '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m",'
_CALL = (
    _HEAD + '"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_W",'
    '"type":"function","function":{"name":"write_file",'
    '"arguments":"{\\"path\\":\\"pwned.txt\\",\\"content\\":\\"x\\"}"}}]}}]}'
)


def tiny_events(count: int, text: str = "ab", call: bool = True) -> bytes:
    """A Chat Completions body: a whole write_file call (unless not ``call``), then ``count``
    tiny text chunks, then a normal end. Each chunk is about 130 bytes, as a server streaming
    one token at a time sends."""
    chunk = f'data: {_HEAD}"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}\n\n'
    stop = "tool_calls" if call else "stop"
    end = f'data: {_HEAD}"choices":[{{"index":0,"delta":{{}},"finish_reason":"{stop}"}}]}}'
    first = f"data: {_CALL}\n\n" if call else ""
    return f"{first}{chunk * count}{end}\n\ndata: [DONE]\n\n".encode()


@pytest.mark.parametrize(
    ("body", "limits", "setting"),
    [
        (tiny_events(300_000), {"max_turn_events": 2_000}, "max_turn_events"),
        (tiny_events(2_000, "x" * 20_000), {"max_turn_bytes": MB}, "max_turn_bytes"),
    ],
    ids=["events", "bytes"],
)
def test_a_turn_past_its_limit_is_truncated_with_the_reason_and_memory_bounded(
    body: bytes, limits: dict[str, int], setting: str
) -> None:
    with FakeProvider("openai-chat", require_tools=False) as server:
        # The first request imports and sets up what any request needs: not counted.
        server.script(Reply(tiny_events(1, call=False)), Reply(body))
        job: dict[str, Any] = {"protocol": "openai-chat", "base_url": server.base_url, **limits}
        _, job = measure([job, job])
    turn = job["turn"]
    assert (turn["outcome"], turn["reason"], turn["tool_calls"]) == ("truncated", "limit", [])
    assert setting in turn["error"]
    # The client read a bounded prefix: the ~40 MB (or ~40 MB of big events) never piled up.
    assert job["peak"] < 8 * MB, job["peak"]


def _peak_rss(home: Home, argv: list[str]) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``argv`` as the only child of a fresh interpreter; its exit and its peak RSS (bytes)."""
    wrapper = (
        "import json, resource, subprocess, sys\n"
        "done = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(json.dumps([done.returncode, done.stdout, done.stderr, peak]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, json.dumps(argv)],
        cwd=home.workspace,
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S * 4,
        check=True,
    )
    code, out, err, peak = json.loads(done.stdout)
    return subprocess.CompletedProcess(argv, code, out, err), peak


def test_run_ends_a_turn_of_tiny_events_at_its_limit_runs_nothing_and_stays_small(
    tmp_path: Path,
) -> None:
    """300,000 tiny events (~40 MB) against max_turn_events = 5,000: truncated, exit 2, the reason
    on stderr, no assistant record, nothing run, a small session line, and the process's peak
    memory within a few MB of a one-event turn's, measured the same way in the same test."""
    # A known window: no discovery request (a POST to /api/show among them) still in flight
    # when the truncated run exits, which the fake provider would count as a broken request.
    home = Home(tmp_path)
    home.settings(max_turn_events=5_000, context_window=131_072)
    small_home = Home(tmp_path / "small")
    small_home.settings(max_turn_events=5_000, context_window=131_072)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(tiny_events(300_000)), Reply(tiny_events(1, call=False)))
        done, peak = _peak_rss(home, home.argv(server, "go", "--json", approve="all"))
        small, base = _peak_rss(small_home, small_home.argv(server, "go", approve="never"))
    assert done.returncode == 2, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (truncated,) = [e for e in events if e["type"] == "turn_truncated"]
    assert truncated["turn"]["reason"] == "limit"
    assert "max_turn_events" in truncated["message"]
    assert [e["outcome"] for e in events if e["type"] == "loop_ended"] == ["truncated"]
    records = home.records()
    kinds = [r["type"] for r in records]
    assert "assistant" not in kinds and "tool_start" not in kinds
    assert not (home.workspace / "pwned.txt").exists()
    (record,) = [r for r in records if r["type"] == "truncated"]
    assert record["reason"] == "limit" and len(record["raw"]) <= 5_000
    (path,) = home.sessions()
    assert max(map(len, path.read_bytes().splitlines())) < 2 * MB
    assert small.returncode == 0, small.stderr
    # What was kept is ~0.7 MB of raw events: the peak stays within a small multiple of that.
    assert peak - base < 40 * MB, (peak / MB, base / MB)


BENCH = Path(__file__).resolve().parents[2] / "bench" / "turn_memory_bench.py"
PEAK_PER_KEPT = 4.0  # issue 10: "peak memory within a small multiple of what is kept"


@pytest.mark.parametrize(
    ("events", "settings", "outcome"),
    [(30_000, {}, "complete"), (50_000, {"max_turn_events": 20_000}, "truncated")],
    ids=["complete", "truncated"],
)
def test_a_turn_of_tiny_events_peaks_within_a_small_multiple_of_what_it_keeps(
    events: int, settings: dict[str, int], outcome: str
) -> None:
    """The whole turn as bench/turn_memory_bench.py measures it, in a child process: the real
    agent streams tiny events, keeps them (the conversation, the raw events for replay) and writes
    the session line, redacted. Its peak (tracemalloc, imports and set-up paid by a first turn)
    stays within PEAK_PER_KEPT times the raw event bytes and text kept. It was ~14 times when the
    events were pydantic models and the session write parsed them all at once and built the line
    whole."""
    job = json.dumps(["agent", events, settings, True])
    done = subprocess.run(
        [sys.executable, str(BENCH), "--child", job],
        cwd=BENCH.parents[1],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S * 4,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["outcome"] == outcome
    kept = result["kept"]
    # Every event's ~150 bytes up to the limit were kept (in the record when truncated).
    assert kept > min(events, settings.get("max_turn_events", events)) * 100
    assert result["peak"] <= PEAK_PER_KEPT * kept, (result["peak"] / MB, kept / MB)
