"""Turn a pydantic model's JSON schema into the plain object schema tool-calling providers accept.

Providers reject or misread pydantic's extras: ``$defs``/``$ref`` indirection, ``title`` on
every node, and ``anyOf [X, null]`` for optional fields. The result here is self-contained:
``type: object``, ``properties``, ``required`` and ``additionalProperties: false``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not")


def provider_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The cleaned, self-contained JSON schema of ``model``'s fields."""
    raw = model.model_json_schema()
    definitions: dict[str, Any] = raw.pop("$defs", {})
    cleaned = _clean(raw, definitions, ())
    properties: dict[str, Any] = cleaned.get("properties", {})
    required: list[str] = list(cleaned.get("required", []))
    for name, prop in properties.items():
        if name not in required:
            properties[name] = _without_null_branch(prop)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _clean(node: Any, definitions: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        return node
    result: dict[str, Any] = {}
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen or name not in definitions:
            # A recursive model has no finite inline form; providers cannot take it either.
            raise ValueError(f"argument model refers to {name!r} recursively or unknowably")
        result.update(_clean(definitions[name], definitions, (*seen, name)))
    for key, value in node.items():
        if key in ("$ref", "title"):
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {prop: _clean(sub, definitions, seen) for prop, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            result[key] = [_clean(sub, definitions, seen) for sub in value]
        elif key in _SCHEMA_VALUES:
            result[key] = _clean(value, definitions, seen)
        else:
            result[key] = value
    return result


def _without_null_branch(prop: dict[str, Any]) -> dict[str, Any]:
    """``anyOf [X, null]`` with default null becomes X: leaving an optional field out means None."""
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return prop
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) != 1 or len(kept) == len(branches):
        return prop
    merged = {key: value for key, value in prop.items() if key != "anyOf"}
    if "default" in merged and merged["default"] is None:
        del merged["default"]
    return {**kept[0], **merged}
