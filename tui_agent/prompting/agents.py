"""Agent definitions: the subagents the ``task`` tool can start (``agent/subagent.py``).

The format Claude Code reads: ``agents/NAME.md`` starts with a front matter block (``---``
lines) holding ``name:``, ``description:``, optionally ``tools:`` (a comma list, a ``[a, b]``
list or ``- item`` lines; absent: every tool the session offers) and ``model:`` or
``profile:``; the body is the subagent's system prompt. Claude Code's tool names (Read, Grep,
Glob, LS, Write, Edit, MultiEdit, Bash) are read as this app's own, its model aliases (sonnet,
opus, haiku) as the session's model.

``agents/`` in the config folder is always offered; ``.tui-agent/agents/`` in the workspace
only once the person trusted the workspace's agents as they are now
(``wiring/workspace_content.py``), and never through a symlink leading out of it. A config
agent hides a workspace one of the same name; the built-in ``explore`` hides neither. A file
that cannot be used is skipped with a line saying why (``AgentScan.problems``), never an error.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .definitions import (
    DefinitionError,
    DefinitionFolders,
    clean_text,
    definitions_digest,
    parse_head,
)
from .templates import read_text

KIND = "agents"
MAX_AGENT_BYTES = 64 * 1024
MAX_AGENTS = 100
_TOOL = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Claude Code's names for its tools, as this app's built-in tools.
CLAUDE_TOOL_NAMES = {
    "read": "read_file",
    "grep": "search_text",
    "glob": "list_dir",
    "ls": "list_dir",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "bash": "run_command",
}
# The session's model: none named, or Claude Code's own aliases (no other provider knows them).
_INHERIT = ("", "inherit", "sonnet", "opus", "haiku")

EXPLORE_PROMPT = (
    "You are a read-only explorer working for another agent. Find what the task asks for in "
    "the workspace with the read-only tools you have (list folders, search text, read files); "
    "you cannot change anything. Read only what you need. Answer with a short report: what you "
    "found, where (paths and line numbers), and anything the task asked that you could not "
    "find. Your answer is all the other agent sees of your work."
)


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str  # the body: the subagent's system prompt
    tools: tuple[str, ...] | None  # None: every tool the session offers
    model: str | None = None  # None: the session's model
    profile: str | None = None  # None: the session's profile
    source: str = "builtin"  # "builtin", "config" or "workspace"
    path: Path | None = None


EXPLORE = AgentDefinition(
    name="explore",
    description=(
        "Read-only: searches and reads the workspace to answer a question, and reports back "
        "what it found and where. Use it for a large read or search you only need the gist of."
    ),
    prompt=EXPLORE_PROMPT,
    tools=("read_file", "list_dir", "search_text"),
)


@dataclass(frozen=True, slots=True)
class AgentScan:
    agents: tuple[AgentDefinition, ...] = ()
    problems: tuple[str, ...] = ()  # one line per file skipped, and why


class AgentFileError(DefinitionError):
    """An agent file that cannot be used; the message says why."""


def config_agents_dir() -> Path:
    return AGENT_FOLDERS.config_dir()


def workspace_agents_dir(workspace: Path) -> Path:
    return AGENT_FOLDERS.workspace_dir(workspace)


def parse_agent(text: str, source: str = "config", path: Path | None = None) -> AgentDefinition:
    """The definition an agent file's text holds; AgentFileError says what is wrong."""
    fields, name, description, body = parse_head(text, AgentFileError, lists=True)
    tools = _tools(fields["tools"]) if "tools" in fields else None
    model = clean_text(fields.get("model", ""))
    profile = clean_text(fields.get("profile", ""))
    if model.lower() not in _INHERIT and profile:
        raise AgentFileError("it names both a model and a profile; keep one")
    if not body.strip():
        raise AgentFileError("it has no system prompt (the text after the front matter)")
    return AgentDefinition(
        name=name,
        description=description,
        prompt=body,
        tools=tools,
        model=None if model.lower() in _INHERIT else model,
        profile=profile or None,
        source=source,
        path=path,
    )


def _tools(value: str) -> tuple[str, ...]:
    """A tools field as this app's tool names, in order, once each."""
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    names: list[str] = []
    for part in re.split(r"[,\s]+", text):
        part = part.strip().strip("\"'").lstrip("-").strip()
        if not part:
            continue
        if not _TOOL.match(part):
            raise AgentFileError(f"its tools name {clean_text(part)[:40]!r}, not a tool name")
        part = CLAUDE_TOOL_NAMES.get(part.lower(), part)
        if part not in names:
            names.append(part)
    return tuple(names)


def _agent(entry: os.DirEntry[str], source: str) -> AgentDefinition:
    if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
        raise AgentFileError("not a regular file")
    path = Path(entry.path)
    text = read_text(path, MAX_AGENT_BYTES)
    if text is None:
        raise AgentFileError("unreadable, or larger than 64 KB")
    return parse_agent(text, source, path)


