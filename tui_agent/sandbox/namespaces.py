"""Linux namespaces for a command: its own user, PID, mount and (without network) network
namespace; plus the two prctl switches that tie a process's life to its parent's.

Only called in forked children before ``exec``: nothing here imports or allocates much.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.unshare.argtypes = [ctypes.c_int]
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_void_p,
]
_libc.fork.restype = ctypes.c_int


class SetupError(OSError):
    """A step of setting up the sandbox failed; the command must not run."""

    def __init__(self, step: str, errno: int) -> None:
        super().__init__(errno, f"cannot {step}: {os.strerror(errno)}")
        self.step = step


def _check(result: int, step: str) -> int:
    if result < 0:
        raise SetupError(step, ctypes.get_errno())
    return result


def die_with_parent(signum: int = 9) -> None:
    """Get ``signum`` (SIGKILL) when the parent ends, whatever ends it."""
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0), "tie the sandbox to the app")


def not_dumpable() -> None:
    """A forked copy of the app holds its memory and environment (the provider key): make
    /proc/PID/environ, mem and ptrace of it refused to the command."""
    _check(_libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "hide the sandbox's own memory")


def unshare(flags: int, uid: int, gid: int) -> None:
    """New namespaces for this process (a new PID namespace: for its next child). The user
    keeps its own ids inside, so files it makes are owned as usual."""
    _check(_libc.unshare(flags), "create namespaces")
    if flags & CLONE_NEWUSER:
        _write("/proc/self/setgroups", "deny", "deny setgroups", missing_ok=True)
        _write("/proc/self/uid_map", f"{uid} {uid} 1", "map the user id")
        _write("/proc/self/gid_map", f"{gid} {gid} 1", "map the group id")


def raw_fork() -> int:
    """fork(2) without Python's fork handlers (other threads' locks are not ours to take)."""
    return _check(_libc.fork(), "fork the sandbox's first process")


def mounts_private() -> None:
    """Keep mounts made in this namespace to it."""
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make mounts private")


def mount_private_proc() -> None:
    """Mount a /proc that shows only this namespace's processes (mounts made private first)."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    _check(_libc.mount(b"proc", b"/proc", b"proc", flags, None), "mount a private /proc")


def loopback_up() -> None:
    """A new network namespace starts with ``lo`` down: bring it up (it reaches nothing else)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("16sH14x", b"lo", 0)
            flags = struct.unpack("16sH14x", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))
    except OSError as exc:
        raise SetupError("bring up the loopback interface", exc.errno or 0) from None


_PR_SET_NAME = 15
NEUTRAL_NAME = b"sandbox-init"


def neutral_name() -> None:
    """The sandbox's own processes are forks of the app: their /proc/PID/cmdline and comm would
    show the app's command line (its options, a profile name, a prompt given on it). Overwrite
    the argument area in place (as setproctitle does; the interpreter keeps its own copies of
    the arguments) and rename the thread. Best effort: a failure leaves the old name."""
    _libc.prctl(_PR_SET_NAME, NEUTRAL_NAME, 0, 0, 0)
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48, 49)
    except (OSError, ValueError, IndexError):
        return
    if end - start <= len(NEUTRAL_NAME):
        return
    ctypes.memset(start, 0, end - start)
    ctypes.memmove(start, NEUTRAL_NAME, len(NEUTRAL_NAME))


def _write(path: str, text: str, step: str, *, missing_ok: bool = False) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        if missing_ok:
            return
        raise SetupError(step, 2) from None
    except OSError as exc:
        raise SetupError(step, exc.errno or 0) from None
    try:
        os.write(fd, text.encode())
    except OSError as exc:
        raise SetupError(step, exc.errno or 0) from None
    finally:
        os.close(fd)
