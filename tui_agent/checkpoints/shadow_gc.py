"""Removing the shadow repository's objects no session keeps, the git way.

A snapshot is a tree no ref names (``write-tree``), so what is kept is said with one ref:
``refs/tui-agent/keep`` names a tree (``mktree``) whose entries are every kept snapshot and
every other kept object. Then ``git gc --prune=<cutoff>`` drops the rest: git's own grace
period spares what was written (or written again) after the cutoff, which covers a snapshot
whose record is not in its session yet. The repository's index (the last snapshot's state) is
kept by git as well. Only the shadow repository is touched, never the workspace or its ``.git``
(every command here runs without a work tree).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .shadow import ShadowRepo

KEEP_REF = "refs/tui-agent/keep"
_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ENTRY = {"tree": "040000 tree", "blob": "100644 blob"}


class ShadowGc:
    def __init__(self, repo: ShadowRepo) -> None:
        self.repo = repo
        self.objects = repo.folder.shadow / "objects"

    def exists(self) -> bool:
        return (self.repo.folder.shadow / "HEAD").exists()

    def _git(self, *args: str, data: bytes | None = None) -> bytes:
        return self.repo.git(*args, data=data, tree=False)

    def present(self, ids: Iterable[str]) -> dict[str, str]:
        """Which of ``ids`` the repository holds, with their types."""
        wanted = sorted({i for i in ids if _ID.fullmatch(i)})
        if not wanted:
            return {}
        out = self._git(
            "cat-file",
            "--batch-check=%(objectname) %(objecttype)",
            data="".join(i + "\n" for i in wanted).encode(),
        )
        found = {}
        for line in out.decode().splitlines():
            name, _, kind = line.partition(" ")
            if kind != "missing" and _ID.fullmatch(name):
                found[name] = kind
        return found

    def unneeded(self, keep: Iterable[str], cutoff: float) -> tuple[int, int]:
        """How many objects a ``collect(keep, cutoff)`` would remove, and their size on disk (at
        least what it frees: packing what stays can free more)."""
        kept = sorted(self.present(keep))
        listed = self._git(
            "rev-list", "--objects", "--no-object-names", "--indexed-objects",
            f"--exclude={KEEP_REF}", "--all", "--stdin",
            data="".join(i + "\n" for i in kept).encode(),
        )  # fmt: skip
        reachable = set(listed.decode().split())
        current = self._git("for-each-ref", "--format=%(objectname)", KEEP_REF).decode().split()
        reachable.update(current)  # the old list itself: replaced, not counted
        everything = self._git(
            "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize:disk)"
        )
        packs = [p.stat().st_mtime for p in (self.objects / "pack").glob("*.pack")]
        packed = max(packs, default=0.0)
        count = size = 0
        for line in everything.decode().splitlines():
            name, _, disk = line.partition(" ")
            if name in reachable:
                continue
            try:
                loose = (self.objects / name[:2] / name[2:]).stat()
                when, taken = loose.st_mtime, 512 * loose.st_blocks  # its own file, as du counts
            except FileNotFoundError:
                when, taken = packed, int(disk or 0)  # its bytes in a pack
            if when < cutoff:
                count += 1
                size += taken
        return count, size

    def collect(self, keep: Iterable[str], cutoff: float) -> None:
        """Keep ``keep`` (and what is newer than ``cutoff``); remove every other object."""
        kinds = self.present(keep)
        entries = "".join(
            f"{_ENTRY[kind]} {name}\t{name}\n"
            for name, kind in sorted(kinds.items())
            if kind in _ENTRY
        )
        if entries:
            listing = self._git("mktree", data=entries.encode()).decode().strip()
            self._git("update-ref", KEEP_REF, listing)
        else:
            self._git("update-ref", "-d", KEEP_REF)
        self._git("reflog", "expire", "--expire=now", "--all")
        self._git("gc", "--quiet", f"--prune=@{int(cutoff)}")
