"""Network off without a network namespace: a seccomp filter refuses internet sockets.

Where no network namespace can be made (the Landlock-only fallback), Landlock ABI 4 and later
refuse TCP connect and bind, but UDP (DNS included), raw and packet sockets pass. So the command
also gets this classic-BPF filter, installed between fork and exec:

- ``socket(2)`` of any family but ``AF_UNIX`` and ``AF_NETLINK`` fails with EACCES (internet,
  packet, vsock and the rest: nothing that leaves the machine);
- ``io_uring_setup(2)`` fails with ENOSYS: an io_uring can open sockets past the filter;
- the other entry points of the same kernel (i386 and x32 on x86_64, arm32 on aarch64) get the
  same rules, with ``socketcall(SYS_SOCKET)`` refused as a whole (its domain is not readable).

x86_64 and aarch64 only; elsewhere ``available()`` is False and ``doctor`` says UDP passes.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import platform
import struct
from dataclasses import dataclass

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000

# struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6] (little endian: low half first)
_NR, _ARCH, _ARG0 = 0, 4, 16
_ALLOWED_FAMILIES = (1, 16)  # AF_UNIX, AF_NETLINK
_SYS_SOCKET = 1  # socketcall's first argument for socket()
_X32_BIT = 0x40000000


@dataclass(frozen=True)
class _Abi:
    arch: int  # AUDIT_ARCH_*
    socket: int
    io_uring_setup: int
    socketcall: int | None = None
    x32: bool = False  # syscall numbers with bit 30 set are the x32 ABI


_ABIS = {
    "x86_64": (
        _Abi(0xC000003E, socket=41, io_uring_setup=425, x32=True),
        _Abi(0x40000003, socket=359, io_uring_setup=425, socketcall=102),  # i386
    ),
    "aarch64": (
        _Abi(0xC00000B7, socket=198, io_uring_setup=425),
        _Abi(0x40000028, socket=281, io_uring_setup=425),  # arm32 (EABI)
    ),
}


@functools.cache
def available() -> bool:
    """This machine's kernel and architecture take the filter."""
    if platform.machine() not in _ABIS:
        return False
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            return any(line.startswith("Seccomp:") for line in handle)
    except OSError:
        return False


class _Program:
    """Classic BPF with forward jumps to labels, resolved when built."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def op(self, code: int, k: int, jt: str | int = 0, jf: str | int = 0) -> None:
        self.code.append((code, jt, jf, k))

    def build(self) -> bytes:
        out = bytearray()
        for at, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack("=HBBI", code, self._jump(at, jt), self._jump(at, jf), k)
        return bytes(out)

    def _jump(self, at: int, to: str | int) -> int:
        if isinstance(to, int):
            return to
        offset = self.labels[to] - at - 1
        if not 0 <= offset < 256:
            raise ValueError(f"jump to {to} out of range")
        return offset


def _filter(abis: tuple[_Abi, ...]) -> bytes:
    p = _Program()
    p.op(_LD_W_ABS, _ARCH)
    for index, abi in enumerate(abis):
        p.op(_JEQ, abi.arch, f"abi{index}", 0)
    p.op(_RET, _ALLOW)  # an architecture this kernel cannot run here
    for index, abi in enumerate(abis):
        p.label(f"abi{index}")
        p.op(_LD_W_ABS, _NR)
        if abi.x32:
            p.op(_JGE, _X32_BIT, f"x32_{index}", 0)
        p.op(_JEQ, abi.socket, "family", 0)
        p.op(_JEQ, abi.io_uring_setup, "enosys", 0)
        if abi.socketcall is not None:
            p.op(_JEQ, abi.socketcall, f"socketcall{index}", 0)
        p.op(_RET, _ALLOW)
        if abi.socketcall is not None:
            p.label(f"socketcall{index}")
            p.op(_LD_W_ABS, _ARG0)
            p.op(_JEQ, _SYS_SOCKET, "eacces", 0)
            p.op(_RET, _ALLOW)
        if abi.x32:  # the same numbers with bit 30 set
            p.label(f"x32_{index}")
            p.op(_JEQ, _X32_BIT | abi.socket, "family", 0)
            p.op(_JEQ, _X32_BIT | abi.io_uring_setup, "enosys", 0)
            p.op(_RET, _ALLOW)
    p.label("family")
    p.op(_LD_W_ABS, _ARG0)
    for family in _ALLOWED_FAMILIES:
        p.op(_JEQ, family, "allow", 0)
    p.label("eacces")
    p.op(_RET, _ERRNO | errno.EACCES)
    p.label("enosys")
    p.op(_RET, _ERRNO | errno.ENOSYS)
    p.label("allow")
    p.op(_RET, _ALLOW)
    return p.build()


@functools.cache
def network_filter() -> bytes:
    """The filter for this machine (build it in the app, before the fork)."""
    return _filter(_ABIS[platform.machine()])


class _Fprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install(program: bytes) -> None:
    """Apply ``program`` to this process and all it starts; no way back (raises OSError)."""
    libc = ctypes.CDLL(None, use_errno=True)
    # prctl checks that unused arguments are 0: all five are passed, full width.
    libc.prctl.argtypes = [
        ctypes.c_int,
        ctypes.c_ulong,
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_ulong,
    ]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot set no_new_privs: {errno.errorcode.get(number, number)}")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Fprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        name = errno.errorcode.get(number, str(number))
        raise OSError(number, f"cannot install the network filter (seccomp: {name})")
