"""Snapshots of a workspace in a shadow git repository kept in the app's data folder.

Every git command runs through ``sandbox/app_git.py`` (a scrubbed environment, the system and
global configuration left out, every setting that can run a program overridden) with
``GIT_DIR`` (the shadow repository), ``GIT_WORK_TREE`` (the workspace) and ``GIT_INDEX_FILE``
(the shadow's own index) set, so the workspace's own ``.git`` is never read or written. The
shadow's ``info/attributes`` (``app_git.SHADOW_ATTRIBUTES``) outranks every ``.gitattributes``
of the workspace: no end-of-line conversion, ``ident``, filter or re-encoding, so a snapshot
stores each file's bytes exactly. A snapshot is the tree ``git add -A`` and ``git write-tree``
make: ``.gitignore`` files are honoured, symlinks are stored as links, never followed.
Not covered, and said so in the snapshot's notice: ignored files, files over the size limit,
nested repositories, empty folders; a tree of more files than the file-count limit is not
snapshotted at all.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from dataclasses import dataclass

from ..sandbox import app_git
from ..session.records import CapturedFile
from ..text.sizes import human_bytes
from .blobs import MissingBlobError
from .folder import CheckpointFolder

DEFAULT_MAX_FILES = 20_000
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
_SHOWN = 5  # skipped files named in a notice
_KINDS = {"100644": "file", "100755": "file", "120000": "symlink"}


class ShadowError(RuntimeError):
    """git is missing or failed; the message says which command and why."""


@dataclass(frozen=True, slots=True)
class Limits:
    max_files: int = DEFAULT_MAX_FILES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True, slots=True)
class Snapshot:
    tree: str | None  # None: not taken (over the file-count limit)
    notice: str  # what is not covered
    modes: str | None = None  # the blob (sha256) of the exact modes git does not keep


def _escape(path: str) -> str:
    """A path as a gitignore pattern that matches exactly it (anchored at the root)."""
    special = "\\*?[!# "
    return "/" + "".join("\\" + c if c in special else c for c in path)


class ShadowRepo:
    def __init__(self, folder: CheckpointFolder, limits: Limits | None = None) -> None:
        self.folder = folder
        self.limits = limits or Limits()

    def _env(self, tree: bool) -> dict[str, str]:
        env = {
            "GIT_DIR": str(self.folder.shadow),
            "GIT_INDEX_FILE": str(self.folder.shadow / "index"),
        }
        if tree:
            env["GIT_WORK_TREE"] = str(self.folder.workspace)
        return env

    def git(self, *args: str, data: bytes | None = None, tree: bool = True) -> bytes:
        try:
            done = app_git.run(
                args,
                workspace=self.folder.workspace,
                cwd=self.folder.workspace if tree else self.folder.path,
                env=self._env(tree),
                data=data,
            )
        except app_git.GitMissingError:
            raise ShadowError("git is not installed: commands cannot be checkpointed") from None
        except (OSError, subprocess.SubprocessError) as exc:
            raise ShadowError(f"git {args[0]} failed: {exc}") from None
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ShadowError(f"git {args[0]} failed: {why[-1] if why else done.returncode}")
        return done.stdout

    def _init(self) -> None:
        if not (self.folder.shadow / "HEAD").exists():
            self.folder.ensure()
            self.git("init", "-q", "--bare", tree=False)
            for key, value in (
                ("core.autocrlf", "false"),
                ("core.safecrlf", "false"),
                ("core.symlinks", "true"),
                ("core.fsmonitor", "false"),
                ("gc.auto", "0"),
            ):
                self.git("config", key, value)
        # Bytes are stored exactly: this file outranks every .gitattributes of the workspace
        # (also in a shadow made before it was written).
        info = self.folder.shadow / "info"
        attributes = info / "attributes"
        try:
            current = attributes.read_text(encoding="utf-8")
        except OSError:
            current = ""
        if current != app_git.SHADOW_ATTRIBUTES:
            info.mkdir(exist_ok=True)
            attributes.write_text(app_git.SHADOW_ATTRIBUTES, encoding="utf-8")
            # The index holds blobs made under the old attributes, with stat data that says
            # "unchanged": without it the next snapshot hashes every file again, as bytes.
            (self.folder.shadow / "index").unlink(missing_ok=True)

    def snapshot(self) -> Snapshot:
        """The workspace as a tree of the shadow repository (call under the folder's lock)."""
        self._init()
        # The last snapshot's exclusions go first: left in info/exclude they would hide its
        # large files from the listing below, so they would be neither measured nor excluded
        # again, and ``add -A`` would take them in whatever their size.
        exclude = self.folder.shadow / "info" / "exclude"
        if exclude.exists():
            exclude.write_text("", encoding="utf-8")
        listed = self.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        paths = dict.fromkeys(listed.decode("utf-8", "surrogateescape").split("\0"))
        paths.pop("", None)
        nested = [p for p in paths if p.endswith("/")]  # repositories inside the workspace
        files = [p for p in paths if not p.endswith("/")]
        if len(files) > self.limits.max_files:
            return Snapshot(
                None,
                f"not checkpointed: the workspace has {len(files):,} files that .gitignore does "
                f"not exclude, over the limit of {self.limits.max_files:,}",
            )
        root = str(self.folder.workspace) + os.sep
        large = []
        modes: dict[str, int] = {}  # git keeps 644 or 755 only; the other modes are kept here
        limit, lstat, is_link = self.limits.max_file_bytes, os.lstat, stat.S_ISLNK
        for rel in files:
            try:
                info = lstat(root + rel)
            except OSError:
                continue
            mode = info.st_mode
            if is_link(mode):
                continue
            if info.st_size > limit:
                large.append(rel)
            bits = mode & 0o7777
            if bits != 0o644 and bits != 0o755 and bits != (0o755 if bits & 0o100 else 0o644):
                modes[rel] = bits
        excluded = [p.rstrip("/") + "/" for p in nested] + large
        info_dir = self.folder.shadow / "info"
        info_dir.mkdir(exist_ok=True)
        (info_dir / "exclude").write_text(
            "".join(_escape(p) + "\n" for p in excluded), encoding="utf-8", errors="surrogateescape"
        )
        if large:
            data = b"".join(os.fsencode(p) + b"\0" for p in large)
            self.git("update-index", "-z", "--force-remove", "--stdin", data=data)
        self.git("add", "-A", "--ignore-errors")
        tree = self.git("write-tree").decode().strip()
        extra = {"modes": modes, "excluded": excluded}
        kept = self.folder.blobs.put(json.dumps(extra).encode()) if modes or excluded else None
        return Snapshot(tree, _notice(large, nested, self.limits), kept)

    def _extra(self, blob: str | None) -> tuple[dict[str, int], list[str]]:
        """A snapshot's exact modes and the paths it left out (large files, nested repos)."""
        if not blob:
            return {}, []
        try:
            found = json.loads(self.folder.blobs.read(blob))
            return dict(found["modes"]), list(found["excluded"])
        except (MissingBlobError, ValueError, KeyError, TypeError, RecursionError):
            return {}, []

    def changes(
        self, before: str, after: str, modes: tuple[str | None, str | None] = (None, None)
    ) -> list[tuple[CapturedFile, CapturedFile]]:
        """Each path that differs between two trees: its state in each (``modes``: each
        tree's blob of exact modes)."""
        (old_modes, old_out), (new_modes, new_out) = self._extra(modes[0]), self._extra(modes[1])
        out = self.git("diff-tree", "-r", "-z", "--no-renames", before, after)
        fields = out.split(b"\0")
        found = []
        for at in range(0, len(fields) - 1, 2):
            head, raw_path = fields[at], fields[at + 1]
            if not head.startswith(b":"):
                break
            old_mode, new_mode, old_sha, new_sha, _status = head[1:].decode().split(" ")
            rel = raw_path.decode("utf-8", "surrogateescape")
            old = _state(rel, old_mode, old_sha, old_modes.get(rel))
            new = _state(rel, new_mode, new_sha, new_modes.get(rel))
            # Missing from a tree because the snapshot left it out: its state is unknown there.
            if old.kind == "missing" and _left_out(rel, old_out):
                old = CapturedFile(path=rel, kind="uncovered")
            if new.kind == "missing" and _left_out(rel, new_out):
                new = CapturedFile(path=rel, kind="uncovered")
            found.append((old, new))
        return found

    def read_blobs(self, shas: list[str]) -> dict[str, bytes]:
        """The content of each blob, by id (``git cat-file --batch``)."""
        if not shas:
            return {}
        out = self.git("cat-file", "--batch", data="".join(s + "\n" for s in shas).encode())
        found: dict[str, bytes] = {}
        at = 0
        while at < len(out):
            end = out.index(b"\n", at)
            header = out[at:end].decode().split(" ")
            if len(header) != 3:  # "<sha> missing"
                at = end + 1
                continue
            size = int(header[2])
            found[header[0]] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found


def _left_out(rel: str, excluded: list[str]) -> bool:
    return any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in excluded)


