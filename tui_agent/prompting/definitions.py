"""Definitions: the Markdown files with a front matter block that skills (``skills.py``) and
agents (``agents.py``) are read from, one folder of them in the config folder and one in a
trusted workspace.

What the two share lives here: the front matter (``---`` lines, ``key: value`` read YAML-ish)
with its ``name:`` and ``description:``, a folder's entries read one by one in name order with
a line saying why for each one skipped, the workspace's folder refused when it leads outside
the workspace and its definitions hidden by a config one of the same name, and the digest that
trust binds. What a definition holds and where its file sits is each module's own.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from ..session.paths import config_dir
from ..workspace_trust import inside_workspace

MAX_DESCRIPTION = 1024
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)
Found = tuple[tuple[T, ...], tuple[str, ...]]  # the definitions, and one line per file skipped


class DefinitionError(ValueError):
    """A definition file that cannot be used; the message says why."""


def clean_text(text: str) -> str:
    """One line without control, bidi or zero-width characters."""
    return " ".join(_CONTROL.sub(" ", text).split())


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


def parse_head(
    text: str, error: type[DefinitionError], *, lists: bool = False
) -> tuple[dict[str, str], str, str, str]:
    """(fields, name, description, body) of a definition's text, the name cleaned and
    lowercased, the description cleaned and cut to MAX_DESCRIPTION; ``error`` says what is
    wrong with its front matter, name or description."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise error("it does not start with a front matter block (a '---' line)")
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        raise error("its front matter block has no closing '---' line")
    fields = front_matter(lines[1:end], lists=lists)
    raw_name = fields.get("name", "")
    if not raw_name:
        raise error("its front matter has no 'name:'")
    name = clean_text(raw_name).lower().replace(" ", "-")
    if not _NAME.match(name):
        shown = clean_text(raw_name)[:40]
        raise error(f"its name {shown!r} is not 1-64 lowercase letters, digits, '-' or '_'")
    description = clean_text(fields.get("description", ""))
    if not description:
        raise error("its front matter has no 'description:'")
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return fields, name, description, body


def _every(entry: os.DirEntry[str]) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class DefinitionFolders(Generic[T]):
    """Where one kind of definition is found and how one is read: ``NOUNs/`` in the config
    folder, ``.tui-agent/NOUNs/`` in the workspace. ``load`` makes the definition of a folder
    entry and its source, returns None to pass the entry over and raises DefinitionError to
    skip it with a reason; only the entries ``wanted`` picks count towards ``limit``;
    ``suffix`` follows an entry's name where a problem names it."""

    noun: str  # "skill", "agent"
    limit: int
    load: Callable[[os.DirEntry[str], str], T | None]
    wanted: Callable[[os.DirEntry[str]], bool] = _every
    suffix: str = ""

    def config_dir(self) -> Path:
        return config_dir() / f"{self.noun}s"

    def workspace_dir(self, workspace: Path) -> Path:
        return workspace / ".tui-agent" / f"{self.noun}s"

    def scan(self, folder: Path, source: str, shown: str) -> Found[T]:
        """The definitions of ``folder``'s entries, by name; ``shown`` names the folder in
        problems. An entry named as one before it is skipped."""
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return (), ()
        found: list[T] = []
        problems: list[str] = []
        for entry in entries:
            if not self.wanted(entry):
                continue
            if len(found) >= self.limit:
                problems.append(
                    f"{shown}: more than {self.limit} {self.noun}s; the rest are skipped"
                )
                break
            where = f"{shown}/{clean_text(entry.name)[:60]}{self.suffix}"
            try:
                definition = self.load(entry, source)
            except DefinitionError as exc:
                problems.append(f"{where} is skipped: {exc}")
                continue
            if definition is None:
                continue
            if any(d.name == definition.name for d in found):
                problems.append(
                    f"{where} is skipped: another {self.noun} is named {definition.name!r}"
                )
                continue
            found.append(definition)
        return tuple(found), tuple(problems)

    def config(self) -> Found[T]:
        return self.scan(self.config_dir(), "config", f"{self.noun}s")

    def workspace(self, workspace: Path) -> tuple[Found[T], Path | None]:
        """The workspace's definitions a config one of the same name does not hide; none, and
        the folder, when it leads outside the workspace (a symlink)."""
        folder = self.workspace_dir(workspace)
        if not inside_workspace(folder, workspace):
            return ((), ()), folder
        names = {d.name for d in self.config()[0]}
        found, problems = self.scan(folder, "workspace", f".tui-agent/{self.noun}s")
        return (tuple(d for d in found if d.name not in names), problems), None


def definitions_digest(definitions: Iterable[T], parts: Callable[[T], Iterable[str]]) -> str:
    """What trust binds: each definition's ``parts``, in name order."""
    digest = hashlib.sha256()
    for definition in sorted(definitions, key=lambda d: d.name):
        for part in parts(definition):
            digest.update(part.encode("utf-8", "backslashreplace") + b"\0")
        digest.update(b"\1")
    return digest.hexdigest()
