"""The values of every variable a key may come from, so that no writer of ours lets one through:
the protocols' default key variables, each profile's ``api_key_env`` and any variable whose name
looks like it holds a credential, and every variable an MCP server's ``env`` or ``headers`` names as
``${VAR}`` (mcp/config.py). The session store, the logs and exports redact all of them,
not only the key of the profile in use (a model or a tool may well print another one)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..providers import PROTOCOLS
from .model import Config

if TYPE_CHECKING:
    from ..mcp.workspace_file import VariablePolicy


def key_values(config: Config | None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The non-empty values of those variables in ``environ`` (default: ``os.environ``)."""
    from ..mcp.config import referenced_values
    from ..tools.environment import looks_secret

    env = os.environ if environ is None else environ
    names = {name for spec in PROTOCOLS.values() for name in spec.key_envs}
    names |= {name for name in env if looks_secret(name)}
    if config is not None:
        names |= {p.api_key_env for p in config.profiles.values() if p.api_key_env}
    values = [env[name] for name in sorted(names) if env.get(name)]
    if config is not None:
        values += referenced_values(config.mcp_servers.values(), env)
    return list(dict.fromkeys(values))


def workspace_variable_policy(config: Config, key_env: str | None = None) -> VariablePolicy:
    """What a workspace's ``.mcp.json`` may send as ``${VAR}``: never a variable any profile (or
    ``key_env``, the one in use) or protocol reads a key from; a secret-looking one only when
    ``[settings] workspace_mcp_variables`` names it."""
    from ..mcp.workspace_file import VariablePolicy

    keys = {p.api_key_env for p in config.profiles.values() if p.api_key_env}
    if key_env:
        keys.add(key_env)
    allowed = frozenset(config.settings.workspace_mcp_variables)
    return VariablePolicy(provider_keys=frozenset(keys), allowed=allowed)
