"""The Landlock rules of a policy: which paths a command may read, and which it may write.

Landlock only grants, so a denied path is made unreadable by granting every *sibling* on the
way down to it instead of its parent: denying ``~/.ssh`` grants each entry of ``/`` but the one
leading home, each entry of home but ``.ssh``, and so on. Folders may be listed everywhere (one
right on ``/``), so the names inside a denied folder show, never its files. ``/dev`` is not
granted whole: as root, reading a disk device would read every file; only the harmless devices
are. Entries created after the command started in a partly granted folder are not readable.

The same holds for writes: a folder granted for writing (the workspace) that holds a denied path
(the workspace is home and ``~/.ssh`` is denied, or the app's data folder lies in it) is not
granted whole but entry by entry beside the denied path, down to its parent. Landlock cannot
grant a folder without everything beneath it, so those folders on the way (the workspace itself
among them) get no right of their own: a command can read and write what was there when it
started, and create, remove and rename within the entries granted, but cannot create, remove or
rename an entry directly in them (a new file at the top of such a workspace is refused).

The rules are computed in the app (listing folders), and applied in the child.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .landlock import (
    EXECUTE,
    FILE_RIGHTS,
    IOCTL_DEV,
    READ_DIR,
    READ_FILE,
    TRUNCATE,
    WRITE_FILE,
    WRITE_RIGHTS,
)

READ_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
WRITE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
_READ = EXECUTE | READ_FILE | READ_DIR


@dataclass(frozen=True, slots=True)
class Rule:
    path: str
    rights: int
    is_dir: bool


def policy_rules(
    writable: tuple[str, ...],
    denied: tuple[str, ...],
    readable: tuple[str, ...] = (),
    read_only: tuple[str, ...] = (),
) -> list[Rule]:
    """Every rule a confined command gets. ``writable``: the workspace (unless read-only) and
    the private temporary folder; ``denied``: real paths (see ``policy.denied_real_paths``);
    ``readable``: folders granted even inside a denied one (the demo workspace); ``read_only``:
    paths inside a writable folder that stay readable but not writable (the workspace's git
    folders, see ``git_guard.py``). A writable or readable folder that holds a denied or
    read-only path is granted around it, never over it."""
    refused = frozenset(denied)
    rules = [Rule("/", READ_DIR, True)]
    _grant_beside("/", refused, _READ, rules)
    for folder in readable:
        if folder not in writable:
            _grant(folder, refused, _READ, rules)
    rules += [Rule(device, _READ | IOCTL_DEV, False) for device in READ_DEVICES]
    rules += [Rule(d, WRITE_FILE | TRUNCATE | IOCTL_DEV, False) for d in WRITE_DEVICES]
    for folder in writable:
        _grant(folder, refused | frozenset(read_only), WRITE_RIGHTS | _READ, rules)
    return rules


def _grant(folder: str, denied: frozenset[str], rights: int, rules: list[Rule]) -> None:
    """``folder`` whole, or entry by entry around the denied paths beneath it."""
    if any(path.startswith(folder.rstrip("/") + "/") for path in denied):
        _grant_beside(folder, denied, rights, rules)
    else:
        rules.append(Rule(folder, rights, True))


def _grant_beside(folder: str, denied: frozenset[str], rights: int, rules: list[Rule]) -> None:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if path in denied or path == "/dev":
            continue
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            continue  # its target is granted (or not) where it really is
        is_dir = stat.S_ISDIR(mode)
        if is_dir and any(d.startswith(path + "/") for d in denied):
            _grant_beside(path, denied, rights, rules)
            continue
        rules.append(Rule(path, rights if is_dir else rights & FILE_RIGHTS, is_dir))
