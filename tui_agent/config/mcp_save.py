"""``tui-agent mcp add`` and ``mcp remove``: one ``[mcp_servers.NAME]`` table written or taken out
of config.toml, every other line kept byte for byte (as save.py does for ``[approval]``).

The edited text is parsed again and must equal the old document with only that server changed;
otherwise nothing is written and ConfigFileError says what to do by hand.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from ..mcp.config import McpServerConfig, check_server_name
from .errors import ConfigFileError
from .load import parse_config, parse_toml, read_config_text
from .save import _same, _write_private
from .toml_text import emit_string, emit_string_array, header_lines, split_lines

TABLE = "mcp_servers"


def add_server(path: Path, name: str, server: McpServerConfig) -> None:
    """Append ``[mcp_servers.NAME]``; ConfigFileError if NAME exists or the file is wrong."""
    check_server_name(name)
    text = read_config_text(path) or ""
    current = parse_config(text, path)
    if name in current.mcp_servers:
        raise ConfigFileError(f"an MCP server named {name!r} is already in {path}")
    newline = "\r\n" if "\r\n" in text else "\n"
    block = _server_block(name, server, newline)
    separator = "" if not text else (newline if text.endswith("\n") else newline * 2)
    new_text = text + separator + block
    expected = parse_toml(text, path)
    expected.setdefault(TABLE, {})[name] = _values(server)
    _check_and_write(path, text, new_text, expected)


def remove_server(path: Path, name: str) -> None:
    """Take out ``[mcp_servers.NAME]`` (and its sub-tables); ConfigFileError if absent."""
    text = read_config_text(path) or ""
    current = parse_config(text, path)
    if name not in current.mcp_servers:
        known = ", ".join(sorted(current.mcp_servers)) or "none"
        raise ConfigFileError(f"no MCP server named {name!r} in {path} (servers: {known})")
    lines = split_lines(text)
    headers = header_lines(text)
    keep = [True] * len(lines)
    for position, (start, header) in enumerate(headers):
        if header[:2] != (TABLE, name):
            continue
        end = headers[position + 1][0] if position + 1 < len(headers) else len(lines)
        for index in range(start, end):
            keep[index] = False
    new_text = "".join(line for line, kept in zip(lines, keep, strict=True) if kept)
    expected = copy.deepcopy(parse_toml(text, path))
    del expected[TABLE][name]
    if not expected[TABLE] and not any(header == (TABLE,) for _, header in headers):
        del expected[TABLE]  # the last server's table was all that made [mcp_servers]
    _check_and_write(path, text, new_text, expected)


def _check_and_write(path: Path, old_text: str, new_text: str, expected: dict[str, Any]) -> None:
    try:
        ok = _same(parse_toml(new_text, path), expected)
    except ConfigFileError:
        ok = False
    if not ok:
        raise ConfigFileError(
            f"cannot edit {path} safely (the [mcp_servers] part is written in a form this "
            "editor does not handle); edit it by hand"
        )
    parse_config(new_text, path)
    _write_private(path, new_text)


def _values(server: McpServerConfig) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if server.command is not None:
        values["command"] = server.command
        if server.args:
            values["args"] = list(server.args)
        if server.env:
            values["env"] = dict(server.env)
    else:
        values["url"] = server.url
        if server.headers:
            values["headers"] = dict(server.headers)
    return values


def _server_block(name: str, server: McpServerConfig, newline: str) -> str:
    key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else emit_string(name)
    lines = [f"[{TABLE}.{key}]"]
    for key, value in _values(server).items():
        if isinstance(value, str):
            lines.append(f"{key} = {emit_string(value)}")
        elif isinstance(value, list):
            lines.append(f"{key} = {emit_string_array(value, newline)}")
        else:
            pairs = ", ".join(f"{emit_string(k)} = {emit_string(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {pairs} }}")
    return newline.join(lines) + newline
