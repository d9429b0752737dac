"""The errors the session store raises; each message is meant to be shown to the user as is."""

from __future__ import annotations


class SessionError(Exception):
    """Base of every session store error."""


class SessionNotFoundError(SessionError):
    """No session with that id (or no session file at that path)."""


class SessionLockedError(SessionError):
    """The session is open for writing in another tui-agent process."""


class SessionCorruptError(SessionError):
    """The session file holds nothing usable (not even one readable record)."""


class SessionClosedError(SessionError):
    """A record was appended to a writer after ``close()``."""
