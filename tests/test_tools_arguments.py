"""Strict argument parsing, canonical form and digest, and validation against a tool's model."""

from __future__ import annotations

import json

import pytest

from tui_agent.stream.turn import ToolCall
from tui_agent.tools import (
    InvalidArguments,
    InvalidCall,
    ValidatedCall,
    arguments_digest,
    builtin_registry,
    canonical_json,
    parse_arguments,
    validate_call,
    validate_edited,
)

from .tools_helpers import invalid, validated

REGISTRY = builtin_registry()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ('{"a": {"b": 1, "b": 1}}', "duplicate key 'b'"),
        ('{"a": [{"c": 1, "c": 2}]}', "duplicate key 'c'"),
        ('{"a": 1, "\\u0061": 2}', "duplicate key 'a'"),
        ("[]", "must be a JSON object, got an array"),
        ('"x"', "must be a JSON object, got a string"),
        ("1", "must be a JSON object, got a number"),
        ("null", "must be a JSON object, got null"),
        ("true", "must be a JSON object, got a boolean"),
        ('{"a": 1} {"b": 2}', "exactly one JSON object"),
        ('{"a": 1}x', "exactly one JSON object"),
        ('{"a": 1,}', "not valid JSON"),
        ("{'a': 1}", "not valid JSON"),
        ('{"a": 1', "not valid JSON"),
        ("", "arguments are empty"),
        ("   ", "arguments are empty"),
        ('{"a": "\\ud800"}', "lone UTF-16 surrogate"),
        ('{"\\udc00": 1}', "lone UTF-16 surrogate"),
    ],
)
def test_parse_refuses(text: str, expected: str) -> None:
    with pytest.raises(InvalidArguments) as err:
        parse_arguments(text)
    assert expected in str(err.value)


def test_parse_accepts_one_object_with_surrounding_whitespace() -> None:
    text = ' \n{"path": "a", "n": [1, 2.5, {"x": null}], "s": "\\u00e9\\ud83d\\ude00"}\t'
    assert parse_arguments(text) == {"path": "a", "n": [1, 2.5, {"x": None}], "s": "é😀"}


def test_same_object_in_any_spelling_has_one_digest() -> None:
    first = parse_arguments('{"b": [1, {"y": 2, "x": 1}], "a": "é"}')
    second = parse_arguments('{\n  "a" : "\\u00e9",\n  "b" : [ 1 , {"x":1,"y":2} ]\n}')
    assert canonical_json(first) == canonical_json(second) == '{"a":"é","b":[1,{"x":1,"y":2}]}'
    assert arguments_digest(first) == arguments_digest(second)
    assert len(arguments_digest(first)) == 64
    assert arguments_digest(first) != arguments_digest({"a": "é", "b": [1, {"x": 1, "y": 3}]})


def test_validated_call_carries_parsed_canonical_and_digest() -> None:
    result = validated(REGISTRY, "read_file", '{ "limit": 5, "path": "a.txt" }')
    assert result.arguments == {"path": "a.txt", "limit": 5}
    assert result.canonical == '{"limit":5,"path":"a.txt"}'
    assert result.digest == arguments_digest({"limit": 5, "path": "a.txt"})
    assert result.args.model_dump() == {"path": "a.txt", "offset": 0, "limit": 5}
    assert result.spec.name == "read_file"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"path": "a", "offset": "1"}', "offset: input should be a valid integer (got a string)"),
        ('{"path": 1}', "path: input should be a valid string (got an integer)"),
        ('{"path": "a", "offset": 1.0}', "offset: input should be a valid integer"),
        (
            '{"path": "a", "offset": true}',
            "offset: input should be a valid integer (got a boolean)",
        ),
        ('{"path": "a", "offset": -1}', "offset: input should be greater than or equal to 0"),
        ('{"path": "a", "limit": 0}', "limit: input should be greater than or equal to 1"),
        (
            '{"path": "a", "mode": "x"}',
            "mode: unknown argument; expected only: path, offset, limit",
        ),
        ("{}", "path: required argument is missing"),
        ('{"path": null}', "path: input should be a valid string (got null)"),
    ],
)
def test_schema_failures_are_refused_without_coercion(arguments: str, expected: str) -> None:
    error = invalid(REGISTRY, "read_file", arguments)
    assert error.startswith("invalid arguments for read_file: ")
    assert expected in error


def test_bad_json_becomes_an_invalid_call_naming_the_tool() -> None:
    error = invalid(REGISTRY, "read_file", '{"path": "a", "path": "b"}')
    assert error == "invalid arguments for read_file: duplicate key 'path' in arguments"
    assert "must be a JSON object" in invalid(REGISTRY, "read_file", '["a"]')


def test_float_field_accepts_an_integer_number() -> None:
    result = validated(REGISTRY, "run_command", '{"command": "true", "timeout_s": 5}')
    assert result.args.model_dump()["timeout_s"] == 5.0
    error = invalid(REGISTRY, "run_command", '{"command": "true", "timeout_s": "5"}')
    assert "timeout_s: input should be a valid number" in error


def test_unknown_tool_lists_the_available_ones() -> None:
    error = invalid(REGISTRY, "delete_everything", "{}")
    assert error == (
        "unknown tool 'delete_everything'; available tools: read_file, list_dir, search_text, "
        "write_file, edit_file, run_command, job_output, stop_job, web_fetch"
    )


def test_edited_arguments_are_validated_again_with_a_new_digest() -> None:
    call = ToolCall(id="call_9", name="write_file", arguments='{"path": "a", "content": "x"}')
    original = validate_call(REGISTRY, call)
    assert isinstance(original, ValidatedCall)
    edited = validate_edited(REGISTRY, call, '{"content": "y", "path": "a"}')
    assert isinstance(edited, ValidatedCall)
    assert edited.call.id == "call_9"
    assert edited.call.arguments == '{"content": "y", "path": "a"}'
    assert edited.digest != original.digest
    assert edited.args.model_dump() == {"path": "a", "content": "y"}
    refused = validate_edited(REGISTRY, call, '{"path": "a", "content": 5}')
    assert isinstance(refused, InvalidCall)
    assert "content: input should be a valid string" in refused.error
    assert isinstance(validate_edited(REGISTRY, call, '{"path": "a"} x'), InvalidCall)


def test_every_builtin_schema_is_a_plain_object_schema() -> None:
    for name, description, schema in REGISTRY.schemas():
        assert description
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert set(schema) == {"type", "properties", "required", "additionalProperties"}
        text = json.dumps(schema)
        for clutter in ('"title"', "$defs", "$ref", "anyOf", '"null"'):
            assert clutter not in text, (name, clutter)
        for prop in schema["properties"].values():
            assert prop.get("description"), name
    read_file = dict((n, s) for n, _, s in REGISTRY.schemas())["read_file"]
    assert read_file["required"] == ["path"]
    assert read_file["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "description": "The most lines to return (default: as many as fit in 256 KB).",
    }
