"""Host services out of reach: the command's mount namespace hides every pathname socket of the
host outside the workspace.

Landlock does not govern ``connect(2)`` on a pathname Unix socket, and the network namespace
does not either, so a socket in ``/tmp`` (tmux's ``/tmp/tmux-UID/default``, X11's
``/tmp/.X11-unix``), in ``/run`` (D-Bus, Docker, the per-user runtime dir), in home
(``~/.gnupg/S.gpg-agent``) would answer a confined command: ``tmux run-shell`` runs anything,
outside the sandbox. So, in the command's own mount namespace:

- a fresh, empty tmpfs covers ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run`` (``/var/run``
  is a link to it), whole: every socket there, made before the call or during it, is gone;
- what the command must still see there is bound back at its own path: the workspace, its
  private temporary folder, home, the readable folders (the demo workspace), and the target of
  ``/etc/resolv.conf`` when it lies in ``/run`` (DNS with the network on);
- a socket found in home or ``/var`` (four levels down), or directly in a folder above the
  workspace, gets ``/dev/null`` mounted over it (connecting to it is refused). That scan is
  made in the app and kept ten seconds (it costs ~10 ms): a socket made there within those
  seconds, or made deeper, or elsewhere on the machine (``/srv``, ``/opt``, deeper beside the
  workspace) stays reachable;
- each denied folder (``~/.ssh``, ``~/.gnupg``, ``~/.docker``...) gets an empty tmpfs of its own:
  a socket made there at any time (an SSH ControlMaster's, gpg-agent's, Docker Desktop's) is
  gone, as is everything else in it (a command reading one sees "No such file").

Abstract sockets (no path) are closed by Landlock's scope (ABI 6) where the kernel offers it.
Sockets inside the workspace stay: they are the command's own business. Without namespaces (the
Landlock-only fallback) none of this holds, and ``doctor`` says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
import time
from dataclasses import dataclass

COVERED = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/var/run")
_SCANNED = (("~", 4), ("/var", 4))
_SCAN_BUDGET = 20_000  # entries a scan looks at, at most
_SCAN_KEEP_S = 10.0
_MAX_SOCKETS = 512
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_BIND = 4096
_MS_REC = 16384
_scanned: tuple[float, tuple[str, str], tuple[str, ...]] = (-_SCAN_KEEP_S, ("", ""), ())


@dataclass(frozen=True)
class HostView:
    """What the init mounts: ``covered`` get an empty tmpfs, ``kept`` are bound back into them
    (folders, or a file such as resolv.conf's target), ``sockets`` get /dev/null over them."""

    covered: tuple[str, ...]
    kept: tuple[str, ...]
    sockets: tuple[str, ...]
    scratch: str = ""  # the private temporary folder: a tmpfs of its own, of the write quota
    hidden: tuple[str, ...] = ()  # denied folders (~/.ssh, ~/.gnupg...): an empty tmpfs each


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def host_view(
    workspace: str,
    kept: tuple[str, ...],
    network: bool,
    scratch: str = "",
    denied: tuple[str, ...] = (),
) -> HostView:
    """Computed in the app before the fork. ``kept``: real paths the command must see besides
    the workspace and home; ``scratch``: the private temporary folder; ``denied``: the policy's
    denied paths (real): the folders among them get an empty tmpfs, so a socket made in one at
    any time (an SSH ControlMaster's in ~/.ssh, gpg-agent's in ~/.gnupg) never answers."""
    paths = (workspace, *kept, os.path.expanduser("~"), *((scratch,) if scratch else ()))
    keep = [os.path.realpath(path) for path in paths]
    resolv = os.path.realpath("/etc/resolv.conf")
    covered: list[str] = []
    for folder in COVERED:
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue  # /var/run -> /run: covered through its target
        real = os.path.realpath(folder)
        if real in covered:
            continue
        if _inside(real, keep[0]):
            # The workspace is that folder or holds it (its sockets are the command's own):
            # leave it. Home or a readable folder holding it (HOME=/) does not: they are read,
            # not written, and their other entries stay visible.
            continue
        covered.append(real)
    if network and any(_inside(resolv, folder) for folder in covered):
        keep.append(resolv)
    inside = tuple(
        dict.fromkeys(
            p for p in keep if p != scratch and any(_inside(p, f) and p != f for f in covered)
        )
    )
    sockets = tuple(
        path
        for path in _sockets(os.path.realpath(workspace))
        if not _inside(path, os.path.realpath(workspace))
        and (
            not any(_inside(path, folder) for folder in covered)
            or any(_inside(path, folder) for folder in inside)
        )
    )
    hidden = tuple(
        folder
        for folder in denied
        if os.path.isdir(folder)
        and not os.path.islink(folder)
        and not any(_inside(folder, path) or _inside(path, folder) for path in keep[:1])
        and not any(_inside(path, folder) for path in keep[1:])
    )
    return HostView(tuple(covered), inside, sockets, scratch, hidden)


def _sockets(workspace: str) -> tuple[str, ...]:
    """The sockets in home, /var and directly in each folder above the workspace, as last
    scanned (at most ``_SCAN_KEEP_S`` ago)."""
    global _scanned
    now = time.monotonic()
    key = (os.path.expanduser("~"), workspace)
    if now - _scanned[0] < _SCAN_KEEP_S and _scanned[1] == key:
        return _scanned[2]
    found: list[str] = []
    budget = [_SCAN_BUDGET]
    for root, depth in _SCANNED:
        _scan(os.path.realpath(os.path.expanduser(root)), depth, found, budget)
    above = os.path.dirname(workspace)
    while True:
        _scan(above, 0, found, budget)
        if above == os.path.dirname(above):
            break
        above = os.path.dirname(above)
    found = list(dict.fromkeys(found))
    _scanned = (now, key, tuple(found[:_MAX_SOCKETS]))
    return _scanned[2]


def _scan(folder: str, depth: int, found: list[str], budget: list[int]) -> None:
    if folder in COVERED or folder == "/proc":
        return
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0:
                return
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth > 0:
                        _scan(entry.path, depth - 1, found, budget)
                elif not entry.is_file(follow_symlinks=False) and stat.S_ISSOCK(
                    entry.stat(follow_symlinks=False).st_mode
                ):
                    found.append(entry.path)
            except OSError:
                continue


# In the init, between fork and exec: nothing below imports or allocates much.
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_void_p,
]


