"""One table of actions (``tui_agent/ui/actions.py``): the app's key bindings, its palette entries
and its slash commands all come from it, nothing declares one elsewhere, and what may not run
now (the agent busy, the session not open) is refused once, by the table, with a notice.

The source checks read the package (AST); the rest runs the real app against the fake provider.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest
from textual.binding import Binding

from tui_agent.ui import actions
from tui_agent.ui.actions import ACTIONS, BY_NAME, TEXTUAL_OWN, all_commands, key_bindings
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.status_bar import StatusBar

from .fake_provider import FakeProvider, StallBeforeTerminal
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    running,
    send,
    wait_for,
    wait_idle_agent,
)

PROTOCOL = "openai-chat"
UI = Path(actions.__file__).parent

# Methods of the app named action_*: Textual's own overrides, the table's one entry, and the
# stop the Ctrl+C helper shares with Esc.
APP_ACTION_METHODS = {"action_act", "action_quit", "action_focus_next", "action_stop"}


def _calls_to(name: str) -> list[str]:
    """Where in ui/ a ``name(...)`` is constructed, as "module:line"."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called == name:
                found.append(f"{path.relative_to(UI)}:{node.lineno}")
    return found


# A feature module may declare its rows (module-level names); the table lists every one.
_ROWS_ELSEWHERE = {
    "session_actions.py": ("MODEL", "EFFORT", "PROFILE", "SANDBOX", "NETWORK", "MCP_RESTART"),
    "jobs_view.py": ("JOBS",),
    "cost_view.py": ("COST",),
}


def _rows_of(module: str) -> list[object]:
    """The rows ``module`` declares, each a module-level ``NAME = Action(...)``."""
    found = []
    tree = ast.parse((UI / module).read_text(encoding="utf-8"))
    loaded = importlib.import_module(f"tui_agent.ui.{module.removesuffix('.py')}")
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == "Action":
                (target,) = node.targets
                assert isinstance(target, ast.Name) and target.id in _ROWS_ELSEWHERE[module]
                found.append(getattr(loaded, target.id))
    return found


def test_the_apps_bindings_are_the_tables() -> None:
    own = [b for b in TuiAgentApp.BINDINGS if isinstance(b, Binding)]
    assert own == key_bindings() and len(own) == len(TuiAgentApp.BINDINGS)
    for binding in own:
        name = binding.action.removeprefix("act('").removesuffix("')")
        assert BY_NAME[name].key is not None and BY_NAME[name].key.key == binding.key


def test_nothing_outside_the_table_declares_an_action() -> None:
    """A palette entry or a slash command built anywhere else in ui/ fails here, and so does an
    action the table does not list."""
    assert all(where.startswith("actions.py:") for where in _calls_to("SystemCommand")), _calls_to(
        "SystemCommand"
    )
    assert all(where.startswith("actions.py:") for where in _calls_to("SlashCommand")), _calls_to(
        "SlashCommand"
    )
    rows = [where for where in _calls_to("Action") if not where.startswith("actions.py:")]
    assert {where.partition(":")[0] for where in rows} == set(_ROWS_ELSEWHERE), rows
    for module, names in _ROWS_ELSEWHERE.items():
        assert all(row in ACTIONS for row in _rows_of(module)), module  # the table lists each
        assert len(_rows_of(module)) == len(names), module
        assert sum(where.startswith(f"{module}:") for where in rows) == len(names), rows
    app_source = (UI / "app.py").read_text(encoding="utf-8")
    assert "Binding(" not in app_source
    methods = {
        node.name
        for node in ast.walk(ast.parse(app_source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("action_")
    }
    assert methods == APP_ACTION_METHODS


def test_each_name_and_key_is_declared_once() -> None:
    names = [a.name for a in ACTIONS]
    keys = [a.key.key for a in ACTIONS if a.key is not None]
    titles = [e.title for a in ACTIONS for e in a.palette]
    assert len(set(names)) == len(names)
    assert len(set(keys)) == len(keys)
    assert len(set(titles)) == len(titles) and not set(titles) & TEXTUAL_OWN


async def test_the_running_apps_palette_and_slash_list_are_the_tables(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, _):
            commands = list(app.get_system_commands(app.screen))
            for command in commands:
                if command.title in TEXTUAL_OWN:
                    continue
                callback = command.callback
                assert isinstance(callback, functools.partial), command.title
                assert callback.func is actions.perform and callback.args[1] in ACTIONS
            titles = {c.title for c in commands}
            assert {"Calls panel", "Sandbox: read-only", "Profile: demo", "Quit"} <= titles
            slash = {c.name for c in all_commands(app) if c.template is None}
            assert slash == {a.name for a in ACTIONS if a.slash} - {"mcp-restart"}  # no MCP


@pytest.mark.heavy
async def test_the_deliberate_names_run_what_the_palette_runs(env: AppEnv) -> None:
    """/sandbox MODE, /network, /sandbox alone: the palette's sandbox entries by short names."""
    from tui_agent.ui.screens.sandbox_report import SandboxReport

    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.sandbox == "workspace-write", "the status")
            await send(pilot, "/sandbox read-only")
            await wait_for(pilot, lambda: status.sandbox == "read-only", "read-only")
            await send(pilot, "/network")
            await wait_for(pilot, lambda: status.sandbox == "read-only +net", "the network")
            await send(pilot, "/network off")
            await wait_for(pilot, lambda: status.sandbox == "read-only", "no network")
            await send(pilot, "/sandbox")
            await wait_for(pilot, lambda: isinstance(app.screen, SandboxReport), "the report")
        assert server.requests == []


async def test_a_key_the_agent_must_be_idle_for_says_so(env: AppEnv) -> None:
    """Ctrl+R while the agent works: refused with the table's one notice (it was silent)."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, "Slow.", faults=StallBeforeTerminal()))
        async with running(server, env) as (app, pilot):
            await send(pilot, "hello")
            await wait_for(pilot, lambda: app.busy, "the agent at work")
            await pilot.press("ctrl+r")
            toasts = [str(n.message) for n in app._notifications]
            assert "the agent is busy: Esc stops it first" in toasts
            server.release()
            await wait_idle_agent(pilot)
        assert len(server.requests) == 1


async def test_a_command_that_does_not_apply_says_why_not_unknown(env: AppEnv) -> None:
    """/mcp-restart without MCP servers: not offered, and typed anyway it says why (it said
    "unknown command"); the text stays in the box and nothing is sent."""
    from tui_agent.ui.widgets.prompt_input import PromptInput

    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await send(pilot, "/mcp-restart time")
            toasts = [str(n.message) for n in app._notifications]
            assert any(
                t.startswith("/mcp-restart does not apply now: this session has no MCP servers")
                for t in toasts
            ), toasts
            assert not any("unknown command" in t for t in toasts), toasts
            assert app.query_one(PromptInput).text == "/mcp-restart time"
            app.query_one(PromptInput).clear()
            await send(pilot, "/nosuch")
            toasts = [str(n.message) for n in app._notifications]
            assert any("unknown command '/nosuch'" in t for t in toasts), toasts
        assert server.requests == []
