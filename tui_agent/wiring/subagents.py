"""The agents a session's task tool starts: the built-in explore, the config folder's, and the
workspace's once trusted (``workspace_content.py``); and where one naming a profile talks."""

from __future__ import annotations

from ..agent.context_keeper import context_settings
from ..agent.events import Notice
from ..agent.loop import Agent
from ..agent.subagent import Delegation, ProfileTarget, ResolveProfile
from ..config import Config, ConfigError, resolve_profile
from ..prompting.agents import AgentDefinition, agent_book, config_agents
from ..providers import ToolSchema
from ..session.records import AssistantRecord, SubagentRecord
from .workspace_content import WorkspaceContent


def session_delegation(
    config: Config,
    content: WorkspaceContent,
    trust_workspace: bool,
    notices: list[Notice],
    demo: bool = False,
) -> Delegation | None:
    """The session's delegation (None with ``subagent_depth = 0``, or for the offline demo
    model, which never delegates: no task tool). A config agent file that cannot be used is a
    notice (the workspace's are among its problems)."""
    if config.settings.subagent_depth < 1 or demo:
        return None
    own = config_agents()
    notices += [Notice(why, "warning") for why in own.problems]
    trusted = trust_workspace or content.trusted("agents")
    book = agent_book(own, content.agents if trusted else ())
    return Delegation(book, config.settings.subagent_depth, 0, profile_resolver(config))


def profile_resolver(config: Config) -> ResolveProfile:
    """Where a subagent whose definition names a profile of config.toml talks (never the
    demo: it lives only while its server runs)."""
    from .setup import request_settings

    def resolve(name: str) -> ProfileTarget:
        try:
            profile = resolve_profile(config, profile=name)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        if profile.is_demo or profile.base_url is None:
            raise ValueError(f"profile {name!r} has no server of its own")
        window = context_settings(profile, config).window
        return ProfileTarget(profile.protocol, profile.name, request_settings(profile, ""), window)

    return resolve


def subagent_turns(records: list[SubagentRecord]) -> list[AssistantRecord]:
    """The complete turns of a session's subagents (theirs' too, at any depth)."""
    turns = []
    for record in records:
        inner: object = record.record
        while isinstance(inner, SubagentRecord):
            inner = inner.record
        if isinstance(inner, AssistantRecord):
            turns.append(inner)
    return turns


def offer_agents(agent: Agent, delegation: Delegation, more: tuple[AgentDefinition, ...]) -> None:
    """The person trusted the workspace's agents: the task tool lists them from the next
    request on (its description is the book's agents whenever it is asked)."""
    delegation.book.add(more)
    agent.tools = [ToolSchema(n, d, s) for n, d, s in agent.calls.registry.schemas()]
