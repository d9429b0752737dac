"""Agent definitions (``prompting/agents.py``): NAME.md files in Claude Code's format found in
the config folder and the workspace, their front matter read YAML-ish (tools as a comma list,
a flow list or ``- item`` lines; Claude Code's tool names read as ours), hostile or broken
files skipped with a reason (never a crash), and the built-in read-only explore agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.prompting.agents import (
    EXPLORE,
    AgentFileError,
    agent_book,
    agents_digest,
    agents_report,
    config_agents,
    config_agents_dir,
    parse_agent,
    workspace_agents,
    workspace_agents_dir,
)

REVIEWER = """---
name: code-reviewer
description: "Reviews a change: correctness first, then style."
tools: Read, Grep, Glob
model: inherit
---
You review code. Say what is wrong, with paths and lines.
"""


@pytest.fixture(autouse=True)
def _folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _agent(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_claude_code_agent_file_is_read_with_our_tool_names() -> None:
    agent = parse_agent(REVIEWER)
    assert agent.name == "code-reviewer"
    assert agent.description == "Reviews a change: correctness first, then style."
    assert agent.tools == ("read_file", "search_text", "list_dir")
    assert agent.model is None and agent.profile is None
    assert agent.prompt == "You review code. Say what is wrong, with paths and lines."


@pytest.mark.parametrize(
    "tools",
    [
        "tools: [read_file, write_file]",
        "tools:\n  - read_file\n  - write_file",
        "tools:\n- Read\n- Write",
        "tools: read_file write_file",
    ],
)
def test_tools_may_be_a_list_in_any_of_the_usual_shapes(tools: str) -> None:
    text = f"---\nname: writer\ndescription: writes\n{tools}\n---\nWrite things.\n"
    assert parse_agent(text).tools == ("read_file", "write_file")


def test_no_tools_field_means_every_tool_and_a_model_or_profile_is_kept() -> None:
    text = "---\nname: helper\ndescription: helps\nmodel: small-model\n---\nHelp.\n"
    agent = parse_agent(text)
    assert agent.tools is None and agent.model == "small-model"
    text = "---\nname: helper\ndescription: helps\nprofile: local\n---\nHelp.\n"
    assert parse_agent(text).profile == "local"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no front matter\n", "does not start with a front matter"),
        ("---\nname: a\n", "no closing"),
        ("---\ndescription: d\n---\nbody\n", "no 'name:'"),
        ("---\nname: a\n---\nbody\n", "no 'description:'"),
        ("---\nname: Bad/Name!\ndescription: d\n---\nbody\n", "is not 1-64 lowercase"),
        ("---\nname: a\ndescription: d\n---\n\n", "no system prompt"),
        ("---\nname: a\ndescription: d\ntools: rm -rf /\n---\nbody\n", "not a tool name"),
        ("---\nname: a\ndescription: d\nmodel: m\nprofile: p\n---\nbody\n", "both a model"),
    ],
)
def test_bad_files_are_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(AgentFileError, match=why):
        parse_agent(text)


def test_names_and_descriptions_are_sanitized() -> None:
    text = "---\nname: Code Reviewer\ndescription: a\x1b[31m red \u202e line\n---\nbody\n"
    agent = parse_agent(text)
    assert agent.name == "code-reviewer"
    assert "\x1b" not in agent.description and "\u202e" not in agent.description


def test_bad_files_are_problems_and_the_rest_still_load(tmp_path: Path) -> None:
    folder = config_agents_dir()
    _agent(folder, "reviewer", REVIEWER)
    _agent(folder, "broken", "not an agent\n")
    _agent(folder, "twin", REVIEWER)
    (folder / "notes.txt").write_text("ignored", encoding="utf-8")
    (folder / "link.md").symlink_to(folder / "reviewer.md")
    scan = config_agents()
    assert [a.name for a in scan.agents] == ["code-reviewer"]
    assert scan.agents[0].source == "config"
    problems = "\n".join(scan.problems)
    assert "agents/broken.md is skipped: it does not start" in problems
    assert "agents/twin.md is skipped: another agent is named 'code-reviewer'" in problems
    assert "agents/link.md is skipped: not a regular file" in problems


def test_a_config_agent_hides_a_workspace_one_and_explore_is_built_in(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    _agent(config_agents_dir(), "reviewer", REVIEWER)
    _agent(workspace_agents_dir(workspace), "reviewer", REVIEWER.replace("Reviews", "Mine"))
    _agent(workspace_agents_dir(workspace), "tester", REVIEWER.replace("code-reviewer", "tester"))
    scan, outside = workspace_agents(workspace)
    assert outside is None
    assert [a.name for a in scan.agents] == ["tester"]
    book = agent_book(config_agents(), scan.agents)
    assert [a.name for a in book.agents] == ["explore", "code-reviewer", "tester"]
    assert book.get("EXPLORE") is EXPLORE
    assert EXPLORE.tools == ("read_file", "list_dir", "search_text")


def test_a_config_agent_named_explore_replaces_the_built_in() -> None:
    _agent(config_agents_dir(), "explore", REVIEWER.replace("code-reviewer", "explore"))
    book = agent_book(config_agents())
    assert [a.source for a in book.agents] == ["config"]


def test_an_agents_folder_leading_outside_is_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    elsewhere = tmp_path / "elsewhere"
    _agent(elsewhere, "reviewer", REVIEWER)
    (workspace / ".tui-agent").mkdir(parents=True)
    (workspace / ".tui-agent" / "agents").symlink_to(elsewhere)
    scan, outside = workspace_agents(workspace)
    assert scan.agents == () and outside is not None


def test_the_digest_changes_with_any_field() -> None:
    one = parse_agent(REVIEWER)
    other = parse_agent(REVIEWER.replace("Read, Grep, Glob", "Read, Grep"))
    assert agents_digest((one,)) != agents_digest((other,))
    assert agents_digest((one,)) == agents_digest((parse_agent(REVIEWER),))


def test_the_report_lists_each_agent_with_its_tools() -> None:
    report = agents_report((EXPLORE, parse_agent(REVIEWER)), (), ("x is skipped: y",), 1)
    assert "explore (built in)" in report
    assert "tools: read_file, search_text, list_dir" in report
    assert "skipped: x is skipped: y" in report


def test_the_workspace_agents_wait_for_trust_and_are_then_offered(tmp_path: Path) -> None:
    from tui_agent.config import Config
    from tui_agent.config.secrets import workspace_variable_policy
    from tui_agent.wiring.subagents import session_delegation
    from tui_agent.wiring.workspace_content import read_workspace_content, trust_content

    workspace = tmp_path / "ws"
    _agent(workspace_agents_dir(workspace), "tester", REVIEWER.replace("code-reviewer", "tester"))
    content = read_workspace_content(workspace)
    assert ".tui-agent/agents (1 agent)" in content.names()
    lines = content.describe(workspace_variable_policy(Config(), None))
    assert any("agent 1 of 1: tester" in line for line in lines)
    delegation = session_delegation(Config(), content, False, [])
    assert delegation is not None
    assert [a.name for a in delegation.book.agents] == ["explore"]
    trust_content(content)
    content = read_workspace_content(workspace)
    assert content.untrusted().empty
    delegation = session_delegation(Config(), content, False, [])
    assert delegation is not None
    assert [a.name for a in delegation.book.agents] == ["explore", "tester"]
    off = Config.model_validate({"settings": {"subagent_depth": 0}})
    assert session_delegation(off, content, True, []) is None


def test_claude_code_model_aliases_are_the_sessions_model() -> None:
    for alias in ("sonnet", "Opus", "haiku", "inherit"):
        text = f"---\nname: a\ndescription: d\nmodel: {alias}\n---\nbody\n"
        assert parse_agent(text).model is None


def test_an_agents_profile_is_resolved_from_config_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui_agent.config import Config
    from tui_agent.wiring.subagents import profile_resolver

    monkeypatch.setenv("LOCAL_KEY", "k")
    config = Config.model_validate(
        {
            "profiles": {
                "local": {
                    "protocol": "openai-chat",
                    "model": "small",
                    "base_url": "http://127.0.0.1:9/v1",
                    "api_key_env": "LOCAL_KEY",
                    "context_window": 8192,
                }
            }
        }
    )
    resolve = profile_resolver(config)
    target = resolve("local")
    assert (target.protocol, target.provider, target.request.model) == (
        "openai-chat",
        "local",
        "small",
    )
    assert target.window.size == 8192
    with pytest.raises(ValueError):
        resolve("nowhere")
