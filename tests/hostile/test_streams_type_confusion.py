"""Hostile input, stream group: fields of another JSON type than the protocol's.

A server may send a list where a string belongs, an object for a number, null for a list, and
still end the turn normally. The turn then joins the conversation, and every later request is
built from its recorded events (thinking signatures, encrypted reasoning, server tool blocks go
back byte-exact). A field of the wrong type once raised out of that rebuild (``list + str``, an
unhashable id, a boolean iterated): the conversation could not go on, not even after a resume.

Here every real recording is decoded with one to three of its values replaced by another JSON
type at random paths. Whatever the decoder makes of it, nothing raises: the raw events are
redacted for the session file, and when the turn is complete the next request (the tool
results answered) is built in both stateless and stateful form.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent import TurnReader
from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.providers.registry import request_builder
from tui_agent.providers.request import RequestSettings, ToolSchema
from tui_agent.session.event_redaction import redact_events
from tui_agent.session.records import RawEvent
from tui_agent.session.redaction import Redactor
from tui_agent.stream.sse import SSEFramer
from tui_agent.stream.turn import Turn

from ..fixture_cases import CASES

OTHER_TYPES: list[Any] = [[], {}, [1], {"a": []}, None, 7, "x", True, 1.5, ["s"], [{}]]
TOOLS = [ToolSchema("read_file", "read a file", {"type": "object"})]


def _events(body: bytes) -> list[tuple[str, str]]:
    framer = SSEFramer()
    return [(e.event, e.data) for e in [*framer.feed(body), *framer.close()]]


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for position, value in enumerate(node):
            found += _paths(value, (*path, position))
    return found


def _put(tree: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        tree = tree[step]
    tree[path[-1]] = value


@st.composite
def confused(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """A recorded stream with one to three values swapped for another JSON type."""
    case = draw(st.sampled_from(CASES))
    events = _events(case.body)
    objects = [i for i, (_, data) in enumerate(events) if data.lstrip().startswith("{")]
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from(objects))
        tree = json.loads(events[at][1])
        paths = _paths(tree)
        if paths:
            _put(tree, draw(st.sampled_from(paths)), draw(st.sampled_from(OTHER_TYPES)))
            events[at] = (events[at][0], json.dumps(tree))
    return case.protocol, events


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(confused())
def test_a_field_of_another_type_never_breaks_the_record_or_the_next_request(
    stream: tuple[str, list[tuple[str, str]]],
) -> None:
    protocol, events = stream
    reader = TurnReader(protocol)
    for name, data in events:
        reader.feed_event(name, data)
    result = reader.close()
    redact_events([RawEvent(0.0, n, d) for n, d in events], Redactor(("local-key-0123456789",)))
    if not isinstance(result, Turn):
        return
    assistant = AssistantMessage(
        protocol, result.text, result.tool_calls, result.reasoning, result.response_id,
        tuple(events),
    )  # fmt: skip
    history = [
        UserMessage("hello"),
        assistant,
        *(ToolResultMessage(call.id, call.name, "ok") for call in result.tool_calls),
    ]
    build = request_builder(protocol)
    for stateful in (False, True):
        settings_ = RequestSettings("m", "http://127.0.0.1:9", "k", stateful=stateful)
        request = build(history, TOOLS, settings_)
        assert request.content()  # what is sent: plain JSON, whatever came in
