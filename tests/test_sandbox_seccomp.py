"""The network filter of the no-namespace fallback (sandbox/seccomp.py), installed in a real
child process: which sockets it refuses, how, and through which side doors."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from tui_agent.sandbox import seccomp

pytestmark = pytest.mark.skipif(
    not seccomp.available(), reason="needs seccomp on x86_64 or aarch64"
)

PROBE = """
import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
def syscall(nr, *args):
    done = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    return "ok" if done >= 0 else errno.errorcode[ctypes.get_errno()]
def make(family, kind):
    try:
        socket.socket(family, kind).close()
        return "ok"
    except OSError as exc:
        return errno.errorcode[exc.errno]
print("udp4", make(socket.AF_INET, socket.SOCK_DGRAM))
print("udp6", make(socket.AF_INET6, socket.SOCK_DGRAM))
print("tcp4", make(socket.AF_INET, socket.SOCK_STREAM))
print("packet", make(socket.AF_PACKET, socket.SOCK_RAW))
print("unix", make(socket.AF_UNIX, socket.SOCK_STREAM))
print("netlink", make(socket.AF_NETLINK, socket.SOCK_RAW))
print("io_uring", syscall(425, 8, 0))
if X32:
    print("x32 socket", syscall(0x40000000 | 41, socket.AF_INET, socket.SOCK_DGRAM, 0))
"""


def _probe(filtered: bool) -> dict[str, str]:
    program = seccomp.network_filter()
    code = f"X32 = {platform.machine() == 'x86_64'}\n{PROBE}"
    done = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=(lambda: seccomp.install(program)) if filtered else None,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())


def test_internet_sockets_are_refused_and_local_ones_kept() -> None:
    seen = _probe(filtered=True)
    for name in ("udp4", "udp6", "tcp4", "packet"):
        assert seen[name] == "EACCES", seen
    assert seen["unix"] == "ok" and seen["netlink"] == "ok", seen


def test_the_side_doors_are_shut() -> None:
    seen = _probe(filtered=True)
    assert seen["io_uring"] == "ENOSYS", seen  # an io_uring could open sockets past the filter
    if "x32 socket" in seen:
        assert seen["x32 socket"] == "EACCES", seen  # the same call through the x32 numbers


def test_without_the_filter_the_same_probe_gets_its_sockets() -> None:
    seen = _probe(filtered=False)
    assert seen["udp4"] == "ok" and seen["tcp4"] == "ok", seen  # the probe itself is sound
