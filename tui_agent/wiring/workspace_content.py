"""What a workspace brings of its own and the person must trust before any of it is used: its
instructions (``AGENTS.md``, sent to the model with every request), its prompt templates
(``.tui-agent/commands``), its MCP servers (``.mcp.json``), its hooks
(``.tui-agent/hooks.toml``: a workspace must never run a hook nobody trusted) and its skills
(``.tui-agent/skills``: their names go into the system prompt, their bodies to the model) and its
agents (``.tui-agent/agents``: the subagents the task tool may start, with their prompts and tools).

The app asks once, one question listing every part not trusted as it is now (``untrusted``);
until then ``AGENTS.md`` is not sent, no template, skill or agent is offered, no server starts
and no hook runs. Trust is kept per workspace and per part by the digest of its content
(``workspace_trust.py``): a changed part is asked about again. A part whose file or folder
leads outside the workspace (a symlink) is refused, trusted or not (``refused`` says why).
``tui-agent run`` never asks: it uses only what was trusted, or everything with
``--trust-workspace``.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from ..hooks.workspace_file import FILE_NAME as HOOKS_FILE
from ..hooks.workspace_file import WorkspaceHooks, WorkspaceHooksError, read_workspace_hooks
from ..mcp.config import McpConfigError
from ..mcp.workspace_file import FILE_NAME, VariablePolicy, WorkspaceServers, read_workspace_servers
from ..prompting.agents import AgentDefinition, agents_digest, describe_agents, workspace_agents
from ..prompting.skills import Skill, describe_skills, skills_digest, workspace_skills
from ..prompting.templates import (
    PromptTemplate,
    describe_templates,
    templates_digest,
    workspace_templates,
)
from ..workspace_trust import inside_workspace, is_trusted, trust

AGENTS_FILE = "AGENTS.md"
AGENTS_FILE_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class Instructions:
    """The workspace's AGENTS.md as read (at most ``AGENTS_FILE_LIMIT`` bytes)."""

    path: Path
    text: str
    digest: str


