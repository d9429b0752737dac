"""Where and with what environment a stdio server starts: nowhere the agent can write.

A server runs unconfined, with the person's rights. If it started in the workspace, or with a
search path into it, a sandboxed command could plant code there that the next start runs: a
``PKG.py`` beside ``python -m PKG`` (Python puts the start folder first on the import path), a
``node_modules`` of a relative ``NODE_PATH``, a program in a relative ``PATH`` entry. So:

- the start folder is the config folder unless the server names a ``cwd``; a ``cwd`` inside the
  workspace is honoured only when the person's own config.toml says so (a workspace's
  ``.mcp.json`` comes with the code: there it is refused);
- ``PATH`` is the app's own without empty, relative or in-workspace entries, and
  ``PYTHONSAFEPATH=1`` keeps Python from putting the start folder on the import path;
- a workspace file may not point a code search path (``PYTHONPATH``, ``NODE_PATH``...) into the
  workspace or make one relative, nor set an interpreter's extra options at all.

The environment is otherwise the SDK's short list (HOME, LOGNAME, PATH, SHELL, TERM, USER) and
the server's own ``env``: never the app's whole environment, so no provider key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..session.paths import config_dir
from .errors import McpConfigError

# Lists of folders a program loads code from.
SEARCH_PATHS = (
    "PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONUSERBASE",
    "NODE_PATH",
    "PERL5LIB",
    "PERLLIB",
    "RUBYLIB",
    "GEM_PATH",
    "GEM_HOME",
    "CLASSPATH",
    "LD_LIBRARY_PATH",
    "GOPATH",
)
# Options or files that make an interpreter or the loader run code of their own choosing.
CODE_OPTIONS = (
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
    "JAVA_TOOL_OPTIONS",
    "LD_PRELOAD",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
)
SAFE_PYTHON = {"PYTHONSAFEPATH": "1"}


def _inside(path: Path, folder: Path) -> bool:
    try:
        resolved = path.resolve()
        return resolved == folder or folder in resolved.parents
    except (OSError, RuntimeError):
        return True  # a path that cannot be resolved is not trusted to be outside


def _workspace(workspace: Path) -> Path:
    try:
        return workspace.resolve()
    except (OSError, RuntimeError):
        return workspace.absolute()


def default_folder(workspace: Path) -> Path:
    """The config folder (made if missing), or ``/`` when it is inside the workspace or cannot
    be made: a folder the sandboxed agent cannot write either way."""
    folder = config_dir()
    if _inside(folder, _workspace(workspace)):
        return Path("/")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return Path("/")
    return folder if folder.is_dir() else Path("/")


def start_folder(cwd: str | None, workspace: Path, *, from_workspace: bool, where: str) -> Path:
    """The folder a stdio server starts in; McpConfigError when a workspace file names one the
    agent can write. A relative ``cwd`` is taken from the folder of the file that names it: the
    config folder, or the workspace (and so refused)."""
    if cwd is None:
        return default_folder(workspace)
    folder = Path(cwd).expanduser()
    if not folder.is_absolute():
        folder = (workspace if from_workspace else config_dir()) / folder
    if from_workspace and _inside(folder, _workspace(workspace)):
        raise McpConfigError(
            f"{where}: cwd {cwd!r} is inside the workspace, where the agent can write, so a "
            "command could plant code the server would run; declare the server in config.toml "
            "to start it there"
        )
    return folder


def check_workspace_command(command: str, workspace: Path, where: str) -> None:
    """McpConfigError when a workspace file's server is a program inside the workspace."""
    if os.sep in command and _inside(workspace / Path(command).expanduser(), _workspace(workspace)):
        raise McpConfigError(
            f"{where}: command {command!r} is inside the workspace, where the agent can write; "
            "declare the server in config.toml to run it"
        )


def check_workspace_args(args: Sequence[str], start: Path, workspace: Path, where: str) -> None:
    """McpConfigError when a workspace file's server is given a file or folder inside the
    workspace as an argument (``python server.py``, ``node dist/index.js``, ``--config=x``):
    the server runs unconfined, and the agent can rewrite what it reads. Trust covers the
    ``.mcp.json`` itself, never the files it names."""
    root = _workspace(workspace)
    for arg in args:
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if not value or value.startswith("-"):
            continue
        if "\0" in value:
            continue  # no such path: the server's own business
        candidate = Path(value).expanduser()
        named = candidate if candidate.is_absolute() else start / candidate
        if _inside(named, root):  # existing or not: the agent could make it before a start
            raise McpConfigError(
                f"{where}: argument {arg!r} names {named}, inside the workspace, where the agent "
                "can write; declare the server in config.toml to run it"
            )


def clean_path(value: str, workspace: Path) -> str:
    """``value`` (a PATH-like list) without empty, relative or in-workspace entries."""
    root = _workspace(workspace)
    kept = [
        entry
        for entry in value.split(os.pathsep)
        if entry and os.path.isabs(entry) and not _inside(Path(entry), root)
    ]
    return os.pathsep.join(kept)


def check_workspace_env(env: Mapping[str, str], workspace: Path, where: str) -> None:
    """McpConfigError when a workspace file's ``env`` would load code from the workspace."""
    root = _workspace(workspace)
    for key, value in env.items():
        name = key.upper()
        if name in CODE_OPTIONS:
            raise McpConfigError(
                f"{where}: env {key} is refused in a workspace file (it makes a program run code "
                "of the file's choosing); declare the server in config.toml to set it"
            )
        if name in SEARCH_PATHS:
            for entry in value.split(os.pathsep):
                if entry and (not os.path.isabs(entry) or _inside(Path(entry), root)):
                    raise McpConfigError(
                        f"{where}: env {key} entry {entry!r} is relative or inside the "
                        "workspace, where the agent can write; declare the server in config.toml "
                        "to set it"
                    )


def base_environment(workspace: Path, inherited: Mapping[str, str]) -> dict[str, str]:
    """What every stdio server gets before its own ``env``: the SDK's short list, a cleaned
    PATH, and PYTHONSAFEPATH=1."""
    env = dict(inherited)
    if "PATH" in env:
        env["PATH"] = clean_path(env["PATH"], workspace)
    return {**env, **SAFE_PYTHON}
