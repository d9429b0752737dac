"""Everything a conversation needs besides its screen: config, profile, workspace, session file,
HTTP client, the demo server and the Agent. The app and `tui-agent run` both open one here, so
they behave the same. The app imports this only after its first screen is up."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from ..agent.call_checkpoints import call_checkpoints
from ..agent.call_hooks import hook_summary
from ..agent.calls import hook_context
from ..agent.events import AgentEvent, HookFinished, Notice
from ..agent.loop import Agent
from ..agent.mcp_tools import start_mcp
from ..agent.window_discovery import discover_window
from ..approval.approver import Approver
from ..approval.policy import ApprovalMode, ApprovalPolicy
from ..checkpoints.daily import start_daily_prune
from ..config import (
    Config,
    ResolvedProfile,
    default_config_path,
    load_config,
    resolve_profile,
)
from ..config.resolve import AD_HOC_PROFILE
from ..config.secrets import key_values, workspace_variable_policy
from ..conversation import Message
from ..hooks import HookEvent
from ..logs import add_log_secret
from ..prompting.skills import SkillBook, config_skills
from ..session import Redactor, SessionStore, SessionWriter
from ..session.paths import protected_dirs, sessions_dir
from ..session.records import CompactionRecord, NoteRecord, SubagentRecord
from ..transport.lazy import LazyClient
from .host_options import HostOptions
from .resumed_session import Resumed, as_recorded, resumed_records
from .setup import approval_policy, build_agent, system_prompt, use_workspace_hooks
from .subagents import offer_agents, session_delegation, subagent_turns
from .workspace_choice import host_workspace
from .workspace_content import (
    Instructions,
    WorkspaceContent,
    read_workspace_content,
    trust_content,
)

UNTRUSTED_INSTRUCTIONS = (
    "{name} is not sent to the model: this workspace's own content is not trusted yet"
)

if TYPE_CHECKING:
    from ..demo import DemoServer


@dataclass
class SessionHost:
    """The live state behind the app. ``close()`` must be awaited on the way out."""

    config: Config
    profile: ResolvedProfile
    workspace: Path
    policy: ApprovalPolicy
    agent: Agent
    client: httpx.AsyncClient
    writer: SessionWriter
    notices: list[Notice] = field(default_factory=list)  # to show when the host opens
    history: list[Message] = field(default_factory=list)
    demo: DemoServer | None = None
    redactor: Redactor = field(default_factory=Redactor)
    store: SessionStore | None = None
    created: bool = False  # a new session (not resumed): removed on close if nothing was sent
    tokens: int = 0  # spent by the complete turns already in a resumed session
    mcp: Any = None  # McpServers: the session's MCP servers (mcp/servers.py)
    compactions: list[CompactionRecord] = field(default_factory=list)  # of a resumed session
    subagents: list[SubagentRecord] = field(default_factory=list)  # of a resumed session
    window_task: Any = None  # asyncio.Task[bool]: the server asked for the window (or None)
    # (protocol, base_url) -> the models that server offers, as the window's question found
    server_models: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    content: WorkspaceContent | None = None  # what the workspace brings of its own, as opened
    trust_workspace: bool = False  # --trust-workspace: all of it used, for this run only
    skills: SkillBook | None = None  # the skills load_skill offers (None: no skills at all)
    instructions: Instructions | None = None  # the workspace's AGENTS.md, when it is sent
    delegation: Any = None  # Delegation: the agents the task tool starts (None: no task tool)
    closed: bool = False  # close() ran: a second call does nothing

    def untrusted_content(self) -> WorkspaceContent:
        """What the workspace brings now that is neither trusted nor used (none with
        --trust-workspace): read again, so the question shows the files as they are."""
        if self.trust_workspace:
            return WorkspaceContent(self.workspace)
        return read_workspace_content(self.workspace).untrusted()

    def trust_content(self, content: WorkspaceContent) -> None:
        """The person trusted ``content`` (as shown): remember it, and send its instructions
        and offer its skills from the next request on. (Its servers are started by the caller;
        its templates are offered from now on.)"""
        trust_content(content)
        if content.hooks is not None and content.hooks.hooks:
            use_workspace_hooks(self.agent.calls, content.hooks)
        if content.agents and self.delegation is not None:
            offer_agents(self.agent, self.delegation, content.agents)
        new_skills = bool(content.skills) and self.skills is not None
        if new_skills and self.skills is not None:
            self.skills.add(content.skills)
        if content.instructions is None and not new_skills:
            return
        if content.instructions is not None:
            self.instructions = content.instructions
        skills = self.skills.skills if self.skills is not None else ()
        prompt = system_prompt(self.profile, self.config, self.instructions, skills)
        self.agent.request = dataclasses.replace(self.agent.request, system=prompt.text)
        if content.instructions is not None:
            note = f"using {content.instructions.path.name} from the workspace as instructions"
            self.writer.append(NoteRecord(kind="agents_file", text=note))

    def remember(self, target: str, line: str) -> str:
        """Save ``line`` (the person's ``# ...`` message they confirmed) in the target's
        AGENTS.md and send it from the next request on. Returns what was done; raises
        ``memory.MemoryError_``."""
        from .memory import save_line, workspace_instructions

        path = save_line(self.workspace, target, line, self.trust_workspace)
        self.instructions = workspace_instructions(self.workspace, self.trust_workspace)
        skills = self.skills.skills if self.skills is not None else ()
        prompt = system_prompt(self.profile, self.config, self.instructions, skills)
        self.agent.request = dataclasses.replace(self.agent.request, system=prompt.text)
        done = f"saved to {path}"
        if target == "workspace" and self.instructions is None:
            done += " (not sent: this workspace's AGENTS.md is not trusted yet; /trust-workspace)"
        self.writer.append(NoteRecord(kind="memory", text=done))
        return done

    def edited_memory_begins(self) -> bool:
        """Before /memory opens the AGENTS.md files: whether the workspace's is sent now, or
        there is none yet (then what the person writes in their editor is theirs)."""
        if self.instructions is not None:
            return True
        return read_workspace_content(self.workspace).instructions is None

    def edited_memory_ends(self, was_sent: bool) -> None:
        """After the person edited the AGENTS.md files themselves: what they wrote is sent
        from the next request on (the workspace's stays trusted when it was sent)."""
        from .memory import workspace_instructions

        now = read_workspace_content(self.workspace).instructions
        if was_sent and now is not None and not self.trust_workspace:
            trust_content(WorkspaceContent(self.workspace, now))
        self.instructions = workspace_instructions(self.workspace, self.trust_workspace)
        skills = self.skills.skills if self.skills is not None else ()
        prompt = system_prompt(self.profile, self.config, self.instructions, skills)
        self.agent.request = dataclasses.replace(self.agent.request, system=prompt.text)

    async def switch_profile(self, name: str | None = None, model: str | None = None) -> str:
        """Use another profile and/or model from the next turn on; the conversation stays.

        Raises ConfigError for the user. Returns a line saying what is used now.
        """
        from ..config import ConfigError, resolve_profile
        from ..logs import add_log_secret
        from ..session.records import NoteRecord
        from .setup import request_settings

        if name is None:
            if self.profile.is_demo:
                raise ConfigError("the offline demo model has one model; pick another profile")
            profile = dataclasses.replace(self.profile, model=model or self.profile.model)
        else:
            profile = resolve_profile(self.config, profile=name, model=model)
        if profile.is_demo:
            if self.demo is None:
                from ..demo import DemoServer

                self.demo = DemoServer()
                await self.demo.start()
            profile = dataclasses.replace(profile, base_url=self.demo.base_url)
        add_log_secret(profile.api_key)
        agent = self.agent
        agent.request = request_settings(profile, agent.request.system or "")
        agent.protocol = profile.protocol
        agent.provider = profile.name
        self.profile = profile
        self._rediscover_window(profile)
        line = (
            f"from the next turn: profile {profile.name} "
            f"({profile.protocol}, model {profile.model})"
        )
        self.writer.append(NoteRecord(kind="profile", text=line))
        return line

    def set_effort(self, effort: str | None) -> str:
        """Ask the model for this reasoning effort (None: its own default) from the next turn
        on. Returns a line saying what is used now."""
        from ..session.records import NoteRecord

        self.profile = dataclasses.replace(self.profile, effort=effort)
        self.agent.request = dataclasses.replace(self.agent.request, effort=effort)
        line = f"from the next turn: reasoning effort {effort or 'the model default'}"
        self.writer.append(NoteRecord(kind="effort", text=line))
        return line

    def _rediscover_window(self, profile: ResolvedProfile) -> None:
        from ..agent.context_keeper import context_settings
        from ..agent.window_discovery import discover_window

        if self.window_task is not None:
            self.window_task.cancel()
        self.agent.context.window = context_settings(profile, self.config).window
        self.window_task = discover_window(self.agent, profile, self.client, self.server_models)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.window_task is not None:
            self.window_task.cancel()
        if (jobs := self.agent.calls.context.jobs) is not None:
            await jobs.stop_all()  # background commands end with their session
        if self.mcp is not None:
            with contextlib.suppress(Exception):
                await self.mcp.stop()
        with contextlib.suppress(Exception):  # recorded; nobody is left to show it to
            await self.agent.moment_hooks(HookEvent.SESSION_END, {"reason": "exit"}, [])
        with contextlib.suppress(Exception):
            self.writer.close()
        if self.created and self.store is not None and not self.agent.sent_anything:
            # Opening the app and leaving without a word must not litter the session list.
            with contextlib.suppress(Exception):
                self.store.delete(self.writer.session_id)
        await self.client.aclose()
        if self.demo is not None:
            with contextlib.suppress(Exception):
                await self.demo.stop()


async def open_host(
    options: HostOptions,
    approver: Approver,
    *,
    mode: ApprovalMode | None = None,
    wait_for_tools: bool = False,
    retry_on_overflow: bool = False,
) -> SessionHost:
    """Resolve config and profile, open (or resume) the session, and build the Agent.

    ``mode`` overrides the config's approval mode. MCP servers start in the background; with
    ``wait_for_tools`` (headless run) this waits until each is ready or failed, up to its
    startup_timeout. Raises ConfigError or SessionError with a message for the user; ``close()``
    the host when done.
    """
    config = load_config()
    start_daily_prune(config.settings.checkpoint_keep_days)  # a thread: never waited for
    notices: list[Notice] = []
    options = as_recorded(config, options, notices)
    profile = resolve_profile(
        config,
        profile=options.profile,
        protocol=options.protocol,
        model=options.model,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
    )
    if options.effort:
        profile = dataclasses.replace(profile, effort=options.effort)
    workspace, unprotected = host_workspace(config, options, profile, notices)
    secrets = [key for key in (profile.api_key, *key_values(config)) if key]
    for secret in secrets:
        add_log_secret(secret)
    demo: DemoServer | None = None
    if profile.is_demo:
        from ..demo import DEMO_NOTICE, DemoServer

        demo = DemoServer()
        await demo.start()
        profile = dataclasses.replace(profile, base_url=demo.base_url)
        notices.insert(0, Notice(DEMO_NOTICE))
    redactor = Redactor(secrets)
    store = SessionStore(sessions_dir(), redactor)
    was = Resumed()  # what a resumed session's records bring back
    resume = options.resume
    if options.continue_last and resume is None:
        resume = store.latest_for_workspace(str(workspace))
    if resume is not None:
        try:
            loaded, writer = store.resume(resume)
        except BaseException:
            if demo is not None:
                await demo.stop()
            raise
        was = resumed_records(loaded, writer, workspace, profile, notices)
    else:
        writer = store.create(
            profile=profile.name,
            protocol=profile.protocol,
            model=profile.model,
            workspace=str(workspace),
            # An ad-hoc profile lives on the command line only: keep where it talked.
            base_url=profile.base_url if profile.name == AD_HOC_PROFILE else None,
            api_key_env=profile.api_key_env if profile.name == AD_HOC_PROFILE else None,
        )
    if not os.access(workspace, os.R_OK | os.X_OK):
        notices.append(
            Notice(
                f"the workspace {workspace} cannot be read: tools that use it will fail", "warning"
            )
        )
    content = read_workspace_content(workspace)
    notices += [Notice(why, "warning") for why in content.refused]
    instructions = content.instructions
    if instructions is not None and not (
        options.trust_workspace or content.trusted("instructions")
    ):
        notices.append(Notice(UNTRUSTED_INSTRUCTIONS.format(name=instructions.path.name)))
        instructions = None
    skills = _skill_book(content, options.trust_workspace, notices)
    prompt = system_prompt(profile, config, instructions, skills.skills if skills else ())
    if prompt.agents_file is not None:
        note = f"using {prompt.agents_file.name} from the workspace as instructions"
        writer.append(NoteRecord(kind="agents_file", text=note))
        notices.append(Notice(note))
    if writer.degraded:
        notices.append(Notice(writer.degraded, "warning"))
    policy = approval_policy(config, mode)
    # Its transport (httpcore, the TLS context) is made by the first request or the app's
    # prepare_transport() after the session opens, not here (transport/lazy.py).
    client = LazyClient()
    delegation = session_delegation(
        config, content, options.trust_workspace, notices, profile.is_demo
    )
    agent = build_agent(
        profile=profile,
        config=config,
        workspace=workspace,
        protected=protected_dirs(),
        unprotected=unprotected,
        client=client,
        approver=approver,
        policy=policy,
        writer=writer,
        history=was.kept(),
        system=prompt.text,
        config_path=default_config_path(),
        resumed=was.context,
        retry_on_overflow=retry_on_overflow,
        skills=skills,
        delegation=delegation,
    )
    # The session's cost so far, its subagents' turns too: the status line and max_cost go on.
    for turn in [*was.turns, *subagent_turns(was.subagents)]:
        agent.cost.add(turn.protocol, turn.model, turn.usage)
    for done in was.compactions:  # and its compactions' summary requests
        agent.cost.add(done.protocol, done.model, done.usage, compaction=True)
    for failed in was.failed_compactions:  # answered, not applied: billed all the same
        agent.cost.add(failed.protocol, failed.model, failed.usage, compaction=True)
    server_models: dict[tuple[str, str], tuple[str, ...]] = {}
    window_task = discover_window(agent, profile, client, server_models)
    mcp = await start_mcp(
        agent,
        config,
        workspace,
        notices,
        wait=wait_for_tools,
        policy=workspace_variable_policy(config, profile.api_key_env),
        redactor=redactor,
        trust_workspace=options.trust_workspace,
    )
    hooks = content.hooks
    if hooks is not None and hooks.hooks and (options.trust_workspace or content.trusted("hooks")):
        use_workspace_hooks(agent.calls, hooks)
    await session_start_hooks(agent, "resume" if resume is not None else "startup", notices)
    agent.calls.checkpoints = call_checkpoints(
        workspace, agent.calls.recorder, config.settings.checkpoint_limits()
    )
    return SessionHost(
        config=config,
        profile=profile,
        workspace=workspace,
        policy=policy,
        agent=agent,
        client=client,
        writer=writer,
        notices=notices,
        history=was.history,
        demo=demo,
        redactor=redactor,
        store=store,
        created=resume is None,
        tokens=was.tokens,
        mcp=mcp,
        compactions=was.compactions,
        subagents=was.subagents,
        window_task=window_task,
        server_models=server_models,
        content=content,
        trust_workspace=options.trust_workspace,
        skills=skills,
        instructions=instructions,
        delegation=delegation,
    )


async def session_start_hooks(agent: Agent, source: str, notices: list[Notice]) -> None:
    """The SessionStart hooks: what they print goes to the model with the first message, a
    verdict other than ``ok`` is a notice (each is recorded)."""
    told: list[AgentEvent] = []
    outcomes = await agent.moment_hooks(HookEvent.SESSION_START, {"source": source}, told)
    for event in told:
        if isinstance(event, HookFinished) and event.verdict != "ok":
            notices.append(Notice(hook_summary(event), "warning"))
    if context := hook_context(outcomes).strip():
        agent.notes_for_model.append(context)


def _skill_book(
    content: WorkspaceContent, trust_workspace: bool, notices: list[Notice]
) -> SkillBook | None:
    """The config folder's skills and, once trusted (or with --trust-workspace), the
    workspace's; None when neither folder holds one (no load_skill tool then). A skill folder
    that cannot be used is a notice."""
    own = config_skills()
    notices += [Notice(why, "warning") for why in (*own.problems, *content.problems)]
    if not own.skills and not content.skills:
        return None
    book = SkillBook(own.skills, (*own.problems, *content.problems))
    if content.skills and (trust_workspace or content.trusted("skills")):
        book.add(content.skills)
    return book
