"""The actions that change the session's settings: its model, reasoning effort, profile,
sandbox, network and MCP servers. Their rows of the actions' table (``actions.py`` lists them in
its order) and their palette entries, which depend on the session (each row's ``entries``)."""

from __future__ import annotations

from collections.abc import Iterator

from . import action_runners as run
from .shell import Action, Entry, Shell

STILL_OPENING = "the session is still opening: try again in a moment"


def session_open(app: Shell) -> bool:
    return app.host is not None


def has_mcp(app: Shell) -> bool:
    return app.host is not None and app.host.mcp is not None


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


# -- the rows ------------------------------------------------------------------------------

MODEL = Action(
    "model",
    "use another model from the next turn",
    run.model,
    palette=(Entry("Model: choose", "Use another model of this profile from the next turn"),),
    entries=model_entries,
    usage="[MODEL]",
    complete=run.models,
    needs_session=True,
)


EFFORT = Action(
    "effort",
    "the reasoning effort asked of the model from the next turn: low, medium, high",
    run.effort,
    entries=effort_entries,
    usage="[LEVEL]",
    complete=run.efforts,
    needs_session=True,
)


PROFILE = Action(
    "profile",
    "use another profile from the next turn",
    run.profile,
    entries=profile_entries,
    usage="NAME",
    complete=run.profiles,
    while_busy=False,
    needs_session=True,
)


SANDBOX = Action(
    "sandbox",
    "this session's sandbox: workspace-write, read-only, off; alone: what is protected",
    run.sandbox,
    entries=sandbox_entries,
    palette=(
        Entry(
            "Sandbox: what is protected",
            "Which protections this session's commands get on this machine, and why one is missing",
        ),
    ),
    usage="[MODE]",
    complete=run.sandbox_modes,
    needs_session=True,
    offered=session_open,
    unavailable=STILL_OPENING,
)


NETWORK = Action(
    "network",
    "let confined commands reach the network (on) or not (off)",
    run.network,
    entries=network_entries,
    usage="[on|off]",
    complete=run.network_choices,
    needs_session=True,
    offered=session_open,
    unavailable=STILL_OPENING,
)


MCP_RESTART = Action(
    "mcp-restart",
    "stop and start every MCP server, or the one named",
    run.mcp_restart,
    entries=mcp_entries,
    usage="[NAME]",
    complete=run.mcp_servers,
    needs_session=True,
    offered=has_mcp,
    unavailable="this session has no MCP servers (config.toml's [mcp_servers], or a "
    "trusted .mcp.json)",
)
