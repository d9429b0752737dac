"""README.md and docs/*.md against the code: what they name exists, and what exists is named.

- Every key they name (Ctrl+X, Alt+X, Shift+X, F1-F12) is bound somewhere in the package (a
  key string in its source) or by Textual's App itself.
- Every slash command they name (`/name`) is one the running app offers, and every command the
  running app offers (each of the actions' table, ``ui/actions.py``) is named in them.
- Every key under `[settings]`, `[approval]`, `[profiles.*]` or `[mcp_servers.*]` in a TOML
  example, and every `[settings] NAME` in the text, is a field of that model; every field of
  the Settings model appears in a `[settings]` example (so a setting added without docs fails).
- Every relative link (and image) in README.md, docs/*.md and bench/README.md points at a file
  that exists, and a `#anchor` at a heading of it.

The lists come from the code (the models' fields, the app's own commands), never from here.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest
from pydantic import BaseModel
from textual.app import App

from tui_agent.config.model import AgentCommand, ApprovalConfig, Config, Profile, Settings
from tui_agent.hooks.config import HookConfig
from tui_agent.mcp.config import McpServerConfig
from tui_agent.ui.actions import all_commands
from tui_agent.ui.app import TuiAgentApp
from tui_agent.wiring.host_options import HostOptions

from .ui_app_helpers import SIZE, AppEnv, wait_for

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tui_agent"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _without_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", _without_fences(text))


# -- keys ----------------------------------------------------------------------------------

KEY = re.compile(r"\b(?:ctrl|alt|shift)\+[a-z0-9]+\b", re.I)
FUNCTION_KEY = re.compile(r"\bF(?:[1-9]|1[0-2])\b")


def keys_named(text: str) -> set[str]:
    prose = _without_fences(text)
    found = {m.group(0).lower() for m in KEY.finditer(prose)}
    return found | {m.group(0).lower() for m in FUNCTION_KEY.finditer(prose)}


def keys_in_code() -> set[str]:
    """Every string of the package that could be a key (bindings are "a,b" lists), and the keys
    Textual's App binds by itself (quit, the palette)."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found |= {part.strip().lower() for part in node.value.split(",")}
    for binding in App.BINDINGS:
        key = binding.key if hasattr(binding, "key") else binding[0]
        found |= {part.strip() for part in key.split(",")}
    found.add(App.COMMAND_PALETTE_BINDING)
    return found


@pytest.mark.heavy
def test_every_key_the_docs_name_is_bound_in_the_code() -> None:
    known = keys_in_code()
    missing = {
        f"{path.relative_to(ROOT)}: {key}"
        for path in doc_files()
        for key in keys_named(path.read_text(encoding="utf-8"))
        if key not in known
    }
    assert not missing, sorted(missing)


# -- slash commands ------------------------------------------------------------------------

SLASH = re.compile(r"^/([a-z][a-z0-9-]*)(?: |$)")


def slash_commands_named(text: str) -> set[str]:
    """`/name` and `/name ARGS` in code spans; a span naming a folder at the root of the
    file system (`/tmp`, `/proc`, `/run`) is a path, not a command."""
    names = set()
    for span in _code_spans(text):
        match = SLASH.match(span)
        if match and not os.path.exists("/" + match.group(1)):
            names.add(match.group(1))
    return names


@pytest.fixture
def mcp_configured(env: AppEnv) -> AppEnv:
    """A config with one MCP server (disabled: nothing starts), so the MCP actions are on offer
    as they are for a person who has one."""
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        '[mcp_servers.time]\ncommand = "mcp-server-time"\nenabled = false\n', encoding="utf-8"
    )
    return env


async def _offered_commands(env: AppEnv) -> set[str]:
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(env.workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        names = {command.name for command in all_commands(app) if command.template is None}
        await pilot.press("ctrl+q")
    return names


async def test_slash_commands_in_the_docs_and_in_the_app_are_the_same(
    mcp_configured: AppEnv,
) -> None:
    offered = await _offered_commands(mcp_configured)
    assert {"help", "rewind", "new", "compact"} <= offered  # the app's own list was read
    named: dict[str, set[str]] = {}
    for path in doc_files():
        for name in slash_commands_named(path.read_text(encoding="utf-8")):
            named.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    unknown = {
        f"/{name} in {sorted(where)}" for name, where in named.items() if name not in offered
    }
    assert not unknown, f"named in the docs, not offered by the app: {sorted(unknown)}"
    undocumented = sorted(f"/{name}" for name in offered - named.keys())
    assert not undocumented, f"offered by the app, named in no doc: {undocumented}"


# -- settings ------------------------------------------------------------------------------

TABLE = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\-]+)\s*\]\]?")
KEY_LINE = re.compile(r"^#?\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")


def toml_keys(text: str) -> dict[str, set[str]]:
    """Keys of the TOML examples by the model they belong to: "" (top level, tables included),
    "settings", "approval", "profiles", "mcp_servers", "tools" (a commented-out key counts)."""
    found: dict[str, set[str]] = {}
    for fence in re.findall(r"^```toml\n(.*?)^```", text, flags=re.S | re.M):
        table = ""
        for line in fence.splitlines():
            header = TABLE.match(line)
            if header:
                table = header.group(1).split(".")[0]
                found.setdefault("", set()).add(table)  # a table is a top-level key too
                continue
            key = KEY_LINE.match(line)
            if key:
                found.setdefault(table, set()).add(key.group(1))
    return found


def inline_settings(text: str) -> set[str]:
    return set(re.findall(r"`\[settings\] ([a-z_]+)", _without_fences(text)))


MODELS: dict[str, type[BaseModel]] = {
    "": Config,
    "settings": Settings,
    "approval": ApprovalConfig,
    "profiles": Profile,
    "mcp_servers": McpServerConfig,
    "hooks": HookConfig,
    "agents": AgentCommand,
}


def _fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def documented_keys() -> dict[str, set[str]]:
    merged: dict[str, set[str]] = {}
    for path in doc_files():
        for table, keys in toml_keys(path.read_text(encoding="utf-8")).items():
            merged.setdefault(table, set()).update(keys)
    return merged


def test_every_setting_the_docs_name_is_a_field_of_its_model() -> None:
    wrong = []
    for table, keys in documented_keys().items():
        model = MODELS.get(table)
        if model is None:
            continue  # [[tools]] and its parameters: raw tables, checked by tools/user_defined
        wrong += [f"[{table}] {key}" for key in sorted(keys - _fields(model))]
    for path in doc_files():
        names = inline_settings(path.read_text(encoding="utf-8"))
        wrong += [f"{path.name}: [settings] {name}" for name in sorted(names - _fields(Settings))]
    assert not wrong, f"named in the docs, no such setting: {wrong}"


def test_every_setting_is_documented_in_a_settings_example() -> None:
    documented = documented_keys()
    missing = {
        table: sorted(_fields(model) - documented.get(table, set()))
        for table, model in MODELS.items()
    }
    missing = {table: keys for table, keys in missing.items() if keys}
    assert not missing, f"fields in no TOML example of README.md or docs/*.md: {missing}"


# -- links ---------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _without_fences(path.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, flags=re.M)}


def test_every_relative_link_points_at_a_file_and_heading_that_exist() -> None:
    broken = []
    for path in [*doc_files(), ROOT / "bench" / "README.md"]:
        for target in LINK.findall(_without_fences(path.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)} -> {target}"
            if not linked.exists():
                broken.append(f"{where}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{where}: no such heading")
    assert not broken, broken


def test_readme_is_the_front_door() -> None:
    """Short, and the test command CI runs is written in it exactly."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert f"    {ci}\n" in readme
