"""MCP servers for tests: the real PyPI ones (mcp-server-time, mcp-server-git) and our own small
servers in tests/mcp_servers/, each started as ``python -m`` so no PATH lookup is needed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def server_table(name: str, module: str, *args: str, **keys: Any) -> str:
    """A ``[mcp_servers.NAME]`` table that runs ``python -m MODULE ARGS``."""
    argv = ["-m", module, *args]
    lines = [
        f"[mcp_servers.{name}]",
        f"command = {toml_string(sys.executable)}",
        f"args = [{', '.join(toml_string(a) for a in argv)}]",
    ]
    for key, value in keys.items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def own_server(name: str, script: str, *args: str, **keys: Any) -> str:
    """A table for one of tests/mcp_servers/ (run with this checkout on PYTHONPATH)."""
    env = {"PYTHONPATH": str(ROOT), **keys.pop("env", {})}
    return server_table(name, f"tests.mcp_servers.{script}", *args, env=env, **keys)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def call_ops(index: int, call_id: str, name: str, arguments: str) -> list[tuple[Any, ...]]:
    return [("call", index, call_id, name), ("args", index, arguments), ("close", index)]
