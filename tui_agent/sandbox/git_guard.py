"""The workspace's git folders stay read-only to a command in workspace-write mode (as in Codex).

A command that could write ``.git/config`` or ``.git/hooks`` would leave code that the person's
next ``git commit`` (or any git of theirs in the workspace) runs, outside the sandbox. So the
workspace's repository is protected:

- **What**: ``.git`` at the workspace's top (a folder, or a ``.git`` file and the git folder it
  names when that lies in the workspace: a worktree, ``--separate-git-dir``), and the same one
  level down (``sub/.git``: nested repositories at the top). A git folder outside the
  workspace is not writable anyway. A ``.git`` the command itself creates is not protected (it
  is its own).
- **With namespaces** (the command has a mount namespace of its own): each is bind-mounted over
  itself read-only before Landlock is applied; writes fail with "Read-only file system", the
  mount cannot be renamed, removed or undone (Landlock refuses mount and umount to the command),
  and the rest of the workspace is as writable as before.
- **With Landlock alone**: Landlock only grants, and a grant on a folder covers all beneath it,
  so the workspace is granted entry by entry, leaving the git folders out (``rules.py``, as for a
  denied path inside the workspace). The cost: new files and folders directly in the workspace's
  top folder (or the nested repository's parent) are refused; those below, and every existing
  file, stay writable.
- Either way git commands that write (``git add``, ``commit``, ``checkout``) fail inside the
  sandbox; reading ones (``status``, ``diff``, ``log``) work.
"""

from __future__ import annotations

import ctypes
import os
import stat

_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_MS_NOATIME = 1024
_MS_NODIRATIME = 2048
_MS_RELATIME = 1 << 21
# statvfs f_flag bits -> the mount flags a read-only remount must keep (clearing a flag the
# outer namespace set is refused).
_KEPT = (
    (os.ST_NOSUID, _MS_NOSUID),
    (os.ST_NODEV, _MS_NODEV),
    (os.ST_NOEXEC, _MS_NOEXEC),
    (os.ST_NOATIME, _MS_NOATIME),
    (os.ST_NODIRATIME, _MS_NODIRATIME),
    (os.ST_RELATIME, _MS_RELATIME),
)
_MAX_TOP_ENTRIES = 10_000  # nested repositories are looked for in at most this many entries

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_void_p,
]


class GitGuardError(OSError):
    """A git folder could not be made read-only: the command must not run."""


def git_folders(workspace: str) -> tuple[str, ...]:
    """The real paths to keep read-only: the git folders (and ``.git`` files) of the workspace's
    repository and of those one level down, where they lie inside the workspace."""
    root = os.path.realpath(workspace)
    found: list[str] = []
    _add_repo(root, root, found)
    try:
        with os.scandir(root) as entries:
            for n, entry in enumerate(entries):
                if n >= _MAX_TOP_ENTRIES:
                    break
                if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                    _add_repo(entry.path, root, found)
    except OSError:
        pass
    return tuple(found)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def _add_repo(folder: str, root: str, found: list[str]) -> None:
    dot_git = os.path.join(folder, ".git")
    try:
        info = os.lstat(dot_git)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode):
        _add(dot_git, root, found)
        target = _gitdir_of(dot_git)
        if target:
            _add(target, root, found)
            common = _common_dir(target)
            if common:
                _add(common, root, found)
    elif stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode):
        _add(os.path.realpath(dot_git), root, found)


def _add(path: str, root: str, found: list[str]) -> None:
    real = os.path.realpath(path)
    if _inside(real, root) and real != root and real not in found and os.path.exists(real):
        found.append(real)


def _gitdir_of(dot_git_file: str) -> str:
    """The folder a ``.git`` file names (``gitdir: PATH``, relative to the file's folder)."""
    try:
        with open(dot_git_file, "rb") as handle:
            line = handle.read(4096).split(b"\n", 1)[0].strip()
    except OSError:
        return ""
    if not line.startswith(b"gitdir:"):
        return ""
    named = os.fsdecode(line[len(b"gitdir:") :].strip())
    return os.path.join(os.path.dirname(dot_git_file), named) if named else ""


def _common_dir(gitdir: str) -> str:
    """A worktree's git folder names the repository's shared one in ``commondir``."""
    try:
        with open(os.path.join(gitdir, "commondir"), "rb") as handle:
            named = os.fsdecode(handle.read(4096).strip())
    except OSError:
        return ""
    return os.path.join(gitdir, named) if named else ""


def bind_read_only(paths: tuple[str, ...]) -> None:
    """In the command's own mount namespace (before Landlock): each path mounted over itself,
    read-only. Raises GitGuardError."""
    if not paths:
        return
    _mount(None, b"/", _MS_REC | _MS_PRIVATE, "keep mounts private")
    for path in paths:
        target = os.fsencode(path)
        try:
            kept = os.statvfs(path).f_flag
        except FileNotFoundError:
            continue  # gone since it was listed
        except OSError as exc:
            raise GitGuardError(exc.errno or 0, f"cannot look at {path}: {exc.strerror}") from None
        _mount(target, target, _MS_BIND | _MS_REC, f"bind {path}")
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY
        for bit, flag in _KEPT:
            if kept & bit:
                flags |= flag
        _mount(None, target, flags, f"make {path} read-only")


def _mount(source: bytes | None, target: bytes, flags: int, step: str) -> None:
    if _libc.mount(source, target, None, flags, None) != 0:
        errno = ctypes.get_errno()
        raise GitGuardError(errno, f"cannot {step}: {os.strerror(errno)}")
