"""Tools the user declares in the config file: one program, run with arguments the model fills in.

A declaration is a table (already parsed from TOML), for example::

    [[tools]]
    name = "git_log"                       # 1-64 letters, digits, '_' or '-'
    description = "Show recent commits."   # what the model reads
    program = "git"                        # a name on PATH, or a path (relative: to the workspace)
    args = ["log", ["-n", "{count}"], "--", "{path}"]
    risk = "read"                          # read | write | execute (default) | network
    timeout_s = 30                         # optional; never more than the app's command limit
    # sandbox = "read-only"                # optional: workspace-write | read-only | off
    # sandbox_network = true               # optional: this tool's own network switch
    [tools.parameters.count]
    type = "integer"                       # string | integer | number | boolean
    description = "How many commits."
    required = false                       # default false
    [tools.parameters.path]
    type = "string"
    required = true
    # enum = ["a", "b"]                    # optional: the only values allowed
    # allow_leading_dash = true            # strings only; see below

Rules:
- The program is run directly, never through a shell; each ``args`` entry is exactly one argv
  entry, so a value with spaces, quotes or ``; rm -rf /`` stays one argument.
- A placeholder is a whole entry: ``"{count}"``. ``"-n{count}"`` is refused; write ``{{`` and
  ``}}`` for literal braces (``"{{}}"`` gives ``{}``).
- An entry may be a list of entries: a group, left out as a whole when an optional parameter in
  it was not given (``["-n", "{count}"]``). A single optional placeholder is simply dropped.
- Every placeholder must be a declared parameter, and every parameter must be used.
- A string value that starts with ``-`` is refused unless the parameter sets
  ``allow_leading_dash``: otherwise the model could smuggle in an option such as ``--output=``.
- Values are validated like any tool's: strictly, unknown arguments refused.
- The program runs in the workspace, in its own process group, with the same timeout, output cap,
  secret-free environment and sandbox as ``run_command``; ``sandbox`` and ``sandbox_network``
  give the tool its own setting instead of the session's (shown on each approval).
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from ..sandbox.policy import SandboxMode, ToolSandbox
from .environment import scrubbed_environment
from .process import ProcessStartError
from .sandboxed import run_sandboxed
from .spec import TOOL_NAME, Risk, ToolContext, ToolFailure, ToolOutput, ToolSpec

_DECLARATION_KEYS = {
    "name",
    "description",
    "program",
    "args",
    "risk",
    "parameters",
    "timeout_s",
    "sandbox",
    "sandbox_network",
}
_PARAMETER_KEYS = {"type", "description", "required", "enum", "allow_leading_dash"}
_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}
_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class UserToolError(ValueError):
    """A tool declaration in the config is malformed; the message names the tool and the fault."""


# An argv entry: a literal string, or the name of a parameter (a placeholder).
@dataclass(frozen=True)
class _Slot:
    text: str
    is_placeholder: bool


_Group = tuple[_Slot, ...]


def user_tool_specs(declarations: Iterable[Mapping[str, Any]]) -> list[ToolSpec]:
    """A ToolSpec per declaration, in order; the first bad declaration raises UserToolError."""
    specs: list[ToolSpec] = []
    for index, declaration in enumerate(declarations, start=1):
        spec = build_user_tool(declaration, index=index)
        if any(spec.name == other.name for other in specs):
            raise UserToolError(f"user tool {spec.name!r} is declared twice")
        specs.append(spec)
    return specs


def build_user_tool(declaration: Mapping[str, Any], *, index: int = 1) -> ToolSpec:
    """One declared tool as a ToolSpec with a strict argument model built from its parameters."""
    if not isinstance(declaration, Mapping):
        raise UserToolError(
            f"user tool #{index}: expected a table, got {type(declaration).__name__}"
        )
    name = declaration.get("name")
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise UserToolError(
            f"user tool #{index}: 'name' must be 1-64 letters, digits, '_' or '-', got {name!r}"
        )
    try:
        return _build(name, declaration)
    except UserToolError as exc:
        raise UserToolError(f"user tool {name!r}: {exc}") from None


def _build(name: str, declaration: Mapping[str, Any]) -> ToolSpec:
    unknown = set(declaration) - _DECLARATION_KEYS
    if unknown:
        raise UserToolError(f"unknown keys {sorted(unknown)}; allowed: {sorted(_DECLARATION_KEYS)}")
    description = _required_text(declaration, "description")
    program = _required_text(declaration, "program")
    risk_name = declaration.get("risk", Risk.EXECUTE.value)
    if not isinstance(risk_name, str) or risk_name not in {risk.value for risk in Risk}:
        raise UserToolError(f"'risk' must be one of {[r.value for r in Risk]}, got {risk_name!r}")
    timeout_s = declaration.get("timeout_s")
    if timeout_s is not None and (
        isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0
    ):
        raise UserToolError(f"'timeout_s' must be a positive number, got {timeout_s!r}")
    parameters = declaration.get("parameters", {})
    if not isinstance(parameters, Mapping):
        raise UserToolError("'parameters' must be a table of parameter tables")
    model = _args_model(name, parameters)
    template = _parse_args(declaration.get("args", []))
    used = {slot.text for group in template for slot in group if slot.is_placeholder}
    undeclared = sorted(used - set(parameters))
    if undeclared:
        raise UserToolError(f"placeholder {{{undeclared[0]}}} is not a declared parameter")
    unused = sorted(set(parameters) - used)
    if unused:
        raise UserToolError(f"parameter {unused[0]!r} is declared but never used in 'args'")
    sandbox = _tool_sandbox(declaration)
    runner = _Runner(program, template, None if timeout_s is None else float(timeout_s), sandbox)
    return ToolSpec(name, description, model, Risk(risk_name), runner.run, sandbox=sandbox)


def _tool_sandbox(declaration: Mapping[str, Any]) -> ToolSandbox:
    mode = declaration.get("sandbox")
    modes = [m.value for m in SandboxMode]
    if mode is not None and mode not in modes:
        raise UserToolError(f"'sandbox' must be one of {modes}, got {mode!r}")
    network = declaration.get("sandbox_network")
    if network is not None and not isinstance(network, bool):
        raise UserToolError(f"'sandbox_network' must be true or false, got {network!r}")
    return ToolSandbox(None if mode is None else SandboxMode(mode), network)


def _required_text(declaration: Mapping[str, Any], key: str) -> str:
    value = declaration.get(key)
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise UserToolError(f"{key!r} must be a non-empty string")
    return value


def _parse_args(args: Any) -> tuple[_Group, ...]:
    if not isinstance(args, list):
        raise UserToolError("'args' must be a list of strings (or of lists of strings)")
    groups: list[_Group] = []
    for entry in args:
        if isinstance(entry, str):
            groups.append((_slot(entry),))
        elif isinstance(entry, list) and entry and all(isinstance(e, str) for e in entry):
            groups.append(tuple(_slot(e) for e in entry))
        else:
            raise UserToolError(f"'args' entry {entry!r} is neither a string nor a list of them")
    return tuple(groups)


def _slot(entry: str) -> _Slot:
    if "\0" in entry:
        raise UserToolError(f"'args' entry {entry!r} contains a NUL character")
    whole = _PLACEHOLDER.fullmatch(entry)
    if whole:
        return _Slot(whole.group(1), is_placeholder=True)
    literal = entry.replace("{{", "").replace("}}", "")
    if "{" in literal or "}" in literal:
        raise UserToolError(
            f"'args' entry {entry!r}: a placeholder must be a whole entry such as '{{name}}' "
            "(write '{{' and '}}' for literal braces)"
        )
    return _Slot(entry.replace("{{", "{").replace("}}", "}"), is_placeholder=False)


def _args_model(tool: str, parameters: Mapping[str, Any]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for position, (name, declared) in enumerate(parameters.items()):
        if not isinstance(name, str) or not _PARAMETER_NAME.fullmatch(name):
            raise UserToolError(f"parameter name {name!r} must be an identifier")
        if not isinstance(declared, Mapping):
            raise UserToolError(f"parameter {name!r} must be a table")
        annotation, required = _parameter_type(name, declared)
        description = declared.get("description")
        if description is not None and not isinstance(description, str):
            raise UserToolError(f"parameter {name!r}: 'description' must be a string")
        # Internal field names, public aliases: a parameter may be called "json" or "schema"
        # without clashing with BaseModel's own attributes.
        info = (
            Field(alias=name, description=description)
            if required
            else Field(None, alias=name, description=description)
        )
        fields[f"p{position}"] = (annotation if required else annotation | None, info)
    config = ConfigDict(strict=True, extra="forbid")
    model: type[BaseModel] = create_model(f"{tool}_args", __config__=config, **fields)
    return model


def _parameter_type(name: str, declared: Mapping[str, Any]) -> tuple[Any, bool]:
    unknown = set(declared) - _PARAMETER_KEYS
    if unknown:
        raise UserToolError(f"parameter {name!r}: unknown keys {sorted(unknown)}")
    kind = declared.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:  # (a list is not hashable)
        raise UserToolError(f"parameter {name!r}: 'type' must be one of {sorted(_TYPES)}")
    required = declared.get("required", False)
    allow_dash = declared.get("allow_leading_dash", False)
    if not isinstance(required, bool) or not isinstance(allow_dash, bool):
        raise UserToolError(f"parameter {name!r}: 'required' and 'allow_leading_dash' are booleans")
    if allow_dash and kind != "string":
        raise UserToolError(f"parameter {name!r}: 'allow_leading_dash' is for strings only")
    enum = declared.get("enum")
    if enum is not None:
        python_type = _TYPES[kind]
        if (
            not isinstance(enum, list)
            or not enum
            or not all(type(v) is python_type for v in enum)
            or any(isinstance(v, str) and "\0" in v for v in enum)
        ):
            raise UserToolError(f"parameter {name!r}: 'enum' must be a non-empty list of {kind}s")
        return Literal.__getitem__(tuple(enum)), required
    if kind == "string":
        check = _plain_argument if allow_dash else _argument_not_option
        return Annotated[str, AfterValidator(check)], required
    return _TYPES[kind], required


def _plain_argument(value: str) -> str:
    if "\0" in value:
        raise ValueError("must not contain a NUL character")
    return value


def _argument_not_option(value: str) -> str:
    if value.startswith("-"):
        raise ValueError("must not start with '-' (the program could read it as an option)")
    return _plain_argument(value)


def _argv_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


class _Runner:
    def __init__(
        self,
        program: str,
        template: tuple[_Group, ...],
        timeout_s: float | None,
        sandbox: ToolSandbox,
    ) -> None:
        self.program = program
        self.template = template
        self.timeout_s = timeout_s
        self.sandbox = sandbox

    def argv(self, values: Mapping[str, Any]) -> list[str]:
        """The argument list after the program: groups with an absent value left out."""
        argv: list[str] = []
        for group in self.template:
            if any(slot.is_placeholder and values.get(slot.text) is None for slot in group):
                continue
            argv.extend(
                _argv_text(values[slot.text]) if slot.is_placeholder else slot.text
                for slot in group
            )
        return argv

    async def run(self, args: BaseModel, ctx: ToolContext) -> ToolOutput:
        env = scrubbed_environment(secret_values=ctx.secret_values)
        try:
            program = _locate(self.program, ctx, env.get("PATH"))
        except ToolFailure as exc:
            return ToolOutput(str(exc), is_error=True)
        limit = ctx.command_timeout_s
        timeout_s = limit if self.timeout_s is None else min(self.timeout_s, limit)
        values = args.model_dump(by_alias=True)
        try:
            return await run_sandboxed(
                [program, *self.argv(values)],
                ctx,
                self.sandbox.apply(ctx.sandbox),
                env=env,
                timeout_s=timeout_s,
            )
        except ProcessStartError as exc:
            # Named as declared: the resolved path would show this machine's directories.
            return ToolOutput(f"cannot start {self.program!r}: {exc.reason}", is_error=True)


def _locate(program: str, ctx: ToolContext, search_path: str | None) -> str:
    if "/" not in program:
        found = shutil.which(program, path=search_path)
        if found is None:
            raise ToolFailure(f"program {program!r} was not found on PATH")
        return found
    path = Path(program).expanduser()
    return str(path if path.is_absolute() else ctx.workspace / path)
