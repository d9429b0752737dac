"""Skills: folders with a ``SKILL.md`` the model loads when a task calls for it.

The format Claude Code and Codex read: ``skills/NAME/SKILL.md`` starts with a front matter block
(``---`` lines) holding ``name:`` and ``description:``; the instructions follow, and other files
(scripts, references) may sit beside it. ``skills/`` in the config folder is always offered;
``.tui-agent/skills/`` in the workspace only once the person trusted the workspace's skills as
they are now (``wiring/workspace_content.py``), and never through a symlink leading out of it.
A config skill hides a workspace one of the same name.

Only names and descriptions go into the system prompt (``skills_prompt``); the model reads a
skill's body, or one of its files, with the read-only ``load_skill`` tool. A folder whose
``SKILL.md`` cannot be used is skipped with a notice saying why (``SkillScan.problems``).
"""

from __future__ import annotations

import os
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

KIND = "skills"
SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024
MAX_SKILLS = 100
MAX_FILES = 200
MAX_DEPTH = 4


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    body: str  # SKILL.md after its front matter
    folder: Path
    files: tuple[str, ...]  # the folder's other regular files, relative, sorted
    source: str  # "config" or "workspace"


@dataclass(frozen=True, slots=True)
class SkillScan:
    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()  # one line per folder skipped, and why


class SkillError(DefinitionError):
    """A SKILL.md that cannot be used; the message says why."""


def config_skills_dir() -> Path:
    return SKILL_FOLDERS.config_dir()


def workspace_skills_dir(workspace: Path) -> Path:
    return SKILL_FOLDERS.workspace_dir(workspace)


def parse_skill(text: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md's text; SkillError says what is wrong."""
    _, name, description, body = parse_head(text, SkillError)
    return name, description, body


def _other_files(folder: Path) -> tuple[str, ...]:
    """The folder's regular files besides SKILL.md, relative; symlinks and dot files skipped."""
    found: list[str] = []

    def walk(here: Path, prefix: str, depth: int) -> None:
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if len(found) >= MAX_FILES:
                return
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            relative = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False) and depth < MAX_DEPTH:
                walk(Path(entry.path), f"{relative}/", depth + 1)
            elif entry.is_file(follow_symlinks=False) and relative != SKILL_FILE:
                found.append(relative)

    walk(folder, "", 0)
    return tuple(found)


def _skill(entry: os.DirEntry[str], source: str) -> Skill | None:
    """The skill of a folder's SKILL.md; None for anything else, and a folder without one."""
    if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
        return None
    folder = Path(entry.path)
    text = read_text(folder / SKILL_FILE, MAX_SKILL_BYTES)
    if text is None:
        if os.path.lexists(folder / SKILL_FILE):
            raise SkillError("not a regular file, or larger than 256 KB")
        return None
    name, description, body = parse_skill(text)
    return Skill(name, description, body, folder, _other_files(folder), source)


SKILL_FOLDERS = DefinitionFolders("skill", MAX_SKILLS, _skill, suffix=f"/{SKILL_FILE}")


def load_skills(folder: Path, source: str, shown: str) -> SkillScan:
    """The skills in ``folder`` (one sub-folder each), by folder name; ``shown`` names the
    folder in problems. Symlinked folders and unreadable SKILL.md files are skipped."""
    return SkillScan(*SKILL_FOLDERS.scan(folder, source, shown))


def config_skills() -> SkillScan:
    return SkillScan(*SKILL_FOLDERS.config())


def workspace_skills(workspace: Path) -> tuple[SkillScan, Path | None]:
    """The workspace's skills a config one of the same name does not hide; none, and the
    folder, when it leads outside the workspace (a symlink)."""
    found, outside = SKILL_FOLDERS.workspace(workspace)
    return SkillScan(*found), outside


def skills_digest(skills: tuple[Skill, ...]) -> str:
    """What trust binds: every skill's name, description, body and file list."""
    return definitions_digest(skills, lambda s: (s.name, s.description, s.body, *s.files))


def describe_skills(skills: tuple[Skill, ...]) -> list[str]:
    """Each skill's name and description, its files, then every line of its SKILL.md."""
    lines: list[str] = []
    count = len(skills)
    for index, skill in enumerate(skills, 1):
        lines.append(f"skill {index} of {count}: {skill.name} — {skill.description}")
        if skill.files:
            lines.append("    files: " + ", ".join(clean_text(f) for f in skill.files))
        lines += [f"    {line}" for line in skill.body.splitlines()]
    return lines


def skills_prompt(skills: tuple[Skill, ...]) -> str:
    """The system prompt's part naming the skills on offer ("" when none)."""
    if not skills:
        return ""
    lines = [
        "# Skills",
        "",
        "These skills hold instructions for particular tasks. When a task matches a skill's "
        "description, call load_skill with its name before you start, and follow what it says.",
        "",
    ]
    lines += [f"- {skill.name}: {skill.description}" for skill in skills]
    return "\n".join(lines)


def skills_report(
    offered: tuple[Skill, ...], waiting: tuple[Skill, ...], problems: tuple[str, ...]
) -> str:
    """What /skills shows: each skill on offer with its source and folder, the workspace's that
    wait to be trusted, and the folders skipped."""
    where = {"config": "config folder", "workspace": "workspace"}
    lines = [f"skills ({len(offered)}):" if offered else "no skills are offered"]
    for skill in offered:
        source = where.get(skill.source, skill.source)
        lines.append(f"  {skill.name} ({source}): {skill.description}")
        lines.append(f"      {skill.folder}")
    if waiting:
        names = ", ".join(s.name for s in waiting)
        lines.append(f"not trusted, so not offered (/trust-workspace shows them): {names}")
    lines += [f"skipped: {why}" for why in problems]
    if not offered and not waiting:
        lines.append(
            "put a folder with a SKILL.md in the config folder's skills/ or the workspace's "
            ".tui-agent/skills/"
        )
    return "\n".join(lines)


@dataclass
class SkillBook:
    """The skills this session offers (the load_skill tool reads from it; trusting the
    workspace's skills adds them)."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = field(default=())

    def get(self, name: str) -> Skill | None:
        wanted = name.strip().lower()
        return next((s for s in self.skills if s.name == wanted), None)

    def add(self, more: tuple[Skill, ...]) -> None:
        names = {s.name for s in self.skills}
        self.skills = (*self.skills, *(s for s in more if s.name not in names))
