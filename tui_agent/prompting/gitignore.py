"""A walk of a folder that honours the .gitignore files in it, for workspaces that are not git
work trees (a git work tree is listed by git itself: ``file_index``).

The common part of gitignore's rules: blank lines and ``#`` comments, ``!`` negation, a
trailing ``/`` for folders only, a pattern with a ``/`` in it anchored to its .gitignore's
folder (else it matches a name at any depth below), ``*``, ``?``, ``[...]`` and ``**``. The
last rule that matches wins; an ignored folder is not entered. Symlinks are listed, never
followed; ``.git`` is never listed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Rule:
    base: str  # the folder of the .gitignore, relative ('' for the root), '/'-terminated
    pattern: re.Pattern[str]
    negate: bool
    folders_only: bool

    def matches(self, rel: str, is_folder: bool) -> bool:
        if self.folders_only and not is_folder:
            return False
        if not rel.startswith(self.base):
            return False
        return self.pattern.fullmatch(rel[len(self.base) :]) is not None


def _glob(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if text.startswith("/**", i) and i + 3 == len(text):
            out.append("/.*")
            i += 3
            continue
        if text.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = text.find("]", i + 2)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = text[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        elif char == "\\" and i + 1 < len(text):
            i += 1
            out.append(re.escape(text[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def parse_rules(text: str, base: str) -> list[Rule]:
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        regex = _glob(line) if anchored else "(?:.*/)?" + _glob(line)
        try:
            pattern = re.compile(regex, re.S)
        except re.error:
            continue
        rules.append(Rule(base, pattern, negate, folders_only))
    return rules


def ignored(rel: str, is_folder: bool, rules: list[Rule]) -> bool:
    for rule in reversed(rules):
        if rule.matches(rel, is_folder):
            return not rule.negate
    return False


def _read_ignore(folder: Path) -> str:
    try:
        fd = os.open(folder / ".gitignore", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as handle:
        return handle.read(1_000_000).decode("utf-8", "replace")


def walk_files(root: Path, most: int) -> list[str]:
    """Files (and symlinks) under ``root`` not ignored, relative and '/'-separated."""
    files: list[str] = []
    stack: list[tuple[str, list[Rule]]] = [("", [])]
    while stack and len(files) < most:
        rel_folder, inherited = stack.pop()
        folder = root / rel_folder if rel_folder else root
        own = parse_rules(_read_ignore(folder), rel_folder)
        rules = inherited + own if own else inherited
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        folders: list[str] = []
        for entry in entries:
            if entry.name == ".git":
                continue
            rel = rel_folder + entry.name
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if ignored(rel, is_folder, rules):
                continue
            if is_folder:
                folders.append(rel + "/")
            else:
                files.append(rel)
        stack.extend((f, rules) for f in reversed(folders))
    return files[:most]
