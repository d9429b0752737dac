"""Every exit status of every tui-agent command, defined once (docs/headless-and-serve.md)."""

from __future__ import annotations

EXIT_OK = 0  # done; run and parse: the final turn completed
EXIT_USAGE = 1  # a usage, configuration or input error, or the app could not start
EXIT_TRUNCATED = 2  # run and parse: the final turn was truncated, failed, cancelled or hit a limit
EXIT_CLOSED_PIPE = 141  # run: the reader of stdout went away (128 + SIGPIPE, as Unix tools)
EXIT_CONFLICTS = 2  # rewind: done, with conflicts left (files changed since the agent wrote them)
EXIT_UNPROTECTED = 2  # doctor: a protection the sandbox asks for is missing on this machine