@dataclass(frozen=True)
class WorkspaceContent:
    workspace: Path
    instructions: Instructions | None = None
    templates: tuple[PromptTemplate, ...] = ()
    servers: WorkspaceServers | None = None
    refused: tuple[str, ...] = ()  # what is never used, and why
    hooks: WorkspaceHooks | None = None
    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()  # skill folders, agent files skipped, and why (notices)
    agents: tuple[AgentDefinition, ...] = ()

    def digests(self) -> dict[str, str]:
        """Each part present, by kind (``workspace_trust.KINDS``): the digest trust binds."""
        parts = {}
        if self.instructions is not None:
            parts["instructions"] = self.instructions.digest
        if self.templates:
            parts["templates"] = templates_digest(list(self.templates))
        if self.servers is not None and self.servers.servers:
            parts["mcp"] = self.servers.digest
        if self.hooks is not None and self.hooks.hooks:
            parts["hooks"] = self.hooks.digest
        if self.skills:
            parts["skills"] = skills_digest(self.skills)
        if self.agents:
            parts["agents"] = agents_digest(self.agents)
        return parts

    def trusted(self, kind: str) -> bool:
        digest = self.digests().get(kind)
        return digest is not None and is_trusted(self.workspace, kind, digest)

    def untrusted(self) -> WorkspaceContent:
        """Only the parts not trusted as they are now."""
        return replace(
            self,
            instructions=None if self.trusted("instructions") else self.instructions,
            templates=() if self.trusted("templates") else self.templates,
            servers=None if self.trusted("mcp") else self.servers,
            hooks=None if self.trusted("hooks") else self.hooks,
            skills=() if self.trusted("skills") else self.skills,
            agents=() if self.trusted("agents") else self.agents,
            refused=(),
            problems=(),
        )

    @property
    def empty(self) -> bool:
        return not self.digests()

    def names(self) -> list[str]:
        """The parts present, as the person knows them."""
        names = []
        if self.instructions is not None:
            names.append(f"{AGENTS_FILE} (instructions)")
        if self.templates:
            count = len(self.templates)
            names.append(f".tui-agent/commands ({count} template{'s' if count != 1 else ''})")
        if self.servers is not None and self.servers.servers:
            count = len(self.servers.servers)
            names.append(f"{FILE_NAME} ({count} MCP server{'s' if count != 1 else ''})")
        if self.hooks is not None and self.hooks.hooks:
            count = len(self.hooks.hooks)
            names.append(f"{HOOKS_FILE} ({count} hook{'s' if count != 1 else ''})")
        if self.skills:
            count = len(self.skills)
            names.append(f".tui-agent/skills ({count} skill{'s' if count != 1 else ''})")
        if self.agents:
            count = len(self.agents)
            names.append(f".tui-agent/agents ({count} agent{'s' if count != 1 else ''})")
        return names

    def describe(self, policy: VariablePolicy) -> list[str]:
        """Every part whole: AGENTS.md's every line, each template's, each server's fields."""
        lines: list[str] = []
        if self.instructions is not None:
            lines.append(f"== {AGENTS_FILE}: instructions sent to the model with every request")
            lines += [f"    {line}" for line in self.instructions.text.splitlines()]
        if self.templates:
            lines.append("== .tui-agent/commands: prompt templates offered as /NAME")
            lines += describe_templates(list(self.templates))
        if self.servers is not None and self.servers.servers:
            lines.append(f"== {FILE_NAME}: MCP servers, started once trusted")
            lines += self.servers.describe(policy)
        if self.hooks is not None and self.hooks.hooks:
            lines.append(
                f"== {HOOKS_FILE}: commands run at the agent's moments (sandboxed; "
                "they can block calls, never approve them)"
            )
            lines += self.hooks.describe()
        if self.skills:
            lines.append(
                "== .tui-agent/skills: skills named in the system prompt; the model loads their "
                "instructions and files"
            )
            lines += describe_skills(self.skills)
        if self.agents:
            lines.append(
                "== .tui-agent/agents: subagents the model may start with the task tool (their "
                "prompts and tools; every call they make is asked like the model's own)"
            )
            lines += describe_agents(self.agents)
        return lines


def read_workspace_content(workspace: Path) -> WorkspaceContent:
    """Everything ``workspace`` brings of its own, read now; what cannot be used in ``refused``."""
    refused: list[str] = []
    instructions = _instructions(workspace, refused)
    templates, outside = workspace_templates(workspace)
    if outside is not None:
        why = "leads outside the workspace (a symlink): its templates are refused"
        refused.append(f"{outside} {why}")
    try:
        servers = read_workspace_servers(workspace)
    except McpConfigError as exc:
        servers = None
        refused.append(f"{exc}")
    try:
        hooks = read_workspace_hooks(workspace)
    except WorkspaceHooksError as exc:
        hooks = None
        refused.append(f"{exc}")
    skills, outside = workspace_skills(workspace)
    if outside is not None:
        why = "leads outside the workspace (a symlink): its skills are refused"
        refused.append(f"{outside} {why}")
    agents, outside = workspace_agents(workspace)
    if outside is not None:
        why = "leads outside the workspace (a symlink): its agents are refused"
        refused.append(f"{outside} {why}")
    return WorkspaceContent(
        workspace,
        instructions,
        tuple(templates),
        servers,
        tuple(refused),
        hooks,
        skills.skills,
        (*skills.problems, *agents.problems),
        agents.agents,
    )


def trust_content(content: WorkspaceContent) -> None:
    """Remember that the person trusted exactly these parts (as shown) for their workspace."""
    trust(content.workspace, content.digests())


def _instructions(workspace: Path, refused: list[str]) -> Instructions | None:
    path = workspace / AGENTS_FILE
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if not inside_workspace(path, workspace):
        refused.append(f"{path} leads outside the workspace (a symlink): it is never sent")
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(AGENTS_FILE_LIMIT)
    except OSError as exc:
        refused.append(f"{path} cannot be read: {exc.strerror or exc}")
        return None
    return Instructions(path, data.decode("utf-8", "replace"), hashlib.sha256(data).hexdigest())
