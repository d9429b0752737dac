"""Our own fake LLM provider: a real HTTP/1.1 server on 127.0.0.1 that speaks all five protocols.

It runs in a background thread (usable from sync and async tests, and by ``tui-agent run``
subprocesses via ``--base-url``), answers each POST with the next scripted step, and checks
every request it receives.

    with FakeProvider("openai-chat", api_key="k") as server:  # stop() + assert_ok() on exit
        server.script(
            Reply([("call", 0, "call_A", "get_weather"), ("args", 0, '{"city":"Paris"}'),
                   ("close", 0)]),
            Reply([("text", "Sunny.")], stop="stop",
                  expect=ExpectToolResults({"call_A": "18C"})),
        )
        ...point the client at server.base_url ("http://127.0.0.1:PORT/v1" for openai-*,
        "http://127.0.0.1:PORT" otherwise; server.port is the port)...
        server.assert_all_consumed()

Steps (``server.script(*steps)``, appended in order; one step answers one request):
- ``Reply(ops, stop=..., faults=..., expect=..., terminal=True, framing=None, headers={})``:
  ``ops`` is a tests/wire.py op list rendered with the protocol's builder (``stop`` defaults
  to the builder's), or raw body bytes. A bare ``Status``, bytes or op list is a step too.
- Faults (a list, composable; offsets count body bytes): ``Status(code, headers, body)``
  answers with that status instead; ``Stall(after_bytes)`` and ``HeadersThenSilence()`` hold
  the connection silent until the client leaves (or ``hold_timeout_s``); ``Reset(after_bytes)``
  sends a TCP RST (``None``: before any response byte); ``StallBeforeTerminal()`` withholds the
  last SSE event until ``server.release()``, and ``Hold(after_bytes)`` the rest after that
  offset; ``Drip(bytes_per_chunk, interval_s)`` paces writes;
  ``ErrorEvent(message, after_ops=k)`` ends the body with the protocol's mid-stream error.
  ``BigArguments(size)`` returns ops for one call with a ``size``-byte argument string.
- ``expect``: ``ExpectToolResults({call_id: output substring or None})`` and/or callables
  given the request JSON that raise AssertionError.

Every request is checked: route (404 if wrong), auth headers when ``api_key`` is set and
``anthropic-version`` always (401), JSON body with ``"stream": true`` (not gemini, which needs
``?alt=sse``), model, ``tools`` in the protocol's shape (required unless
``require_tools=False``), and any trailing tool results in the exact shape the real API accepts,
paired one to one with the preceding assistant calls (400). A failed check answers with that
status and a JSON error naming it, and is recorded in ``server.failures``; so is a request
after the script ran out (500 "fake provider: no scripted step left").

Model information: ``server.info[path] = {...}`` answers GET PATH (and Ollama's POST
/api/show) with that JSON, anything else such gets a 404; these land in ``server.info_requests``,
never in ``requests``, and never take a step.

Inspecting: ``server.requests`` (method, path, query, headers, body, json),
``server.failures``, ``take_failures()``, ``assert_ok()``, ``assert_all_consumed()``,
``steps_left``, ``connections_open``, ``wait_connections(count, timeout)``,
``wait_stalled(timeout)`` / ``await wait_stalled_async(timeout)``.
Responses are chunked by default; ``framing="close"`` (server or step) ends the body by closing.
"""

from .http import Request
from .server import FakeProvider
from .steps import (
    BigArguments,
    Drip,
    ErrorEvent,
    ExpectToolResults,
    HeadersThenSilence,
    Hold,
    Reply,
    Reset,
    Stall,
    StallBeforeTerminal,
    Status,
)

__all__ = [
    "BigArguments",
    "Drip",
    "ErrorEvent",
    "ExpectToolResults",
    "FakeProvider",
    "HeadersThenSilence",
    "Hold",
    "Reply",
    "Request",
    "Reset",
    "Stall",
    "StallBeforeTerminal",
    "Status",
]
