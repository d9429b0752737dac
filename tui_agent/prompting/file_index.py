"""The workspace's files for @mentions: listed once in the background, searched fast.

Listing: in a git work tree, ``git ls-files --cached --others --exclude-standard`` (what git
would show: .gitignore, .git/info/exclude and the default global excludes file honoured; run by
``sandbox/app_git.py``, which no setting of the workspace's can make run a program); elsewhere
a walk that honours the .gitignore files it meets (``gitignore.py``). Symlinks are listed, never
followed; the .git folder and the app's own folders are left out. ``FileIndex.search`` works on
the list as it was last built and starts a rebuild in a thread when it is older than
``max_age`` seconds, so a query never waits for the file system.

Search: all the paths, lowercased, are kept in one newline-separated string, so the scan runs
in the regex engine: first paths holding the query as it is (the file name's own matches
first, then shorter paths), then, if too few, paths holding its characters in order.
"""

from __future__ import annotations

import bisect
import collections
import functools
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from ..sandbox import SandboxMode, SandboxPolicy, app_git, confinement, detect
from .gitignore import walk_files

MAX_FILES = 500_000
GIT_TIMEOUT_S = 20.0
_CANDIDATES = 1000  # matches ranked at most (a short query: the first ones in list order)


def list_files(workspace: Path, leave_out: Iterable[Path] = ()) -> list[str]:
    """The workspace's files, relative and '/'-separated."""
    files = _git_files(workspace)
    if files is None:
        files = walk_files(workspace, MAX_FILES)
    skip = [_relative(Path(p), workspace) for p in leave_out]
    skip = [s for s in skip if s]
    if skip:
        files = [f for f in files if not any(f == s or f.startswith(s + "/") for s in skip)]
    return files[:MAX_FILES]


def _relative(path: Path, workspace: Path) -> str:
    try:
        rel = Path(os.path.realpath(path)).relative_to(os.path.realpath(workspace))
    except ValueError:
        return ""
    return rel.as_posix() if rel.parts else ""


def _git_files(workspace: Path) -> list[str] | None:
    """``git ls-files`` run the app's way (``sandbox/app_git.py``: nothing the workspace's
    ``.git`` holds, fsmonitor, hooks..., can make it run a program), and inside the read-only
    sandbox where this machine has Landlock: should git still run something, that cannot write
    or reach the network. A sandbox that cannot be set up fails the call: the walk lists then."""
    caps = detect()
    # Without Landlock nothing would be confined (and elsewhere than Linux no setup can work).
    mode = SandboxMode.READ_ONLY if caps.landlock_abi else SandboxMode.OFF
    policy = SandboxPolicy(mode=mode)
    try:
        with confinement(policy, workspace) as launch:
            done = app_git.run(
                ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                workspace=workspace,
                cwd=workspace,
                env=launch.env,
                timeout=GIT_TIMEOUT_S,
                preexec=launch.preexec,
            )
    except (OSError, subprocess.SubprocessError, app_git.GitMissingError):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    seen: set[str] = set()
    files: list[str] = []
    for name in names:  # a conflicted file is listed once per stage
        if name and name not in seen and "\n" not in name:
            seen.add(name)
            files.append(name)
    return files


