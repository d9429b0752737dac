"""A small ctypes layer over the Landlock system calls (Linux 5.13+).

Why ctypes and not a PyPI binding: the bindings there are pre-releases or young, most stop
before the network rules (ABI 4) and scopes (ABI 6) we use, and this code runs in a freshly
forked child just before ``exec`` where it must not import anything: three system calls and two
packed structures are all it takes.

Landlock is an allow-list: once ``restrict_self`` ran, every access right the ruleset
*handles* is refused unless a rule grants it beneath a path (or for a port). Rights the running
kernel does not know are left out, so the same rules work from ABI 1 to 7.
"""

from __future__ import annotations

import ctypes
import os

_SYS_CREATE_RULESET = 444  # the same number on every architecture (generic syscall table)
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# File system rights, with the ABI that introduced them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
# The rights a rule on a file (not a folder) may carry.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR
WRITE_RIGHTS = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_prctl = _libc.prctl
_prctl.restype = ctypes.c_int


class LandlockError(OSError):
    """A Landlock call failed; ``step`` says which."""

    def __init__(self, step: str, errno: int) -> None:
        super().__init__(errno, f"{step}: {os.strerror(errno)}")
        self.step = step


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [
        ("allowed_access", ctypes.c_uint64),
        ("parent_fd", ctypes.c_int32),
    ]


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 when it offers none (too old, or disabled)."""
    version = _syscall(
        ctypes.c_long(_SYS_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(_CREATE_RULESET_VERSION),
    )
    return max(0, int(version))


def fs_rights(abi: int) -> int:
    """Every file system right the given ABI knows."""
    known = [rights for version, rights in _FS_BY_ABI.items() if version <= abi]
    return max(known, default=0)


class Ruleset:
    """A ruleset being built; ``restrict_self`` applies it to this process for good."""

    def __init__(self, abi: int, *, deny_tcp: bool, scopes: int) -> None:
        self.abi = abi
        self.handled_fs = fs_rights(abi)
        attr = _RulesetAttr(self.handled_fs, 0, 0)
        size = 8
        if deny_tcp and abi >= 4:
            attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
            size = 16
        if scopes and abi >= 6:
            attr.scoped = scopes
            size = 24
        fd = _syscall(
            ctypes.c_long(_SYS_CREATE_RULESET),
            ctypes.byref(attr),
            ctypes.c_size_t(size),
            ctypes.c_uint32(0),
        )
        if fd < 0:
            raise LandlockError("create a Landlock ruleset", ctypes.get_errno())
        self.fd = int(fd)

    def allow(self, path: str, rights: int, *, is_dir: bool) -> None:
        """Grant ``rights`` (those the kernel knows) beneath ``path``."""
        rights &= self.handled_fs if is_dir else self.handled_fs & FILE_RIGHTS
        if not rights:
            return
        try:
            target = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # gone since it was listed: nothing to grant
        try:
            attr = _PathBeneathAttr(rights, target)
            done = _syscall(
                ctypes.c_long(_SYS_ADD_RULE),
                ctypes.c_int(self.fd),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            )
            if done < 0:
                raise LandlockError(f"add a Landlock rule for {path}", ctypes.get_errno())
        finally:
            os.close(target)

    def restrict_self(self) -> None:
        """Confine this process (and everything it starts) to the rules; no way back."""
        if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError("set no_new_privs", ctypes.get_errno())
        done = _syscall(
            ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(self.fd), ctypes.c_uint32(0)
        )
        errno = ctypes.get_errno()
        os.close(self.fd)
        if done < 0:
            raise LandlockError("enforce the Landlock ruleset", errno)
