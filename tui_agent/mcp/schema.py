"""A server's input schema: checked once, validated strictly, and given to providers self-contained.

Validation uses ``jsonschema`` with the draft the schema names (2020-12 when it names none) and a
stricter type check: an "integer" is an integer, never 1.0 and never true. Nothing is coerced.
The JSON parse before it (tools/arguments.py) already refused duplicate keys, integers beyond 64
bits, NaN and lone surrogates, as for every tool.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator

MAX_ERRORS = 5
SCHEMA_NODES = 20_000  # mcp/limits.py: the parts of one schema once its $refs are inlined
_META_KEYS = ("$schema", "$id", "$comment")


class BadToolSchema(ValueError):
    """The server's input schema is not a usable JSON Schema for an object of arguments."""


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def strict_validator(schema: dict[str, Any]) -> Validator:
    """A validator for ``schema``; BadToolSchema if the schema itself is invalid."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise BadToolSchema('the input schema must be a JSON Schema with "type": "object"')
    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        base.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "the top"
        raise BadToolSchema(f"invalid input schema at {where}: {exc.message[:300]}") from None
    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    strict = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    validator: Validator = strict(schema)
    return validator


def describe_errors(validator: Validator, arguments: dict[str, Any]) -> str | None:
    """None when ``arguments`` are valid; otherwise what is wrong, where, in a few lines."""
    errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.path])
    if not errors:
        return None
    parts = []
    for error in errors[:MAX_ERRORS]:
        where = ".".join(str(part) for part in error.absolute_path)
        parts.append(f"{where}: {error.message[:300]}" if where else error.message[:300])
    if len(errors) > MAX_ERRORS:
        parts.append(f"and {len(errors) - MAX_ERRORS} more")
    return "; ".join(parts)


def provider_form(schema: dict[str, Any], max_nodes: int = SCHEMA_NODES) -> dict[str, Any]:
    """The same schema, self-contained: local ``$ref``s inlined, ``$schema``/``$id`` dropped.

    Some providers (Gemini's subset among them) reject references and meta keys; inlining keeps
    the meaning. A recursive schema cannot be inlined and is passed as given, minus meta keys.
    BadToolSchema when the inlined form would have more than ``max_nodes`` parts: a few bytes of
    definitions that each use the one before twice double with every level (1.5 KB became
    28 MB in every request, after a minute and 800 MB).
    """
    definitions: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, dict):
            definitions.update({f"#/{key}/{name}": value for name, value in found.items()})
    budget = _Budget(max_nodes)
    try:
        inlined = _inline(schema, definitions, (), budget)
    except _Recursive:
        inlined = copy.deepcopy(schema)
    else:
        for key in ("$defs", "definitions"):
            inlined.pop(key, None)
    for key in _META_KEYS:
        inlined.pop(key, None)
    result: dict[str, Any] = inlined
    return result


class _Recursive(Exception):
    pass


class _Budget:
    def __init__(self, nodes: int) -> None:
        self.limit = self.left = nodes

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise BadToolSchema(
                f"its input schema grows past {self.limit:,} parts once its $refs are inlined "
                "(definitions that use each other over and over)"
            )


def _inline(node: Any, definitions: dict[str, Any], seen: tuple[str, ...], budget: _Budget) -> Any:
    budget.spend()
    if isinstance(node, list):
        return [_inline(item, definitions, seen, budget) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen or ref not in definitions:
            raise _Recursive
        target = _inline(definitions[ref], definitions, (*seen, ref), budget)
        rest = {k: _inline(v, definitions, seen, budget) for k, v in node.items() if k != "$ref"}
        return {**target, **rest} if isinstance(target, dict) else target
    return {
        key: (
            value
            if key in ("enum", "const", "default", "examples")
            else _inline(value, definitions, seen, budget)
        )
        for key, value in node.items()
    }
