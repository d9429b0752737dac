"""Reading config.toml: a missing file means defaults; anything wrong names file, line or key."""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, ValidationError

from ..hooks.config import HookConfig
from ..mcp.config import McpServerConfig
from .errors import ConfigFileError
from .model import AgentCommand, ApprovalConfig, Config, Profile, Settings

APP_NAME = "tui-agent"
CONFIG_FILE_NAME = "config.toml"

_TOML_POSITION = re.compile(r"^(?P<what>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# The table each key path leads to, for listing the keys a misspelled one could have been.
_TABLES: dict[tuple[str, ...], type[BaseModel]] = {
    (): Config,
    ("settings",): Settings,
    ("approval",): ApprovalConfig,
    ("profiles", "*"): Profile,
    ("mcp_servers", "*"): McpServerConfig,
    ("hooks", "*"): HookConfig,
    ("agents", "*"): AgentCommand,
}


def default_config_path() -> Path:
    """config.toml in the platform's user config directory (XDG_CONFIG_HOME on Linux)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / CONFIG_FILE_NAME


def load_config(path: Path | None = None) -> Config:
    """The configuration in ``path`` (default: ``default_config_path()``); defaults if missing."""
    path = default_config_path() if path is None else path
    text = read_config_text(path)
    return Config() if text is None else parse_config(text, path)


def read_config_text(path: Path) -> str | None:
    """The text of ``path``, None if it does not exist, ConfigFileError if unreadable."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(
            f"config file {path} is not UTF-8 text (bad byte at offset {exc.start})"
        ) from None


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """The TOML document in ``text`` (read from ``path``, named in errors)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(
            f"config file {path} is not valid TOML: {_toml_position(exc)}"
        ) from None


def parse_config(text: str, path: Path) -> Config:
    """The configuration in ``text``; ConfigFileError naming every bad key path."""
    try:
        return Config.model_validate(parse_toml(text, path))
    except ValidationError as exc:
        problems = "\n".join(f"  {_describe(error)}" for error in exc.errors())
        raise ConfigFileError(f"config file {path} has errors:\n{problems}") from None


def _toml_position(exc: tomllib.TOMLDecodeError) -> str:
    # Python 3.11 puts the position only in the message: "Invalid value (at line 3, column 7)".
    message = str(exc)
    found = _TOML_POSITION.match(message)
    if found is None:
        return message
    what = found["what"][:1].lower() + found["what"][1:]
    return f"line {found['line']}, column {found['column']}: {what}"


def _describe(error: Any) -> str:
    loc = tuple(error["loc"])
    where = _key_path(loc) or "(top level)"
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"{where}: unknown key{_unknown_key_hint(loc)}"
    if kind == "missing":
        return f"{where}: required key is missing"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}"


def _key_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            key = part if _BARE_KEY.match(part) else '"' + part.replace('"', '\\"') + '"'
            path += f".{key}" if path else key
    return path


# A table this short is listed whole when a key is far from every one of its keys.
SHORT_TABLE = 8


def _unknown_key_hint(loc: tuple[Any, ...]) -> str:
    parent = tuple(str(part) for part in loc[:-1])
    if len(parent) == 2 and parent[0] in ("profiles", "hooks"):
        parent = (parent[0], "*")
    table = _TABLES.get(parent)
    if table is None:
        return ""
    known = list(table.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    if close:  # the one line names the nearest key, not the whole table
        hint = f"; did you mean {close[0]}?"
    elif len(known) <= SHORT_TABLE:
        hint = " (known keys: " + ", ".join(known) + ")"
    else:
        name = "top level" if not parent else "[" + ".".join(parent) + "]"
        hint = f" (not one of the {len(known)} keys of {name}; docs/configuration.md lists them)"
    if parent and loc[-1] in Config.model_fields:
        # TOML puts keys written after a [table] header into that table.
        hint += f"; top-level keys such as {loc[-1]} must come before the first [table]"
    return hint
