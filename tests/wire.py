"""Build real wire-format SSE bodies for all five protocols from one script of operations.

A script is a list of ops: ("text", s), ("reasoning", s), ("call", i, call_id, name),
("args", i, fragment), ("close", i). The op order is the order on the wire, so interleaving
parallel calls is just interleaving ops. Each builder ends the body with its protocol's
terminal event (unless ``terminal=False``) carrying ``stop`` as the stop reason. ``head()`` renders
a stream still running (no stop, no terminal) and ``error_event()`` a protocol's mid-stream error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Op = tuple[Any, ...]


def _sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"{head}data: {body}\n\n"


def _full_args(ops: Sequence[Op]) -> dict[int, str]:
    full: dict[int, str] = {}
    for op in ops:
        if op[0] == "args":
            full[op[1]] = full.get(op[1], "") + op[2]
    return full


def chat(ops: Sequence[Op], stop: str | None = "tool_calls", terminal: bool = True) -> bytes:
    out = []

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        out.append(
            _sse({"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": [choice]})
        )

    chunk({"role": "assistant", "content": ""})
    for op in ops:
        if op[0] == "text":
            chunk({"content": op[1]})
        elif op[0] == "reasoning":
            chunk({"reasoning_content": op[1]})
        elif op[0] == "call":
            tool = {"index": op[1], "id": op[2], "type": "function"}
            chunk({"tool_calls": [{**tool, "function": {"name": op[3], "arguments": ""}}]})
        elif op[0] == "args":
            chunk({"tool_calls": [{"index": op[1], "function": {"arguments": op[2]}}]})
    if stop is not None:
        chunk({}, stop)
    if terminal:
        out.append(_sse("[DONE]"))
    return "".join(out).encode()


def anthropic(ops: Sequence[Op], stop: str | None = "tool_use", terminal: bool = True) -> bytes:
    """``stop=None`` leaves out the message_delta that carries the stop reason."""
    out = [
        _sse(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_test",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
            "message_start",
        )
    ]
    text_open = thinking_open = False
    for op in ops:
        kind = op[0]
        if kind in ("text", "reasoning"):
            index = 0 if kind == "text" else 1
            opened = text_open if kind == "text" else thinking_open
            if not opened:
                block = (
                    {"type": "text", "text": ""}
                    if kind == "text"
                    else {"type": "thinking", "thinking": ""}
                )
                out.append(
                    _sse(
                        {"type": "content_block_start", "index": index, "content_block": block},
                        "content_block_start",
                    )
                )
                if kind == "text":
                    text_open = True
                else:
                    thinking_open = True
            delta = (
                {"type": "text_delta", "text": op[1]}
                if kind == "text"
                else {"type": "thinking_delta", "thinking": op[1]}
            )
            out.append(
                _sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    "content_block_delta",
                )
            )
        elif kind == "call":
            block = {"type": "tool_use", "id": op[2], "name": op[3], "input": {}}
            out.append(
                _sse(
                    {"type": "content_block_start", "index": op[1] + 2, "content_block": block},
                    "content_block_start",
                )
            )
        elif kind == "args":
            delta = {"type": "input_json_delta", "partial_json": op[2]}
            out.append(
                _sse(
                    {"type": "content_block_delta", "index": op[1] + 2, "delta": delta},
                    "content_block_delta",
                )
            )
        elif kind == "close":
            out.append(
                _sse({"type": "content_block_stop", "index": op[1] + 2}, "content_block_stop")
            )
    if stop is not None:
        out.append(
            _sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop},
                    "usage": {"output_tokens": 9},
                },
                "message_delta",
            )
        )
    if terminal:
        out.append(_sse({"type": "message_stop"}, "message_stop"))
    return "".join(out).encode()


def responses(ops: Sequence[Op], stop: str = "completed", terminal: bool = True) -> bytes:
    def event(kind: str, **fields: Any) -> str:
        return _sse({"type": kind, **fields}, kind)

    full = _full_args(ops)
    names: dict[int, tuple[str, str]] = {}
    out = [
        event(
            "response.created", response={"id": "resp_test", "status": "in_progress", "output": []}
        )
    ]
    message_open = False
    for op in ops:
        if op[0] == "text":
            if not message_open:
                message_open = True
                item = {"type": "message", "id": "msg_t", "role": "assistant", "content": []}
                out.append(event("response.output_item.added", output_index=0, item=item))
            out.append(
                event(
                    "response.output_text.delta",
                    item_id="msg_t",
                    output_index=0,
                    content_index=0,
                    delta=op[1],
                )
            )
        elif op[0] == "reasoning":
            out.append(
                event(
                    "response.reasoning_summary_text.delta",
                    item_id="rs_t",
                    output_index=99,
                    summary_index=0,
                    delta=op[1],
                )
            )
        elif op[0] == "call":
            names[op[1]] = (op[2], op[3])
            item = {
                "type": "function_call",
                "id": f"fc_{op[1]}",
                "call_id": op[2],
                "name": op[3],
                "arguments": "",
                "status": "in_progress",
            }
            out.append(event("response.output_item.added", output_index=op[1] + 1, item=item))
        elif op[0] == "args":
            out.append(
                event(
                    "response.function_call_arguments.delta",
                    item_id=f"fc_{op[1]}",
                    output_index=op[1] + 1,
                    delta=op[2],
                )
            )
        elif op[0] == "close":
            args = full.get(op[1], "")
            out.append(
                event(
                    "response.function_call_arguments.done",
                    item_id=f"fc_{op[1]}",
                    output_index=op[1] + 1,
                    arguments=args,
                )
            )
    if terminal:
        items = [
            {
                "type": "function_call",
                "id": f"fc_{i}",
                "call_id": cid,
                "name": name,
                "arguments": full.get(i, ""),
                "status": "completed",
            }
            for i, (cid, name) in names.items()
        ]
        kind = "response.completed" if stop == "completed" else "response.incomplete"
        response: dict[str, Any] = {
            "id": "resp_test",
            "status": "completed",
            "output": items,
            "usage": {"input_tokens": 3, "output_tokens": 4},
        }
        if stop != "completed":
            response["status"] = "incomplete"
            response["incomplete_details"] = {"reason": stop}
        out.append(event(kind, response=response))
    return "".join(out).encode()


def interactions(ops: Sequence[Op], stop: str | None = None, terminal: bool = True) -> bytes:
    def event(kind: str, **fields: Any) -> str:
        return _sse({**fields, "event_type": kind}, kind)

    out = [event("interaction.created", interaction={"id": "v1_test", "status": "in_progress"})]
    text_open = False
    has_calls = False
    for op in ops:
        if op[0] == "text":
            if not text_open:
                text_open = True
                out.append(event("step.start", index=0, step={"type": "model_output"}))
            out.append(event("step.delta", index=0, delta={"type": "text", "text": op[1]}))
        elif op[0] == "call":
            has_calls = True
            step = {"type": "function_call", "id": op[2], "name": op[3], "arguments": {}}
            out.append(event("step.start", index=op[1] + 1, step=step))
        elif op[0] == "args":
            delta = {"type": "arguments_delta", "arguments": op[2]}
            out.append(event("step.delta", index=op[1] + 1, delta=delta))
        elif op[0] == "close":
            out.append(event("step.stop", index=op[1] + 1))
    if terminal:
        status = stop or ("requires_action" if has_calls else "completed")
        out.append(
            event(
                "interaction.completed",
                interaction={"id": "v1_test", "status": status, "usage": {"total_tokens": 7}},
            )
        )
    return "".join(out).encode()


def gemini(ops: Sequence[Op], stop: str = "STOP", terminal: bool = True) -> bytes:
    """Gemini sends each call whole at its close; fragments are joined and sent as an object."""
    full = _full_args(ops)
    names: dict[int, tuple[str, str]] = {}
    out = []

    def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> None:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        out.append(
            _sse(
                {
                    "candidates": [candidate],
                    "responseId": "gresp_test",
                    "usageMetadata": {"totalTokenCount": 3},
                }
            )
        )

    for op in ops:
        if op[0] in ("text", "reasoning"):
            part: dict[str, Any] = {"text": op[1]}
            if op[0] == "reasoning":
                part["thought"] = True
            chunk([part])
        elif op[0] == "call":
            names[op[1]] = (op[2], op[3])
        elif op[0] == "close":
            call_id, name = names[op[1]]
            fc: dict[str, Any] = {"name": name, "args": json.loads(full.get(op[1]) or "{}")}
            if call_id:
                fc["id"] = call_id
            chunk([{"functionCall": fc}])
    if terminal:
        chunk([{"text": ""}], stop)
    return "".join(out).encode()


BUILDERS = {
    "openai-chat": chat,
    "anthropic": anthropic,
    "openai-responses": responses,
    "gemini-interactions": interactions,
    "gemini": gemini,
}


def head(protocol: str, ops: Sequence[Op]) -> bytes:
    """The body of ``ops`` with no stop reason and no terminal event: a stream still running."""
    if protocol in ("openai-chat", "anthropic"):
        return BUILDERS[protocol](ops, stop=None, terminal=False)
    return BUILDERS[protocol](ops, terminal=False)


def error_event(protocol: str, message: str) -> bytes:
    """The protocol's mid-stream error, as sent after a 200 OK (and what follows it)."""
    if protocol == "openai-chat":  # OpenAI: a data chunk with an error key; no [DONE] follows
        out = _sse({"error": {"message": message, "type": "server_error", "code": None}})
    elif protocol == "openai-responses":  # nested error, then response.failed
        error = {"type": "server_error", "code": "server_error", "message": message}
        failed = {"id": "resp_test", "status": "failed", "error": error}
        out = _sse({"type": "error", "error": {**error, "param": None}}, "error") + _sse(
            {"type": "response.failed", "response": failed}, "response.failed"
        )
    elif protocol == "anthropic":
        out = _sse(
            {"type": "error", "error": {"type": "overloaded_error", "message": message}}, "error"
        )
    elif protocol == "gemini-interactions":
        error = {"code": "internal", "message": message}
        out = _sse({"error": error, "event_type": "error"}, "error")
    else:  # gemini has no defined SSE error event; this is its HTTP error JSON as a data chunk
        out = _sse({"error": {"code": 500, "message": message, "status": "INTERNAL"}})
    return out.encode()
