"""From a call of a complete turn to either a validated call or the error the model will get."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from tui_agent.stream.jsonparse import is_json_object
from tui_agent.stream.turn import ToolCall

from .arguments import InvalidArguments, arguments_digest, canonical_json, parse_arguments
from .registry import ToolRegistry
from .spec import ToolSpec

MAX_ERROR_CHARS = 2000


@dataclass(frozen=True)
class ValidatedCall:
    """A call whose arguments parsed and passed the tool's strict schema.

    ``digest`` is the SHA-256 of ``canonical``; it identifies the arguments that were shown and
    approved, whatever their spacing or key order.
    """

    call: ToolCall
    spec: ToolSpec
    args: BaseModel
    arguments: dict[str, Any]
    canonical: str
    digest: str


@dataclass(frozen=True)
class InvalidCall:
    """A call that must not run; ``error`` is the one message the model receives as its result."""

    call: ToolCall
    error: str


def validate_call(
    registry: ToolRegistry, call: ToolCall, offered: Collection[str] | None = None
) -> ValidatedCall | InvalidCall:
    """Look up the tool, parse the argument string once, validate strictly (no coercion).

    ``offered``: the names of the tools the request offered the model. A call to any other
    tool is an unknown tool, even when the registry has it by now (an MCP server that became
    ready while the model answered): the model cannot have seen its schema.
    """
    spec = registry.get(call.name)
    if spec is None or (offered is not None and call.name not in offered):
        names = registry.names() if offered is None else sorted(offered)
        available = ", ".join(names) or "none"
        return InvalidCall(call, f"unknown tool {call.name!r}; available tools: {available}")
    try:
        arguments = parse_arguments(call.arguments)
    except InvalidArguments as exc:
        # The text the model sent goes with the error: the request sends such a call back with
        # {} as its arguments (a server may refuse to parse them), so this is where it stays.
        unparseable = call.arguments and not is_json_object(call.arguments)
        sent = f"; the arguments sent were: {call.arguments}" if unparseable else ""
        return InvalidCall(call, _limited(f"invalid arguments for {spec.name}: {exc}{sent}"))
    try:
        args = spec.args_model.model_validate(arguments, strict=True)
    except ValidationError as exc:
        detail = _describe_validation_error(exc, spec)
        return InvalidCall(call, _limited(f"invalid arguments for {spec.name}: {detail}"))
    canonical = canonical_json(arguments)
    if spec.risk_of is not None:  # this call's own risk decides, shows and schedules it
        spec = dataclasses.replace(spec, risk=spec.risk_of(args), risk_of=None)
    return ValidatedCall(call, spec, args, arguments, canonical, arguments_digest(arguments))


def validate_edited(
    registry: ToolRegistry, call: ToolCall, edited_text: str
) -> ValidatedCall | InvalidCall:
    """Validate arguments the user edited; the result's ``call`` carries the edited text.

    The id stays the model's, so the result still answers the call the model made.
    """
    return validate_call(registry, dataclasses.replace(call, arguments=edited_text))


def _describe_validation_error(exc: ValidationError, spec: ToolSpec) -> str:
    fields = spec.args_model.model_fields
    known = ", ".join(info.alias or name for name, info in fields.items()) or "none"
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        kind = error["type"]
        if kind == "missing":
            message = "required argument is missing"
        elif kind == "extra_forbidden":
            message = f"unknown argument; expected only: {known}"
        elif kind == "value_error" and "error" in error.get("ctx", {}):
            # Our own validators' messages, without pydantic's "Value error, " prefix.
            message = str(error["ctx"]["error"])
        else:
            message = _lower_first(error["msg"])
            if kind.endswith("_type"):
                message += f" (got {_json_kind(error.get('input'))})"
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a floating-point number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _limited(message: str) -> str:
    if len(message) <= MAX_ERROR_CHARS:
        return message
    return message[: MAX_ERROR_CHARS - 1] + "…"
