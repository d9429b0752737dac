"""Put an Agent together from a resolved profile and the config: the one place both the
headless `run` command and the app use, so they behave the same."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx

from ..agent.call_hooks import hook_place
from ..agent.calls import CallRunner
from ..agent.context_keeper import ContextKeeper, context_settings
from ..agent.cost_meter import CostMeter
from ..agent.loop import Agent, LoopSettings
from ..agent.recorder import RecordWriter, SessionRecorder
from ..agent.subagent import Delegation, task_tool
from ..approval.approver import Approver
from ..approval.policy import ApprovalMode, ApprovalPolicy
from ..approval.rules import SessionRules
from ..config import Config, ResolvedProfile
from ..config.prices import load_prices, prices_path
from ..context.resume import ResumedContext
from ..conversation import Message
from ..hooks import DeclaredHook, SessionHooks
from ..hooks.workspace_file import WorkspaceHooks
from ..prompting.skill_tool import load_skill_tool
from ..prompting.skills import Skill, SkillBook, skills_prompt
from ..providers import RequestSettings, ToolSchema
from ..tools.jobs import JobTable
from ..tools.registry import ToolRegistry, builtin_registry
from ..tools.spec import ToolContext
from ..tools.user_defined import user_tool_specs
from ..transport import RetryPolicy, StreamLimits
from .sandbox_choice import session_policy
from .workspace_content import Instructions

BUILTIN_SYSTEM_PROMPT = (
    "You are a coding agent working in the user's workspace through tools. Use the tools to "
    "look before you change anything, keep changes small, and say what you did."
)


@dataclass(frozen=True, slots=True)
class SystemPrompt:
    text: str
    agents_file: Path | None  # the workspace's AGENTS.md, when it was added


def system_prompt(
    profile: ResolvedProfile,
    config: Config,
    instructions: Instructions | None = None,
    skills: tuple[Skill, ...] = (),
) -> SystemPrompt:
    """The profile's or config's prompt (or ours), then the names and descriptions of the
    skills on offer, then the person's own AGENTS.md (config folder), then the workspace's
    trusted instructions (AGENTS.md, read by
    ``workspace_content.py``) when given."""
    base = profile.system_prompt or config.settings.system_prompt or BUILTIN_SYSTEM_PROMPT
    if skills:
        base = f"{base}\n\n{skills_prompt(skills)}"
    mine = _user_instructions()
    if mine:
        base = f"{base}\n\n# AGENTS.md (the person's own)\n\n{mine}"
    if instructions is None:
        return SystemPrompt(base, None)
    name = instructions.path.name
    text = f"{base}\n\n# {name} (from the workspace)\n\n{instructions.text}"
    return SystemPrompt(text, instructions.path)


def _user_instructions() -> str:
    """The person's own AGENTS.md in the config folder (always sent), or ""."""
    from ..session.paths import config_dir
    from .workspace_content import AGENTS_FILE, AGENTS_FILE_LIMIT

    try:
        with open(config_dir() / AGENTS_FILE, "rb") as handle:
            return handle.read(AGENTS_FILE_LIMIT).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def tool_registry(
    config: Config, skills: SkillBook | None = None, delegation: Delegation | None = None
) -> ToolRegistry:
    """The built-in tools, load_skill when the session has a skill book, the task tool when
    it starts subagents, the user's tools."""
    extra = [load_skill_tool(skills)] if skills is not None else []
    if delegation is not None and delegation.offers_task:
        extra.append(task_tool(delegation))
    return builtin_registry([*extra, *user_tool_specs(config.tools)])


def approval_policy(config: Config, mode: ApprovalMode | None = None) -> ApprovalPolicy:
    return ApprovalPolicy(mode or config.approval.mode, SessionRules(config.approval.rules()))


def request_settings(profile: ResolvedProfile, system: str) -> RequestSettings:
    """What every request of this profile carries."""
    assert profile.base_url is not None, "the demo profile gets its base_url from the demo server"
    return RequestSettings(
        model=profile.model,
        base_url=profile.base_url,
        api_key=profile.api_key,
        system=system,
        max_tokens=profile.max_tokens,
        options=dict(profile.options),
        stateful=profile.stateful,
        effort=profile.effort,
        server_tools=profile.server_tools,
    )


