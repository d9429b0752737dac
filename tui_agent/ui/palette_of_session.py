"""The palette entries that depend on the session (its profiles, models, effort, sandbox,
network and MCP servers): each action's ``entries`` in the actions' table (actions.py)."""

from __future__ import annotations

from collections.abc import Iterator

from . import action_runners as run
from .shell import Entry, Shell


def profile_entries(app: Shell) -> Iterator[Entry]:
    if app.host is None:
        return
    for name in [*app.host.config.profiles, "demo"]:
        yield Entry(f"Profile: {name}", f"Use the {name} profile from the next turn", name)


def model_entries(app: Shell) -> Iterator[Entry]:
    if app.host is None or app.host.profile.is_demo:
        return
    for model, what in run.model_list(app)[1:]:  # the first is the model in use
        yield Entry(f"Model: {model}", f"Use {model} from the next turn ({what})", model)


def effort_entries(app: Shell) -> Iterator[Entry]:
    if app.host is None:
        return
    for level in ("low", "medium", "high", "default"):
        if level != (app.host.profile.effort or "default"):
            yield Entry(
                f"Reasoning effort: {level}",
                f"Ask the model for {level} effort from the next turn",
                level,
            )


def sandbox_entries(app: Shell) -> Iterator[Entry]:
    from ..sandbox.policy import SandboxMode

    what = {
        SandboxMode.WORKSPACE_WRITE: "confined: writes only in the workspace",
        SandboxMode.READ_ONLY: "confined: no writes (a private temporary folder aside)",
        SandboxMode.OFF: "UNCONFINED, with all your rights",
    }
    for mode in SandboxMode:
        yield Entry(
            f"Sandbox: {mode.value}", f"Run this session's commands {what[mode]}", mode.value
        )


def network_entries(app: Shell) -> Iterator[Entry]:
    if app.host is None:
        return
    if app.host.agent.calls.context.sandbox.network:
        yield Entry("Sandbox: network off", "Cut confined commands off the network", "off")
    else:
        yield Entry("Sandbox: network on", "Let confined commands reach the network", "on")


def mcp_entries(app: Shell) -> Iterator[Entry]:
    servers = app.host.mcp if app.host is not None else None
    if servers is None:
        return
    yield Entry("MCP: restart all servers", "Stop and start every MCP server")
    for name in servers.connections:
        yield Entry(f"MCP: restart {name}", f"Stop and start the MCP server {name}", name)
