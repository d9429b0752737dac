"""The workspace's git folders stay read-only to a command in workspace-write mode (as in Codex).

A command that could write ``.git/config`` or ``.git/hooks`` would leave code that the person's
next ``git commit`` (or any git of theirs in the workspace) runs, outside the sandbox. So the
workspace's repository is protected:

- **What**: ``.git`` at the workspace's top (a folder, or a ``.git`` file and the git folder it
  names when that lies in the workspace: a worktree, ``--separate-git-dir``), and the same one
  level down (``sub/.git``: nested repositories at the top); the hooks folder
  ``core.hooksPath`` names (in the repository's config or yours: ``.githooks``, husky's
  ``.husky/_``), a file the repository's config includes (``include.path``,
  ``includeIf.*.path``, one level) and a file a config names as a program (``core.fsmonitor =
  ./tools/watch``, an alias, a filter or diff driver: see ``_PROGRAM_KEYS``), when they lie in
  the workspace. A git folder outside the
  workspace is not writable anyway. A ``.git`` that is a symlink: its target as above, and the
  link itself by Landlock's rules (a mount would follow it), with their cost (below). Not
  protected: a ``.git`` the command itself creates (it is its own), and the tracked files a
  hook of yours reads (``.pre-commit-config.yaml``, ``.husky/pre-commit``): those are workspace
  files like any other, and a change shows in ``git status``.
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
import re
import stat
import subprocess
from pathlib import Path

from .app_git import GitMissingError
from .app_git import run as run_git

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
    return guarded_paths(workspace)[0]


def guarded_paths(workspace: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``git_folders``, and the ``.git`` entries that are symlinks: a mount cannot cover a link
    (it follows it), so those are kept by Landlock's rules (the link's folder is then granted
    entry by entry), namespaces or not."""
    root = os.path.realpath(workspace)
    found: list[str] = []
    links: list[str] = []
    _add_repo(root, root, found, links)
    try:
        with os.scandir(root) as entries:
            for n, entry in enumerate(entries):
                if n >= _MAX_TOP_ENTRIES:
                    break
                if entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                    _add_repo(entry.path, root, found, links)
    except OSError:
        pass
    return tuple(found), tuple(links)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def _add_repo(folder: str, root: str, found: list[str], links: list[str]) -> None:
    dot_git = os.path.join(folder, ".git")
    try:
        info = os.lstat(dot_git)
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode):
        links.append(dot_git)
    gitdir = os.path.realpath(dot_git)
    common = ""
    if stat.S_ISREG(info.st_mode):
        _add(dot_git, root, found)
        gitdir = os.path.realpath(_gitdir_of(dot_git) or dot_git)
        if gitdir != os.path.realpath(dot_git):
            _add(gitdir, root, found)
            common = _common_dir(gitdir)
            if common:
                _add(common, root, found)
    elif stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode):
        _add(gitdir, root, found)
    else:
        return
    hooks = _hooks_path(folder, (gitdir, common), root)
    if hooks and os.path.isdir(hooks):
        _add(hooks, root, found)
    configs = {os.path.join(d, n) for d in (gitdir, common) if d for n in _CONFIG_FILES}
    for config in sorted(configs):
        for included in _includes(config, folder, root):
            if os.path.isfile(included):
                _add(included, root, found)
    for config in (*sorted(configs), _personal_config()):
        for program in _programs(config, folder, root):
            _add(program, root, found)


_CONFIG_FILES = ("config", "config.worktree")
# Settings whose value is a command git (or a tool git starts) runs.
_PROGRAM_KEYS = re.compile(
    r"^(core\.(fsmonitor|sshcommand|editor|pager|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|credential\..*helper|gpg\..*program|diff\.external"
    r"|diff\..*\.(textconv|command)|filter\..*\.(clean|smudge|process)|merge\..*\.driver"
    r"|(diff|merge)tool\..*\.cmd|alias\..*|pager\..*|sendemail\..*cmd"
    r"|remote\..*\.(uploadpack|receivepack))$"
)
_PROGRAM_WORDS = (
    b"fsmonitor", b"command", b"editor", b"pager", b"askpass", b"helper", b"program",
    b"external", b"textconv", b"clean", b"smudge", b"process", b"driver", b"cmd", b"alias",
    b"proxy", b"uploadpack", b"receivepack",
)  # fmt: skip


