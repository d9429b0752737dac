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

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..session.paths import config_dir
from ..workspace_trust import inside_workspace
from .templates import read_text

KIND = "skills"
SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024
MAX_SKILLS = 100
MAX_FILES = 200
MAX_DEPTH = 4
MAX_DESCRIPTION = 1024
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


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


class SkillError(ValueError):
    """A SKILL.md that cannot be used; the message says why."""


def config_skills_dir() -> Path:
    return config_dir() / "skills"


def workspace_skills_dir(workspace: Path) -> Path:
    return workspace / ".tui-agent" / "skills"


def clean_text(text: str) -> str:
    """One line without control, bidi or zero-width characters."""
    return " ".join(_CONTROL.sub(" ", text).split())


def parse_skill(text: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md's text; SkillError says what is wrong."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillError("it does not start with a front matter block (a '---' line)")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        raise SkillError("its front matter block has no closing '---' line")
    fields = front_matter(lines[1:end])
    raw_name = fields.get("name", "")
    if not raw_name:
        raise SkillError("its front matter has no 'name:'")
    name = clean_text(raw_name).lower().replace(" ", "-")
    if not _NAME.match(name):
        shown = clean_text(raw_name)[:40]
        raise SkillError(f"its name {shown!r} is not 1-64 lowercase letters, digits, '-' or '_'")
    description = clean_text(fields.get("description", ""))
    if not description:
        raise SkillError("its front matter has no 'description:'")
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return name, description, body


def front_matter(lines: list[str], *, lists: bool = False) -> dict[str, str]:
    """``key: value`` lines (YAML-ish): quotes stripped; ``|`` or ``>`` and indented lines
    after a key continue its value; with ``lists`` (an agent's ``tools:``), ``- item`` lines
    after a key continue it too, its items joined by commas; anything else (nested keys, and
    lists without ``lists``) is ignored."""
    fields: dict[str, str] = {}
    key: str | None = None
    for line in lines:
        stripped = line.strip()
        item = lists and stripped.startswith("- ")
        if key is not None and (line[:1] in (" ", "\t") or item):
            if item:
                value = stripped[2:].strip()
                fields[key] = f"{fields[key]}, {value}" if fields[key] else value
            else:
                fields[key] = f"{fields[key]} {stripped}".strip()
            continue
        key = None
        name, colon, value = line.partition(":")
        name = name.strip().lower()
        if not colon or not name or name.startswith(("#", "-")) or name in fields:
            continue
        value = value.strip()
        if value in ("|", ">", "|-", ">-"):
            value = ""
        elif len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[name] = value
        key = name
    return fields


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


def load_skills(folder: Path, source: str, shown: str) -> SkillScan:
    """The skills in ``folder`` (one sub-folder each), by folder name; ``shown`` names the
    folder in problems. Symlinked folders and unreadable SKILL.md files are skipped."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return SkillScan()
    skills: list[Skill] = []
    problems: list[str] = []
    for entry in entries:
        if len(skills) >= MAX_SKILLS:
            problems.append(f"{shown}: more than {MAX_SKILLS} skills; the rest are skipped")
            break
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        where = f"{shown}/{clean_text(entry.name)[:60]}/{SKILL_FILE}"
        skill_folder = Path(entry.path)
        text = read_text(skill_folder / SKILL_FILE, MAX_SKILL_BYTES)
        if text is None:
            if os.path.lexists(skill_folder / SKILL_FILE):
                problems.append(f"{where} is skipped: not a regular file, or larger than 256 KB")
            continue
        try:
            name, description, body = parse_skill(text)
        except SkillError as exc:
            problems.append(f"{where} is skipped: {exc}")
            continue
        if any(s.name == name for s in skills):
            problems.append(f"{where} is skipped: another skill is named {name!r}")
            continue
        files = _other_files(skill_folder)
        skills.append(Skill(name, description, body, skill_folder, files, source))
    return SkillScan(tuple(skills), tuple(problems))


def config_skills() -> SkillScan:
    return load_skills(config_skills_dir(), "config", "skills")


def workspace_skills(workspace: Path) -> tuple[SkillScan, Path | None]:
    """The workspace's skills a config one of the same name does not hide; none, and the
    folder, when it leads outside the workspace (a symlink)."""
    folder = workspace_skills_dir(workspace)
    if not inside_workspace(folder, workspace):
        return SkillScan(), folder
    names = {s.name for s in config_skills().skills}
    scan = load_skills(folder, "workspace", ".tui-agent/skills")
    kept = tuple(s for s in scan.skills if s.name not in names)
    return SkillScan(kept, scan.problems), None


def skills_digest(skills: tuple[Skill, ...]) -> str:
    """What trust binds: every skill's name, description, body and file list."""
    digest = hashlib.sha256()
    for skill in sorted(skills, key=lambda s: s.name):
        for part in (skill.name, skill.description, skill.body, *skill.files):
            digest.update(part.encode("utf-8", "backslashreplace") + b"\0")
        digest.update(b"\1")
    return digest.hexdigest()


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
