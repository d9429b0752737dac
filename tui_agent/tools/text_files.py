"""Text files: telling them from binary ones, and searching them with a regular expression.

Standard library only, because the search runs as its own process::

    python -I -S text_files.py REQUEST_JSON

Python's ``re`` holds the GIL while it matches, so a pattern with catastrophic backtracking
would freeze the whole app if run in a thread; a process can be killed. The worker writes one
``relpath:line: text`` line per match and, when it finishes, one summary line that starts with a
NUL character (which match lines never contain).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

SNIFF_BYTES = 8192
SKIPPED_DIR_NAMES = frozenset({".git", ".hg", ".svn"})
SUMMARY_PREFIX = "\0summary "
_MAX_LINE_BYTES = 64 * 1024
_SHOWN_LINE_CHARS = 300


def looks_binary(sample: bytes) -> bool:
    """True for data that is not UTF-8 text: a NUL byte, or mostly undecodable bytes."""
    if b"\0" in sample:
        return True
    text = sample.decode("utf-8", "replace")
    # The sample may end inside a multi-byte character: allow a few stray replacements.
    return text.count("\ufffd") > max(4, len(text) // 20)


def is_binary_file(handle: BinaryIO) -> bool:
    """Sniff the start of an open file, then rewind it."""
    sample = handle.read(SNIFF_BYTES)
    handle.seek(0)
    return looks_binary(sample)


class _Search:
    def __init__(self, request: dict[str, Any]) -> None:
        self.workspace = Path(request["workspace"])
        self.protected = [Path(p) for p in request["protected"]]
        self.max_matches: int = request["max_matches"]
        self.max_output: int = request["max_output_bytes"]
        self.deadline = time.monotonic() + request["time_limit_s"]
        self.pattern = re.compile(request["pattern"])
        self.matches = 0
        self.files_with_matches = 0
        self.skipped_binary = 0
        self.unreadable = 0
        self.output_bytes = 0
        self.stopped: str | None = None

    def run(self, root: Path) -> None:
        for path in self._files(root):
            if self._over_budget():
                return
            self._search_file(path)

    def summary(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "files_with_matches": self.files_with_matches,
            "skipped_binary": self.skipped_binary,
            "unreadable": self.unreadable,
            "stopped": self.stopped,
        }

    def _files(self, root: Path) -> Iterator[Path]:
        """Regular files under ``root`` in path order; never follows a symlink."""
        if root.is_file():
            yield root
            return
        stack: list[tuple[Path, bool]] = [(root, True)]
        while stack:
            path, is_dir = stack.pop()
            if not is_dir:
                yield path
                continue
            try:
                entries = sorted(os.scandir(path), key=lambda entry: entry.name, reverse=True)
            except OSError:
                self.unreadable += 1
                continue
            for entry in entries:
                child = Path(entry.path)
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIR_NAMES and not self._protected(child):
                        stack.append((child, True))
                elif entry.is_file(follow_symlinks=False):
                    stack.append((child, False))

    def _protected(self, path: Path) -> bool:
        return any(path.is_relative_to(p) for p in self.protected)

    def _over_budget(self) -> bool:
        if self.stopped is None and time.monotonic() > self.deadline:
            self.stopped = "time"
        return self.stopped is not None

    def _search_file(self, path: Path) -> None:
        try:
            with open(path, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return
                if is_binary_file(handle):
                    self.skipped_binary += 1
                    return
                self._search_lines(path, handle)
        except OSError:
            self.unreadable += 1

    def _search_lines(self, path: Path, handle: BinaryIO) -> None:
        shown = path.relative_to(self.workspace).as_posix()
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
