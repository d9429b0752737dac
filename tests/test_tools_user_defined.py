"""Tools declared in the config: argv built entry by entry, never through a shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent.tools import (
    Risk,
    ToolContext,
    ToolOutput,
    UserToolError,
    build_user_tool,
    builtin_registry,
    user_tool_specs,
)

from .support.waiting import ends
from .tools_helpers import call, invalid, live_members, make_context

PRINT_ARGS: dict[str, Any] = {
    "name": "print_args",
    "description": "Print each argument on its own line.",
    "program": "printf",
    "args": ["%s\\n", "{text}", ["--count", "{count}"], "{flag}", "{ratio}", "{{}}"],
    "risk": "read",
    "parameters": {
        "text": {"type": "string", "description": "Any text.", "required": True},
        "count": {"type": "integer", "description": "A number."},
        "flag": {"type": "boolean"},
        "ratio": {"type": "number"},
    },
}


MINIMAL: dict[str, Any] = {
    "name": "minimal",
    "description": "d",
    "program": "printf",
    "args": ["{text}"],
    "parameters": {"text": {"type": "string"}},
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def run_tool(
    ctx: ToolContext, declaration: dict[str, Any], **arguments: object
) -> ToolOutput:
    registry = builtin_registry([build_user_tool(declaration)])
    return await call(registry, ctx, declaration["name"], json.dumps(arguments))


async def test_hostile_value_stays_one_argument(ctx: ToolContext, tmp_path: Path) -> None:
    canary = ctx.workspace / "canary"
    canary.write_text("alive")
    value = f"two words \"quoted\" 'single' $(touch {tmp_path}/pwned); rm -rf {canary} `id` | cat"
    output = await run_tool(ctx, PRINT_ARGS, text=value)
    assert output == ToolOutput(f"{value}\n{{}}\n[exit code 0]")
    assert canary.read_text() == "alive"
    assert not (tmp_path / "pwned").exists()


async def test_optional_parameters_absent_drop_their_entries(ctx: ToolContext) -> None:
    output = await run_tool(ctx, PRINT_ARGS, text="x", count=3, flag=False, ratio=2.5)
    assert output.text == "x\n--count\n3\nfalse\n2.5\n{}\n[exit code 0]"
    output = await run_tool(ctx, PRINT_ARGS, text="x", ratio=4)
    assert output.text == "x\n4\n{}\n[exit code 0]"


def test_schema_is_built_from_the_declaration() -> None:
    spec = build_user_tool(PRINT_ARGS)
    assert spec.risk is Risk.READ
    assert spec.parameters_schema() == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "Any text."},
            "count": {"type": "integer", "description": "A number."},
            "flag": {"type": "boolean"},
            "ratio": {"type": "number"},
        },
        "required": ["text"],
        "additionalProperties": False,
    }


def test_arguments_are_validated_strictly() -> None:
    registry = builtin_registry([build_user_tool(PRINT_ARGS)])
    cases = {
        '{"text": 5}': "text: input should be a valid string (got an integer)",
        '{"text": "a", "count": "3"}': "count: input should be a valid integer (got a string)",
        '{"text": "a", "extra": 1}': "extra: unknown argument; expected only: text, count, flag",
        "{}": "text: required argument is missing",
        '{"text": "--output=/etc/passwd"}': "text: must not start with '-'",
        '{"text": "a\\u0000b"}': "text: must not contain a NUL character",
    }
    for arguments, message in cases.items():
        assert message in invalid(registry, "print_args", arguments), arguments


async def test_leading_dash_allowed_when_declared_and_enums(ctx: ToolContext) -> None:
    declaration = {
        "name": "dash",
        "description": "d",
        "program": "printf",
        "args": ["%s|", "{value}", "{mode}"],
        "parameters": {
            "value": {"type": "string", "allow_leading_dash": True, "required": True},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
        },
    }
    assert (await run_tool(ctx, declaration, value="-n", mode="fast")).text.startswith("-n|fast|")
    spec = build_user_tool(declaration)
    schema = spec.parameters_schema()["properties"]["mode"]
    assert schema["enum"] == ["fast", "slow"]
    registry = builtin_registry([spec])
    assert "mode: input should be 'fast' or 'slow'" in invalid(
        registry, "dash", '{"value": "x", "mode": "medium"}'
    )


async def test_program_runs_in_the_workspace_with_the_shared_limits(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, command_timeout_s=0.5)
    (ctx.workspace / "here.txt").write_text("")
    lister = {"name": "ls_here", "description": "d", "program": "ls", "args": []}
    assert (await run_tool(ctx, lister)).text == "here.txt\n[exit code 0]"
    sleeper = {
        "name": "sleeper",
        "description": "d",
        "program": "sh",
        "args": ["-c", "echo $$; sleep 30"],
        "timeout_s": 60,
    }
    # The context's 0.5 s wins over the tool's 60 s: bounded far below both the sleep and 60 s.
    output = await ends(run_tool(ctx, sleeper), "the sleeper")
    assert output.is_error and "[timed out after 0.5 s" in output.text
    assert live_members(int(output.text.split()[0])) == []


async def test_missing_program_is_an_error_result(ctx: ToolContext) -> None:
    missing = {"name": "nope", "description": "d", "program": "no-such-program-xyz"}
    assert await run_tool(ctx, missing) == ToolOutput(
        "program 'no-such-program-xyz' was not found on PATH", is_error=True
    )
    local = {"name": "local", "description": "d", "program": "./not-there.sh"}
    assert await run_tool(ctx, local) == ToolOutput(
        "cannot start './not-there.sh': No such file or directory", is_error=True
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "bad name"}, "'name' must be 1-64 letters"),
        ({"description": ""}, "'description' must be a non-empty string"),
        ({"program": 5}, "'program' must be a non-empty string"),
        ({"risk": "dangerous"}, "'risk' must be one of"),
        ({"risk": ["read"]}, "'risk' must be one of"),
        ({"args": ["a\0b"]}, "contains a NUL character"),
        ({"timeout_s": 0}, "'timeout_s' must be a positive number"),
        ({"timeout_s": True}, "'timeout_s' must be a positive number"),
        ({"shell": True}, "unknown keys ['shell']"),
        ({"args": "log -n 5"}, "'args' must be a list"),
        ({"args": ["-n{text}"]}, "a placeholder must be a whole entry"),
        ({"args": ["{text"]}, "a placeholder must be a whole entry"),
        ({"args": [[]]}, "is neither a string nor a list of them"),
        ({"args": ["{text}", "{other}"]}, "placeholder {other} is not a declared parameter"),
        ({"args": []}, "parameter 'text' is declared but never used"),
        ({"parameters": {"text": {"type": "str"}}}, "'type' must be one of"),
        ({"parameters": {"text": {"type": "string", "requird": True}}}, "unknown keys"),
        ({"parameters": {"text": {"type": "integer", "allow_leading_dash": True}}}, "strings only"),
        ({"parameters": {"text": {"type": "string", "enum": [1]}}}, "'enum' must be"),
        ({"parameters": {"text": {"type": "string", "required": "yes"}}}, "are booleans"),
        ({"parameters": {"1x": {"type": "string"}}}, "must be an identifier"),
        ({"parameters": ["text"]}, "'parameters' must be a table"),
    ],
)
def test_bad_declarations_are_refused_clearly(change: dict[str, Any], message: str) -> None:
    declaration = {**MINIMAL, **change}
    with pytest.raises(UserToolError, match="user tool") as err:
        build_user_tool(declaration)
    assert message in str(err.value)


def test_declaration_list_refuses_duplicates_and_non_tables() -> None:
    with pytest.raises(UserToolError, match="declared twice"):
        user_tool_specs([PRINT_ARGS, PRINT_ARGS])
    with pytest.raises(UserToolError, match="user tool #2: expected a table"):
        user_tool_specs([PRINT_ARGS, "git"])  # type: ignore[list-item]


def test_parameter_names_may_shadow_model_attributes() -> None:
    declaration = {
        "name": "shadow",
        "description": "d",
        "program": "printf",
        "args": ["{json}", "{schema}", "{model_config}"],
        "parameters": {n: {"type": "string"} for n in ["json", "schema", "model_config"]},
    }
    spec = build_user_tool(declaration)
    assert list(spec.parameters_schema()["properties"]) == ["json", "schema", "model_config"]