def _programs(config: str, worktree: str, root: str) -> list[str]:
    """The files inside the workspace that a config file names as a program (``core.fsmonitor
    = ./tools/watch``, ``alias.x = !./x.sh``, ``filter.x.clean = sh scripts/clean``): each
    word of such a value that is a path to an existing file, relative to the work tree's top
    (where git runs them)."""
    if not config or not _may_matter(config, _PROGRAM_WORDS):
        return []
    try:
        done = run_git(
            ["config", "--file", config, "--includes", "--list", "-z"],
            workspace=Path(root),
            cwd=Path(worktree),
            timeout=_HOOKS_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError, GitMissingError):
        return []
    found = []
    for entry in done.stdout.split(b"\0") if done.returncode == 0 else []:
        key, _, value = os.fsdecode(entry).partition("\n")
        if not _PROGRAM_KEYS.match(key.lower()):
            continue
        for word in value.lstrip("!").replace("'", " ").replace('"', " ").split():
            path = os.path.join(worktree, os.path.expanduser(word))
            if ("/" in word or os.sep in word or word.startswith(".")) and os.path.isfile(path):
                found.append(os.path.realpath(path))
    return found


def _includes(config: str, worktree: str, root: str) -> list[str]:
    """The files a repository config file includes (``include.path``, ``includeIf.*.path``):
    one inside the workspace would let a command set anything in the config."""
    if not _may_matter(config, (b"include",)):
        return []
    try:
        done = run_git(
            [
                "config",
                "--file",
                config,
                "--type=path",
                "--get-regexp",
                r"^include(if\..*)?\.path$",
            ],
            workspace=Path(root),
            cwd=Path(worktree),
            timeout=_HOOKS_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError, GitMissingError):
        return []
    found = []
    for line in done.stdout.splitlines():
        _key, _, value = os.fsdecode(line).partition(" ")
        if value:  # relative: to the file holding the include
            found.append(os.path.realpath(os.path.join(os.path.dirname(config), value)))
    return found


def _hooks_path(worktree: str, gitdirs: tuple[str, ...], root: str) -> str:
    """The folder ``core.hooksPath`` names for the repository at ``worktree`` ('' if none):
    each config file read on its own, the strongest first (``config.worktree``, the
    repository's, yours), includes and ``~`` resolved by git; git is asked only about a file
    that could set it."""
    files = [os.path.join(d, "config.worktree") for d in gitdirs if d]
    files += [os.path.join(d, "config") for d in reversed(gitdirs) if d]
    files.append(_personal_config())
    for path in files:
        if not _may_matter(path):
            continue
        try:
            done = run_git(
                ["config", "--file", path, "--includes", "--type=path", "--get", "core.hooksPath"],
                workspace=Path(root),
                cwd=Path(worktree),
                timeout=_HOOKS_TIMEOUT_S,
            )
        except (OSError, subprocess.SubprocessError, GitMissingError):
            return ""
        value = os.fsdecode(done.stdout.rstrip(b"\n")) if done.returncode == 0 else ""
        if value:  # relative: to the work tree's top, where git runs hooks
            return os.path.realpath(os.path.join(worktree, value))
    return ""


_HOOKS_TIMEOUT_S = 5.0


def _personal_config() -> str:
    """The person's own git config file (``~/.gitconfig``, else the XDG one), '' if none."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    for path in (os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")):
        if os.path.isfile(path):
            return path
    return ""


def _may_matter(path: str, words: tuple[bytes, ...] = (b"hookspath", b"include")) -> bool:
    """Whether a config file holds one of ``words`` (so git is asked about it only then)."""
    if not path:
        return False
    try:
        with open(path, "rb") as handle:
            text = handle.read(1 << 20).lower()
    except OSError:
        return False
    return any(word in text for word in words)


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
