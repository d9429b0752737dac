"""Text files: telling them from binary ones, opening them under the workspace without following
a symlink, and searching them with a regular expression.

Standard library only, because the search runs as its own process::

    python -I -S text_files.py REQUEST_JSON

Python's ``re`` holds the GIL while it matches, so a pattern with catastrophic backtracking
would freeze the whole app if run in a thread; a process can be killed. The worker writes one
``relpath:line: text`` line per match and, when it finishes, one summary line that starts with a
NUL character (which match lines never contain).

The search walks by directory file descriptors and opens every entry with ``O_NOFOLLOW``, so a
folder or file swapped for a symlink while it runs is refused, never followed out of the
workspace. A file with more than one hard link is skipped and counted: another of its names may be
outside the workspace (see ``file_access``).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

SNIFF_BYTES = 8192
SKIPPED_DIR_NAMES = frozenset({".git", ".hg", ".svn"})
SUMMARY_PREFIX = "\0summary "
WORKER_SCRIPT = Path(__file__)  # search_text runs this file as its own process
_MAX_LINE_BYTES = 64 * 1024
_SHOWN_LINE_CHARS = 300
# Deeper folders are counted as unreadable rather than walked (one open descriptor per level).
_MAX_DEPTH = 200
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def looks_binary(sample: bytes) -> bool:
    """True for data that is not UTF-8 text: a NUL byte, or mostly undecodable bytes."""
    if b"\0" in sample:
        return True
    text = sample.decode("utf-8", "replace")
    # The sample may end inside a multi-byte character: allow a few stray replacements.
    return text.count("\ufffd") > max(4, len(text) // 20)


def open_folder_beneath(root: str, parts: Sequence[str]) -> int:
    """A descriptor of the folder ``root/parts...``, reached one component at a time with
    ``O_NOFOLLOW``: a component that is (or has just become) a symlink raises ``OSError``
    instead of being followed. ``root`` itself is trusted; ``parts`` hold no ``..``."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            inner = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def is_binary_file(handle: BinaryIO) -> bool:
    """Sniff the start of an open file, then rewind it."""
    sample = handle.read(SNIFF_BYTES)
    handle.seek(0)
    return looks_binary(sample)


class _Search:
    def __init__(self, request: dict[str, Any]) -> None:
        self.workspace = Path(request["workspace"])
        self.protected = [Path(p) for p in request["protected"]]
        self.unprotected = [Path(p) for p in request.get("unprotected", ())]
        self.max_matches: int = request["max_matches"]
        self.max_output: int = request["max_output_bytes"]
        self.deadline = time.monotonic() + request["time_limit_s"]
        self.pattern = re.compile(request["pattern"])
        self.matches = 0
        self.files_with_matches = 0
        self.skipped_binary = 0
        self.unreadable = 0
        self.hard_linked = 0
        self.output_bytes = 0
        self.stopped: str | None = None

    def run(self, root: Path) -> None:
        parts = root.relative_to(self.workspace).parts
        try:
            if not parts:
                folder = open_folder_beneath(str(self.workspace), ())
                try:
                    self._search_folder(folder, "", 0)
                finally:
                    os.close(folder)
                return
            parent = open_folder_beneath(str(self.workspace), parts[:-1])
            try:
                self._search_root(parent, parts[-1], "/".join(parts))
            finally:
                os.close(parent)
        except OSError:
            self.unreadable += 1

    def summary(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "files_with_matches": self.files_with_matches,
            "skipped_binary": self.skipped_binary,
            "unreadable": self.unreadable,
            "hard_linked": self.hard_linked,
            "stopped": self.stopped,
        }

    def _search_root(self, parent: int, name: str, shown: str) -> None:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode):
            self._search_file(parent, name, shown)
        elif stat.S_ISDIR(mode):
            folder = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
            try:
                self._search_folder(folder, shown, 0)
            finally:
                os.close(folder)

    def _search_folder(self, folder: int, shown: str, depth: int) -> None:
        """Regular files under ``folder`` in path order; never follows a symlink."""
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
        for entry in entries:
            if self._over_budget():
                return
            child = f"{shown}/{entry.name}" if shown else entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_DIR_NAMES or self._protected(child):
                    continue
                if depth >= _MAX_DEPTH:
                    self.unreadable += 1
                    continue
                try:
                    inner = os.open(entry.name, _FOLDER_FLAGS, dir_fd=folder)
                except OSError:
                    self.unreadable += 1
                    continue
                try:
                    self._search_folder(inner, child, depth + 1)
                except OSError:
                    self.unreadable += 1
                finally:
                    os.close(inner)
            elif entry.is_file(follow_symlinks=False):
                self._search_file(folder, entry.name, child)

    def _protected(self, shown: str) -> bool:
        path = self.workspace / shown
        if any(path.is_relative_to(p) for p in self.unprotected):
            return False
        return any(path.is_relative_to(p) for p in self.protected)

    def _over_budget(self) -> bool:
        if self.stopped is None and time.monotonic() > self.deadline:
            self.stopped = "time"
        return self.stopped is not None

    def _search_file(self, folder: int, name: str, shown: str) -> None:
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=folder)
        except OSError:
            self.unreadable += 1
            return
        try:
            with open(fd, "rb") as handle:
                status = os.fstat(handle.fileno())
                if not stat.S_ISREG(status.st_mode):
                    return
                if status.st_nlink > 1:
                    self.hard_linked += 1
                    return
                if is_binary_file(handle):
                    self.skipped_binary += 1
                    return
                self._search_lines(shown, handle)
        except OSError:
            self.unreadable += 1

    def _search_lines(self, shown: str, handle: BinaryIO) -> None:
        line_number = 1
        found_here = False
        while raw := handle.readline(_MAX_LINE_BYTES):
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            match = self.pattern.search(text)
            if match is not None:
                found_here = True
                self._emit(f"{shown}:{line_number}: {_excerpt(text, match.start())}\n")
            if raw.endswith(b"\n"):
                line_number += 1
            if self._over_budget():
                break
        self.files_with_matches += found_here

    def _emit(self, line: str) -> None:
        encoded = line.encode("utf-8", "backslashreplace")
        if self.matches >= self.max_matches:
            self.stopped = "matches"
            return
        if self.output_bytes + len(encoded) > self.max_output:
            self.stopped = "output"
            return
        self.matches += 1
        self.output_bytes += len(encoded)
        sys.stdout.buffer.write(encoded)
        # Flushed per match so that a search killed mid-pattern still returns what it found.
        sys.stdout.buffer.flush()


def _excerpt(text: str, start: int) -> str:
    text = text.replace("\0", "")
    if len(text) <= _SHOWN_LINE_CHARS:
        return text
    begin = max(0, min(start - 50, len(text) - _SHOWN_LINE_CHARS))
    prefix = "…" if begin else ""
    suffix = "…" if begin + _SHOWN_LINE_CHARS < len(text) else ""
    return prefix + text[begin : begin + _SHOWN_LINE_CHARS] + suffix


def main(argv: list[str]) -> int:
    """Run one search request (JSON in ``argv[1]``) and print matches and a summary line."""
    request = json.loads(argv[1])
    try:
        search = _Search(request)
    except re.error as exc:
        summary: dict[str, Any] = {"error": f"invalid regular expression: {exc}"}
    else:
        search.run(Path(request["root"]))
        summary = search.summary()
    sys.stdout.buffer.write((SUMMARY_PREFIX + json.dumps(summary) + "\n").encode())
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
