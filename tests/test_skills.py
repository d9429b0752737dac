"""Skills (``prompting/skills.py``): SKILL.md folders found in the config folder and the
workspace, their front matter read YAML-ish and hostile input refused with a reason (never a
crash), names sanitized, and the system prompt naming each skill with its description."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.config import load_config, resolve_profile
from tui_agent.prompting.skill_tool import LoadSkillArgs, load_skill
from tui_agent.prompting.skills import (
    SkillBook,
    SkillError,
    config_skills,
    load_skills,
    parse_skill,
    workspace_skills,
)
from tui_agent.wiring.setup import system_prompt

REVIEW = """---
name: code-review
description: "Review a change: correctness first, then style."
---
# Review

Read the diff, then say what is wrong.
"""


def _skill(root: Path, folder: str, text: str, **files: str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(text, encoding="utf-8")
    for name, content in files.items():
        target = path / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_a_skill_folder_is_found_with_its_files(tmp_path: Path) -> None:
    root = tmp_path / "config" / "tui-agent" / "skills"
    _skill(root, "review", REVIEW, **{"checklist.md": "- tests\n", "scripts__lint.sh": "ruff\n"})
    scan = config_skills()
    assert scan.problems == ()
    [skill] = scan.skills
    assert skill.name == "code-review" and skill.source == "config"
    assert skill.description == "Review a change: correctness first, then style."
    assert skill.body.startswith("# Review") and "---" not in skill.body
    assert skill.files == ("checklist.md", "scripts/lint.sh")


def test_folded_descriptions_and_unknown_keys() -> None:
    text = "---\nname: Deploy\nlicense: MIT\ndescription: >\n  Ship the app\n  to staging.\n---\n"
    text += "Go."
    assert parse_skill(text) == ("deploy", "Ship the app to staging.", "Go.")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no front matter\n", "does not start with a front matter"),
        ("---\nname: x\ndescription: y\n", "no closing"),
        ("---\ndescription: y\n---\n", "no 'name:'"),
        ("---\nname: x\n---\n", "no 'description:'"),
        ("---\nname: ../../etc\ndescription: y\n---\n", "is not 1-64 lowercase"),
        ("---\nname: a/b\ndescription: y\n---\n", "is not 1-64 lowercase"),
        ("---\nname: " + "a" * 65 + "\ndescription: y\n---\n", "is not 1-64 lowercase"),
    ],
)
def test_bad_front_matter_is_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(SkillError, match=why):
        parse_skill(text)


def test_names_and_descriptions_are_sanitized() -> None:
    text = "---\nname: My\u202eSkill\ndescription: one\x1b[31m\n  two\u200b\n---\n"
    name, description, _ = parse_skill(text)
    assert name == "my-skill" and description == "one [31m two"


def test_bad_skills_are_notices_and_the_rest_still_load(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "good", REVIEW)
    _skill(root, "broken", "---\nname: [oops\n")
    _skill(root, "twin", REVIEW)
    (root / "binary").mkdir()
    (root / "binary" / "SKILL.md").write_bytes(b"\xff\xfe\x00---")
    (root / "linked").symlink_to(root / "good")
    (root / "plain-file").write_text("not a folder")
    scan = load_skills(root, "config", "skills")
    assert [s.name for s in scan.skills] == ["code-review"]
    text = "\n".join(scan.problems)
    assert "skills/broken/SKILL.md is skipped: its front matter block has no closing" in text
    assert "skills/twin/SKILL.md is skipped: another skill is named 'code-review'" in text
    assert "skills/binary/SKILL.md is skipped" in text
    assert "linked" not in text  # a symlinked folder is never followed


def test_a_config_skill_hides_a_workspace_one_of_the_same_name(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    _skill(tmp_path / "config" / "tui-agent" / "skills", "review", REVIEW)
    _skill(workspace / ".tui-agent" / "skills", "review", REVIEW.replace("Review a", "Mine:"))
    other = REVIEW.replace("code-review", "release")
    _skill(workspace / ".tui-agent" / "skills", "release", other)
    scan, refused = workspace_skills(workspace)
    assert refused is None
    assert [(s.name, s.source) for s in scan.skills] == [("release", "workspace")]


def test_a_skills_folder_leading_outside_is_refused(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    _skill(outside / "skills", "review", REVIEW)
    (workspace / ".tui-agent").mkdir(parents=True)
    (workspace / ".tui-agent" / "skills").symlink_to(outside / "skills")
    scan, refused = workspace_skills(workspace)
    assert scan.skills == () and refused == workspace / ".tui-agent" / "skills"


def test_the_system_prompt_names_each_skill_with_its_description(tmp_path: Path) -> None:
    _skill(tmp_path / "config" / "tui-agent" / "skills", "review", REVIEW)
    config = load_config()
    profile = resolve_profile(config, profile="demo")
    skills = config_skills().skills
    text = system_prompt(profile, config, None, skills).text
    assert "# Skills" in text and "call load_skill" in text
    assert "- code-review: Review a change: correctness first, then style." in text
    assert "Read the diff" not in text  # the body only through load_skill
    assert "# Skills" not in system_prompt(profile, config).text


def test_load_skill_returns_the_body_and_files_and_only_listed_files(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = _skill(root, "review", REVIEW, **{"checklist.md": "- tests\n"})
    (tmp_path / "secret.txt").write_text("SECRET")
    (folder / "link.txt").symlink_to(tmp_path / "secret.txt")
    book = SkillBook(load_skills(root, "config", "skills").skills)
    out = load_skill(book, LoadSkillArgs(name="code-review"))
    assert not out.is_error and "Read the diff" in out.text and "- checklist.md" in out.text
    assert "link.txt" not in out.text
    assert load_skill(book, LoadSkillArgs(name="code-review", file="checklist.md")).text == (
        "- tests\n"
    )
    for file in ("link.txt", "../secret.txt", str(tmp_path / "secret.txt")):
        out = load_skill(book, LoadSkillArgs(name="code-review", file=file))
        assert out.is_error and "SECRET" not in out.text
    out = load_skill(book, LoadSkillArgs(name="nope"))
    assert out.is_error and "skills: code-review" in out.text


def test_a_skill_md_that_is_a_folder_is_skipped_and_the_rest_load(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "good", REVIEW)
    (root / "odd" / "SKILL.md").mkdir(parents=True)
    before = len(os.listdir("/proc/self/fd"))
    scan = load_skills(root, "config", "skills")
    assert [s.name for s in scan.skills] == ["code-review"]
    assert "skills/odd/SKILL.md is skipped" in "\n".join(scan.problems)
    assert len(os.listdir("/proc/self/fd")) == before  # no descriptor left open
