"""`tui-agent run` as a subprocess: the model starts a background command, reads its output
with job_output, and whatever still runs when `run` ends is stopped with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY, Home, final
from .tools_helpers import find_sleep, sleep_mark

pytestmark = pytest.mark.heavy


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [("call", 0, call_id, name), ("args", 0, json.dumps(arguments)), ("close", 0)]


def test_run_starts_reads_and_ends_a_background_job(home: Home) -> None:
    mark = sleep_mark()
    start = {"command": f"echo SERVED-ON-PORT; sleep {mark}", "background": True}
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(_call("call_1", "run_command", start)),
            Reply(
                _call("call_2", "job_output", {"job_id": 1, "wait_s": 10}),
                expect=ExpectToolResults({"call_1": "started background job 1"}),
            ),
            final(
                server.protocol,
                "It is up.",
                ExpectToolResults({"call_2": "SERVED-ON-PORT"}),
            ),
        )
        done = home.run(server, "start the server", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert "It is up." in done.stdout
    assert find_sleep(mark) is None  # the job ended with the run
