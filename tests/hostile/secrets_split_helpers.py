"""Keys hidden in every field of a stream and cut at chosen points (for test_secrets_split.py).

A ``Hidden`` case says where each key goes: text, reasoning, the response id, item ids, the call
id, a tool name, the arguments, a tool's output, an error body; and where each streamed field is
cut. ``responses_body`` renders it as a real OpenAI Responses stream (the protocol whose ids are
all the provider's), ``run_in_process`` runs ``tui-agent run`` in this process against the fake
provider, and ``exposed`` finds any key, or any 16-character run of one, in what came out.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tui_agent import cli

from ..fake_provider import FakeProvider, Reply, Status
from ..run_helpers import KEY_ENV, MODEL, Home
from .secrets_helpers import KEY_ENVS

RUN = 16  # no run of this many characters of a key may come out
SECRET_FILE = "secret.txt"


def runs(key: str) -> set[str]:
    """Every ``RUN``-character run of ``key`` (the key itself when shorter)."""
    if len(key) <= RUN:
        return {key}
    return {key[at : at + RUN] for at in range(len(key) - RUN + 1)}


def exposed(text: str, keys: Sequence[str]) -> list[str]:
    """The runs of ``keys`` that ``text`` holds."""
    return sorted(run for key in keys for run in runs(key) if run in text)


def pieces(text: str, cuts: Sequence[int]) -> list[str]:
    """``text`` cut at ``cuts`` (any positions, any order; empty pieces dropped)."""
    points = sorted({min(max(c, 0), len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


@dataclass(frozen=True)
class Hidden:
    """Every field of one turn, each holding (or not) a key, and the cuts of streamed ones."""

    text: str
    reasoning: str
    response_id: str
    message_id: str
    reasoning_id: str
    call_item_id: str
    call_id: str
    name: str  # of a second call: a tool that does not exist
    bad_call_id: str
    arguments: str  # read_file's, as JSON text
    error: str  # the body of the error that ends the run
    text_cuts: tuple[int, ...] = ()
    reasoning_cuts: tuple[int, ...] = ()
    argument_cuts: tuple[int, ...] = ()


def _sse(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def responses_body(case: Hidden) -> bytes:
    """The first turn as an OpenAI Responses stream: reasoning, text and two calls."""
    rid = case.response_id
    out = [_sse("response.created", response={"id": rid, "status": "in_progress", "output": []})]
    reasoning = {"type": "reasoning", "id": case.reasoning_id, "summary": []}
    out.append(_sse("response.output_item.added", output_index=0, item=reasoning))
    for piece in pieces(case.reasoning, case.reasoning_cuts):
        out.append(
            _sse(
                "response.reasoning_summary_text.delta",
                item_id=case.reasoning_id,
                output_index=0,
                summary_index=0,
                delta=piece,
            )
        )
    message = {"type": "message", "id": case.message_id, "role": "assistant", "content": []}
    out.append(_sse("response.output_item.added", output_index=1, item=message))
    for piece in pieces(case.text, case.text_cuts):
        out.append(
            _sse(
                "response.output_text.delta",
                item_id=case.message_id,
                output_index=1,
                content_index=0,
                delta=piece,
            )
        )
    calls = [
        (2, case.call_item_id, case.call_id, "read_file", case.arguments),
        (3, case.call_item_id + "-2", case.bad_call_id, case.name, "{}"),
    ]
    done = []
    for index, item_id, call_id, name, arguments in calls:
        item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name}
        out.append(
            _sse(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
        )
        cuts = case.argument_cuts if index == 2 else ()
        for piece in pieces(arguments, cuts):
            out.append(
                _sse(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=piece,
                )
            )
        done.append({**item, "arguments": arguments, "status": "completed"})
    response = {
        "id": rid,
        "status": "completed",
        "output": done,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    out.append(_sse("response.completed", response=response))
    return "".join(out).encode()


def script(server: FakeProvider, case: Hidden) -> None:
    """The turn, then (for the call results) an HTTP error whose body holds the key."""
    body = json.dumps({"error": {"message": case.error}}).encode()
    server.script(Reply(responses_body(case)), Status(400, body=body))


class SplitHome(Home):
    """A Home whose environment holds a fake key for every provider, configured for one run."""

    def env(self, key: str | None = None) -> dict[str, str]:
        return {**super().env(None), **KEY_ENVS}

    def prepare(self, secret: str) -> None:
        self.settings(max_retries=0, retry_max_wait=0.01)
        (self.workspace / SECRET_FILE).write_text(f"token = {secret}\n", encoding="utf-8")

    def argv_for(self, server: FakeProvider, *extra: str) -> list[str]:
        return [
            "run",
            "read the file",
            "--protocol",
            server.protocol,
            "--model",
            MODEL,
            "--base-url",
            server.base_url,
            "--api-key-env",
            KEY_ENV,
            "--workspace",
            str(self.workspace),
            "--approve",
            "all",
            *extra,
        ]

    def written(self) -> dict[str, str]:
        """Every file under the home but the input that holds a key on purpose."""
        found = {}
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            if path.name != SECRET_FILE and path.name != "config.toml":
                found[path.relative_to(self.root).as_posix()] = path.read_text("utf-8", "replace")
        return found


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _logging_restored() -> Iterator[None]:
    names = ("tui_agent", "httpx", "httpcore")
    saved = [(logging.getLogger(n), logging.getLogger(n).level, logging.getLogger(n).propagate,
              list(logging.getLogger(n).handlers)) for n in names]  # fmt: skip
    hook = sys.excepthook
    try:
        yield
    finally:
        sys.excepthook = hook
        for logger, level, propagate, handlers in saved:
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
                if handler not in handlers:
                    handler.close()
            for handler in handlers:
                logger.addHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


def cli_in_process(home: SplitHome, argv: list[str]) -> tuple[int, str, str]:
    """``tui-agent ARGV`` in this process, in ``home``: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with (
        _environment(home.env()),
        _logging_restored(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()