class PathSearch:
    """Paths searched by substring, then by characters in order (a fuzzy match: over the file
    names, or over whole paths when the query holds a '/'). A query that extends the previous
    one (typing) searches only what the previous one found, when that was complete."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = [p for p in paths if "\n" not in p]
        lowered = [p.lower() for p in self.paths]
        self._paths = _Lines(lowered)
        self._names = _Lines([p.rsplit("/", 1)[-1] for p in lowered])
        self._last: tuple[str, PathSearch] | None = None

    def __len__(self) -> int:
        return len(self.paths)

    def search(self, query: str, limit: int = 50) -> list[str]:
        query = query.strip().lower().replace("\n", "")
        if not query:
            head = self.paths[: limit * 20]
            return sorted(head, key=lambda p: (p.count("/"), len(p), p))[:limit]
        if self._last is not None and query.startswith(self._last[0]):
            return self._last[1].search(query, limit)  # the narrower set holds every match
        found = self._paths.substring(query, _CANDIDATES)
        ranked = sorted(found, key=lambda i: _rank(self.paths[i].lower(), query))
        result = [self.paths[i] for i in ranked[:limit]]
        more: list[int] = []
        if len(result) < limit and len(query) > 1:
            lines = self._paths if "/" in query else self._names
            have = set(found)
            more = [i for i in lines.fuzzy(query, _CANDIDATES) if i not in have]
            more.sort(key=lambda i: _fuzzy_rank(self.paths[i].lower(), query))
            result += [self.paths[i] for i in more[: limit - len(result)]]
        # Every match of a longer query is among these: keep them for the next keystroke.
        complete = len(result) < limit and len(more) < _CANDIDATES and "/" not in query
        self._last = (
            (query, PathSearch([self.paths[i] for i in found + more])) if complete else None
        )
        return result


class _Lines:
    """Strings kept between newlines in one text (one before the first too), searched by the
    regex engine and ``str.find`` instead of a Python loop over the strings."""

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n" + "\n".join(lines) + "\n"
        self.starts: list[int] = []
        at = 1
        for line in lines:
            self.starts.append(at)
            at += len(line) + 1
        self.counts = collections.Counter(self.text)  # how often each character occurs

    def _line_of(self, at: int) -> int:
        return bisect.bisect_right(self.starts, at) - 1

    def _next_line(self, line: int) -> int:
        return self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)

    def substring(self, query: str, most: int) -> list[int]:
        """Lines holding ``query``, one hit per line."""
        found: list[int] = []
        at = self.text.find(query)
        while at >= 0 and len(found) < most:
            line = self._line_of(at)
            found.append(line)
            at = self.text.find(query, self._next_line(line))
        return found

    def fuzzy(self, query: str, most: int) -> list[int]:
        """Lines holding ``query``'s characters in order. Each line is tried once, from its
        start; each character is taken at its first place after the one before (always the best
        choice) with possessive classes, so a line that fails costs one pass, no backtracking."""
        rarest = min(query, key=lambda c: self.counts.get(c, 0))
        if not self.counts.get(rarest):
            return []
        parts = ["\n"]
        for char in query:
            parts.append(f"[^\\n{re.escape(char)}]*+{re.escape(char)}")
        pattern = _compiled("".join(parts))
        if self.counts[rarest] * 8 < len(self.starts):
            return self._fuzzy_among(pattern, self.substring(rarest, len(self.starts)), most)
        found: list[int] = []
        match = pattern.search(self.text)
        while match is not None and len(found) < most:
            line = self._line_of(match.start() + 1)
            found.append(line)
            match = pattern.search(self.text, self._next_line(line) - 1)
        return found

    def _fuzzy_among(self, pattern: re.Pattern[str], lines: list[int], most: int) -> list[int]:
        """Only the lines holding the query's rarest character are tried."""
        found: list[int] = []
        for line in lines:
            if pattern.match(self.text, self.starts[line] - 1):
                found.append(line)
                if len(found) >= most:
                    break
        return found


@functools.lru_cache(maxsize=256)
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


def _rank(path: str, query: str) -> tuple[int, int, int]:
    name = path.rsplit("/", 1)[-1]
    in_name = 0 if name.startswith(query) else 1 if query in name else 2
    return in_name, len(path), path.count("/")


def _fuzzy_rank(path: str, query: str) -> tuple[int, int]:
    """Tighter matches first: the span the query's characters cover, then the path's length."""
    start = path.find(query[0])
    at = start
    for char in query[1:]:
        at = path.find(char, at + 1)
    return at - start, len(path)


class FileIndex:
    """A workspace's file list, built and refreshed in a background thread."""

    def __init__(
        self, workspace: Path, leave_out: Iterable[Path] = (), max_age: float = 10.0
    ) -> None:
        self.workspace = workspace
        self.leave_out = tuple(leave_out)
        self.max_age = max_age
        self._search = PathSearch([])
        self._built_at: float | None = None
        self._lock = threading.Lock()
        self._building: threading.Thread | None = None
        self.ready = threading.Event()
        self.generation = 0  # how many builds finished: a new one means a fresher list

    def refresh(self) -> None:
        """Start a rebuild unless one runs already."""
        with self._lock:
            if self._building is not None and self._building.is_alive():
                return
            self._building = threading.Thread(target=self._build, name="file-index", daemon=True)
            self._building.start()

    def _build(self) -> None:
        try:
            search = PathSearch(list_files(self.workspace, self.leave_out))
        except OSError:
            search = PathSearch([])
        self._search = search
        self._built_at = time.monotonic()
        self.generation += 1
        self.ready.set()

    def age(self) -> float | None:
        """Seconds since the list was last built (None: never)."""
        return None if self._built_at is None else time.monotonic() - self._built_at

    def search(self, query: str, limit: int = 50) -> list[str]:
        built = self._built_at
        if built is None or time.monotonic() - built > self.max_age:
            self.refresh()
        return self._search.search(query, limit)

    def __len__(self) -> int:
        return len(self._search)