def _state(rel: str, mode: str, sha: str, exact: int | None = None) -> CapturedFile:
    if mode == "000000":
        return CapturedFile(path=rel, kind="missing")
    kind = _KINDS.get(mode)
    if kind is None:  # a nested repository's commit
        return CapturedFile(path=rel, kind="other")
    bits = 0o777 if kind == "symlink" else (0o755 if mode == "100755" else 0o644)
    if exact is not None and kind == "file" and bool(exact & 0o100) == (mode == "100755"):
        bits = exact
    return CapturedFile(path=rel, kind=kind, mode=bits, digest=f"git:{sha}")  # type: ignore[arg-type]


def _notice(large: list[str], nested: list[str], limits: Limits) -> str:
    parts = []
    if large:
        more = f" and {len(large) - _SHOWN} more" if len(large) > _SHOWN else ""
        names = ", ".join(large[:_SHOWN]) + more
        parts.append(f"{len(large)} file(s) over {human_bytes(limits.max_file_bytes)} ({names})")
    if nested:
        names = ", ".join(p.rstrip("/") for p in nested[:_SHOWN])
        plural = "y" if len(nested) == 1 else "ies"
        parts.append(f"{len(nested)} nested repositor{plural} ({names})")
    return "not covered: " + "; ".join(parts) if parts else ""