def _markdown(entry: os.DirEntry[str]) -> bool:
    return entry.name.endswith(".md") and not entry.name.startswith(".")


AGENT_FOLDERS = DefinitionFolders("agent", MAX_AGENTS, _agent, wanted=_markdown)


def load_agents(folder: Path, source: str, shown: str) -> AgentScan:
    """The agents of ``folder``'s ``*.md`` files, by file name; ``shown`` names the folder in
    problems. Symlinks, other files and unreadable or invalid files are skipped."""
    return AgentScan(*AGENT_FOLDERS.scan(folder, source, shown))


def config_agents() -> AgentScan:
    return AgentScan(*AGENT_FOLDERS.config())


def workspace_agents(workspace: Path) -> tuple[AgentScan, Path | None]:
    """The workspace's agents a config one of the same name does not hide; none, and the
    folder, when it leads outside the workspace (a symlink)."""
    found, outside = AGENT_FOLDERS.workspace(workspace)
    return AgentScan(*found), outside


def _digested(agent: AgentDefinition) -> tuple[str, ...]:
    tools = "\0".join(agent.tools) if agent.tools is not None else "\1all"
    parts = (agent.name, agent.description, agent.prompt, tools)
    return (*parts, agent.model or "", agent.profile or "")


def agents_digest(agents: tuple[AgentDefinition, ...]) -> str:
    """What trust binds: every agent's every field."""
    return definitions_digest(agents, _digested)


def _tools_line(agent: AgentDefinition) -> str:
    return ", ".join(agent.tools) if agent.tools is not None else "every tool of the session"


def _model_line(agent: AgentDefinition) -> str:
    return f"model: {agent.model}" if agent.model else f"profile: {agent.profile}"


def describe_agents(agents: tuple[AgentDefinition, ...]) -> list[str]:
    """Each agent's name, description, tools and model, then every line of its prompt."""
    lines: list[str] = []
    count = len(agents)
    for index, agent in enumerate(agents, 1):
        lines.append(f"agent {index} of {count}: {agent.name} — {agent.description}")
        lines.append(f"    tools: {_tools_line(agent)}")
        if agent.model or agent.profile:
            lines.append(f"    {_model_line(agent)}")
        lines += [f"    {line}" for line in agent.prompt.splitlines()]
    return lines


@dataclass
class AgentBook:
    """The agents this session offers: the built-in explore, the config folder's and (once
    trusted) the workspace's."""

    agents: tuple[AgentDefinition, ...] = (EXPLORE,)
    problems: tuple[str, ...] = field(default=())

    def get(self, name: str) -> AgentDefinition | None:
        wanted = name.strip().lower()
        return next((a for a in self.agents if a.name == wanted), None)

    def add(self, more: tuple[AgentDefinition, ...]) -> None:
        names = {a.name for a in self.agents}
        self.agents = (*self.agents, *(a for a in more if a.name not in names))


def agent_book(own: AgentScan, workspace: tuple[AgentDefinition, ...] = ()) -> AgentBook:
    """explore, then the config folder's agents (one named explore replaces the built-in),
    then ``workspace``'s (already trusted) that no other hides."""
    names = {a.name for a in own.agents}
    builtin = tuple(a for a in (EXPLORE,) if a.name not in names)
    book = AgentBook((*builtin, *own.agents), own.problems)
    book.add(workspace)
    return book


def agents_report(
    offered: tuple[AgentDefinition, ...],
    waiting: tuple[AgentDefinition, ...],
    problems: tuple[str, ...],
    depth: int,
) -> str:
    """What /agents shows: each agent on offer with its source, tools and file, the
    workspace's that wait to be trusted, the files skipped, and the depth setting."""
    where = {"builtin": "built in", "config": "config folder", "workspace": "workspace"}
    lines = [f"agents the task tool can start ({len(offered)}):"]
    for agent in offered:
        source = where.get(agent.source, agent.source)
        lines.append(f"  {agent.name} ({source}): {agent.description}")
        lines.append(f"      tools: {_tools_line(agent)}")
        if agent.model or agent.profile:
            lines.append(f"      {_model_line(agent)}")
        if agent.path is not None:
            lines.append(f"      {agent.path}")
    if waiting:
        names = ", ".join(a.name for a in waiting)
        lines.append(f"not trusted, so not offered (/trust-workspace shows them): {names}")
    lines += [f"skipped: {why}" for why in problems]
    if depth < 1:
        lines.append("subagent_depth is 0: the task tool is not offered")
    lines.append(
        "put a NAME.md with name, description and tools in the config folder's agents/ or the "
        "workspace's .tui-agent/agents/"
    )
    return "\n".join(lines)