def config_hooks(config: Config, context: ToolContext, writer: RecordWriter | None) -> SessionHooks:
    """The hooks of the person's config.toml, for this session (a trusted workspace's are added
    by ``use_workspace_hooks``)."""
    declared = [DeclaredHook(hook, "config", "config.toml") for hook in config.hooks]
    hooks = SessionHooks(declared, hook_place(context), getattr(writer, "session_id", ""))
    path = getattr(writer, "path", None)
    hooks.transcript_path = str(path) if path is not None else ""
    return hooks


def use_workspace_hooks(calls: CallRunner, workspace: WorkspaceHooks) -> None:
    """Run the hooks of a workspace's hooks.toml from now on, after the person's own: only once
    the person trusted that file's content (the caller's to check)."""
    if calls.hooks is None:
        calls.hooks = SessionHooks([], hook_place(calls.context))
    mine = [hook for hook in calls.hooks.declared if hook.source == "config"]
    calls.hooks.declared = (*mine, *workspace.hooks)


def build_agent(
    *,
    profile: ResolvedProfile,
    config: Config,
    workspace: Path,
    protected: tuple[Path, ...],
    client: httpx.AsyncClient,
    approver: Approver,
    policy: ApprovalPolicy,
    writer: RecordWriter | None,
    history: list[Message] | None = None,
    system: str | None = None,
    config_path: Path | None = None,
    resumed: ResumedContext | None = None,
    retry_on_overflow: bool = False,
    unprotected: tuple[Path, ...] = (),
    skills: SkillBook | None = None,
    delegation: Delegation | None = None,
) -> Agent:
    """``config_path``: where "saved to config" approval rules are written (None: nowhere).
    ``skills``: the book load_skill reads (None: no load_skill tool). ``delegation``: the
    agents the task tool starts (None: no task tool)."""
    registry = tool_registry(config, skills, delegation)
    settings = config.settings
    secrets = (profile.api_key,) if profile.api_key else ()
    context = ToolContext(
        workspace=workspace,
        protected=protected,
        unprotected=unprotected,
        secret_values=secrets,
        sandbox=session_policy(config, profile.name),
        jobs=JobTable(),
    )
    recorder = SessionRecorder(writer)
    calls = CallRunner(
        registry=registry,
        context=context,
        policy=policy,
        approver=approver,
        recorder=recorder,
        output_cap=settings.tool_output_cap,
        max_argument_bytes=LoopSettings().max_argument_bytes,
        config_path=config_path,
    )
    calls.hooks = config_hooks(config, context, writer)
    prompt = system if system is not None else system_prompt(profile, config).text
    request = request_settings(profile, prompt)
    limits = StreamLimits(
        idle_timeout_s=settings.idle_timeout,
        turn_deadline_s=settings.turn_deadline,
        max_event_bytes=settings.max_event_bytes,
        max_turn_events=settings.max_turn_events,
        max_turn_bytes=settings.max_turn_bytes,
        retry=RetryPolicy(
            max_retries=settings.max_retries,
            max_delay_s=settings.retry_max_wait,
            max_retry_after_s=settings.retry_after_max,
        ),
    )
    tools = [
        ToolSchema(name, description, schema) for name, description, schema in registry.schemas()
    ]
    agent = Agent(
        protocol=profile.protocol,
        provider=profile.name,
        request=request,
        client=client,
        calls=calls,
        tools=tools,
        recorder=recorder,
        settings=LoopSettings(
            max_auto_steps=settings.max_auto_steps,
            limits=limits,
        ),
        history=history,
        context=ContextKeeper(context_settings(profile, config, retry_on_overflow), resumed),
    )
    prices = load_prices(prices_path(config_path) if config_path is not None else None)
    agent.cost = CostMeter(prices, settings.max_cost)
    if delegation is not None:
        delegation.bind(agent)
    return agent
