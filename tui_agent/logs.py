"""Logs in the platform's user log folder; ``--debug`` makes them verbose. Keys never reach them:
every formatted line (exceptions included) goes through the same Redactor as session files.

The HTTP libraries log through their own loggers ("httpx": each request's URL, "httpcore": the
response headers); they go through the same handler, verbose only with ``--debug``. ``redact``
is that redaction for other output (crash reports, screenshots); ``redact_crashes`` makes an
uncaught exception a redacted traceback on stderr and in the log.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import sys
import traceback
from pathlib import Path
from types import TracebackType

from .session.paths import ensure_private_dir, log_dir
from .session.redaction import Redactor

LOG_FILE = "tui-agent.log"
_LOGGER = "tui_agent"
_HTTP_LOGGERS = ("httpx", "httpcore")


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then redacts the configured keys and every known key shape."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._secrets: set[str] = set()
        self._redactor = Redactor()

    def add_secret(self, value: str) -> None:
        if value and value not in self._secrets:
            self._secrets.add(value)
            self._redactor = Redactor(self._secrets)

    @property
    def redactor(self) -> Redactor:
        return self._redactor

    def redact(self, text: str) -> str:
        return self._redactor.redact(text)

    def format(self, record: logging.LogRecord) -> str:
        return self._redactor.redact(super().format(record))


_formatter = RedactingFormatter()


def setup_logging(debug: bool = False, directory: Path | None = None) -> Path | None:
    """Log to ``tui-agent.log`` (0600, rotated); its path, or None when it cannot be written."""
    logger = logging.getLogger(_LOGGER)
    logger.setLevel(logging.DEBUG if debug else logging.INFO)
    http = [logging.getLogger(name) for name in _HTTP_LOGGERS]
    for each in http:
        each.setLevel(logging.DEBUG if debug else logging.WARNING)
    for each in (logger, *http):
        each.propagate = False
        for handler in list(each.handlers):
            each.removeHandler(handler)
            handler.close()
    try:
        folder = ensure_private_dir(directory or log_dir())
        path = folder / LOG_FILE
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.close(fd)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=5_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        for each in (logger, *http):
            each.addHandler(logging.NullHandler())
        return None
    handler.setFormatter(_formatter)
    for each in (logger, *http):
        each.addHandler(handler)
    return path


def add_log_secret(value: str | None) -> None:
    """A key to keep out of the logs (besides every known key shape)."""
    if value:
        _formatter.add_secret(value)


def redact(text: str) -> str:
    """``text`` with every key this process knows of and every known key shape redacted."""
    return _formatter.redact(text)


def redactor() -> Redactor:
    """The Redactor ``redact`` uses now (it changes when a key is added)."""
    return _formatter.redactor


def crash_report(error: BaseException) -> str:
    """The traceback of ``error``, redacted, without local variables; also logged."""
    logging.getLogger(_LOGGER).error("crashed", exc_info=(type(error), error, error.__traceback__))
    return redact("".join(traceback.format_exception(error)))


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    if not issubclass(kind, Exception):
        sys.__excepthook__(kind, error, tb)
        return
    sys.stderr.write(crash_report(error.with_traceback(tb)))


def redact_crashes() -> None:
    """An uncaught exception prints a redacted traceback (and logs it) instead of the raw one."""
    sys.excepthook = _excepthook
