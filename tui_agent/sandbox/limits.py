"""Resource limits of a confined command: how many processes, how much memory each.

``RLIMIT_NPROC`` counts a user's processes per user namespace, and each command gets a new one,
so the limit bounds the command's own processes (a fork bomb), not the user's others.
``RLIMIT_AS`` bounds each process's address space (a memory hog gets ENOMEM, not the machine).
"""

from __future__ import annotations

import resource

from .namespaces import SetupError


def apply_limits(max_processes: int | None, memory_mb: int, file_mb: int = 0) -> None:
    """``max_processes`` None: leave RLIMIT_NPROC alone (without a user namespace of its own it
    would count every process of the user, not only the command's)."""
    try:
        if max_processes is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
        size = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if file_mb:  # no one file past the write quota (SIGXFSZ, then EFBIG)
            file_size = file_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    except (OSError, ValueError) as exc:
        errno = getattr(exc, "errno", 0) or 0
        raise SetupError("set the process and memory limits", errno) from None
