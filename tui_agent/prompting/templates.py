"""Prompt templates: Markdown files that become /NAME commands in the message box.

``commands/NAME.md`` in the config folder is always offered; ``.tui-agent/commands/NAME.md`` in
the workspace only once the person trusted this workspace's templates as they are now (their
names and contents are hashed; an added or edited file is asked about again), and never when
``.tui-agent`` or ``commands`` is a symlink that leads out of the workspace. ``$ARGUMENTS`` in
the body is replaced by what follows the command; a body without it gets the arguments appended
after a blank line. An optional front matter block (``---`` lines) may hold ``description: ...``;
otherwise the first non-empty line is the description.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..session.paths import config_dir
from ..workspace_trust import inside_workspace
from ..workspace_trust import is_trusted as _is_trusted
from ..workspace_trust import trust as _trust

KIND = "templates"
MAX_TEMPLATE_BYTES = 64 * 1024
MAX_TEMPLATES = 200
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    name: str
    description: str
    body: str
    source: str  # "config" or "workspace"

    def expand(self, arguments: str) -> str:
        arguments = arguments.strip()
        if "$ARGUMENTS" in self.body:
            return self.body.replace("$ARGUMENTS", arguments)
        return f"{self.body.rstrip()}\n\n{arguments}" if arguments else self.body


def config_templates_dir() -> Path:
    return config_dir() / "commands"


def workspace_templates_dir(workspace: Path) -> Path:
    return workspace / ".tui-agent" / "commands"


def load_templates(folder: Path, source: str) -> list[PromptTemplate]:
    """The folder's readable templates, by name; symlinks, odd names and large files skipped."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    found: list[PromptTemplate] = []
    for entry in entries[: MAX_TEMPLATES * 2]:
        name = entry.name[:-3].lower() if entry.name.endswith(".md") else ""
        if not _NAME.match(name) or any(t.name == name for t in found):
            continue
        text = read_text(Path(entry.path))
        if text is not None:
            found.append(parse_template(name, text, source))
        if len(found) >= MAX_TEMPLATES:
            break
    return found


def parse_template(name: str, text: str, source: str) -> PromptTemplate:
    description = ""
    body = text
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        if end is not None:
            for line in lines[1:end]:
                key, _, value = line.partition(":")
                if key.strip().lower() == "description":
                    description = value.strip().strip("\"'")
            body = "\n".join(lines[end + 1 :]).lstrip("\n")
    if not description:
        first = next((line for line in body.splitlines() if line.strip()), "")
        description = first.strip().lstrip("#").strip()
    if len(description) > 80:
        description = description[:79] + "…"
    return PromptTemplate(name, description or "prompt template", body, source)


def read_text(path: Path, limit: int = MAX_TEMPLATE_BYTES) -> str | None:
    """A regular file's text (at most ``limit`` bytes), never through a symlink, or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        # Checked on the descriptor before it becomes a file object: io refuses a folder with
        # IsADirectoryError (a SKILL.md that is a folder), and the descriptor would leak.
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = b""
        while len(data) <= limit and (chunk := os.read(fd, limit + 1 - len(data))):
            data += chunk
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")


# -- trusting a workspace's templates -------------------------------------------------------


def templates_digest(templates: list[PromptTemplate]) -> str:
    """What trust binds: every template's name, description and body."""
    digest = hashlib.sha256()
    for template in sorted(templates, key=lambda t: t.name):
        for part in (template.name, template.description, template.body):
            digest.update(part.encode("utf-8", "backslashreplace") + b"\0")
    return digest.hexdigest()


def is_trusted(workspace: Path, templates: list[PromptTemplate]) -> bool:
    return bool(templates) and _is_trusted(workspace, KIND, templates_digest(templates))


def trust(workspace: Path, templates: list[PromptTemplate]) -> None:
    """Remember that the person trusted exactly these templates for this workspace."""
    _trust(workspace, {KIND: templates_digest(templates)})


@dataclass(frozen=True, slots=True)
class Templates:
    """The templates on offer, and the workspace's that wait to be trusted."""

    usable: list[PromptTemplate]
    untrusted: list[PromptTemplate]
    refused: Path | None = None  # the workspace's folder, refused: it leads outside (a symlink)


def describe_templates(templates: list[PromptTemplate]) -> list[str]:
    """Each template's name and description, then every line of it (what /NAME sends)."""
    lines: list[str] = []
    count = len(templates)
    for index, template in enumerate(templates, 1):
        lines.append(f"template {index} of {count}: /{template.name} — {template.description}")
        lines += [f"    {line}" for line in template.body.splitlines()]
    return lines


def workspace_templates(workspace: Path) -> tuple[list[PromptTemplate], Path | None]:
    """The workspace's templates a config one of the same name does not hide (the person's own
    wins); none, and the folder, when the folder leads outside the workspace (a symlink)."""
    folder = workspace_templates_dir(workspace)
    if not inside_workspace(folder, workspace):
        return [], folder
    names = {t.name for t in load_templates(config_templates_dir(), "config")}
    theirs = load_templates(folder, "workspace")
    return [t for t in theirs if t.name not in names], None


def available_templates(workspace: Path | None) -> Templates:
    own = load_templates(config_templates_dir(), "config")
    if workspace is None:
        return Templates(own, [])
    theirs, refused = workspace_templates(workspace)
    if refused is not None:
        return Templates(own, [], refused=refused)
    if theirs and is_trusted(workspace, theirs):
        return Templates(own + theirs, [])
    return Templates(own, theirs)