def _mount(source: bytes, target: str, kind: bytes | None, flags: int, data: bytes | None) -> None:
    if _libc.mount(source, os.fsencode(target), kind, flags, data) < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot hide host sockets at {target}: {os.strerror(number)}")


def apply(view: HostView, scratch_mb: int) -> None:
    """Cover, bind back, blank the sockets (mounts already private to this namespace). Each
    covering tmpfs holds at most ``scratch_mb`` MiB. Raises OSError."""
    held: list[tuple[str, int, bool]] = []
    try:
        for path in view.kept:
            with contextlib.suppress(OSError):
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                held.append((path, fd, os.path.isdir(path)))
        cwd = os.getcwd()
        for folder in view.covered:
            mode = "1777" if folder in ("/tmp", "/var/tmp", "/dev/shm") else "755"
            options = f"mode={mode},size={scratch_mb}m".encode()
            _mount(b"tmpfs", folder, b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
        for path, fd, is_dir in held:
            if is_dir:
                os.makedirs(path, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
            _mount(f"/proc/self/fd/{fd}".encode(), path, None, _MS_BIND | _MS_REC, None)
        if view.scratch:
            os.makedirs(view.scratch, exist_ok=True)
            options = f"mode=700,size={scratch_mb}m".encode()
            _mount(b"tmpfs", view.scratch, b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
        for path in view.sockets:
            with contextlib.suppress(OSError):
                _mount(b"/dev/null", path, None, _MS_BIND, None)
        for folder in view.hidden:  # gone from view when it lay in a covered folder: fine
            with contextlib.suppress(OSError):
                _mount(b"tmpfs", folder, b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=700,size=1m")
        with contextlib.suppress(OSError):
            os.chdir(cwd)  # through the bound-back workspace, not the covered mount under it
    finally:
        for _, fd, _ in held:
            os.close(fd)
