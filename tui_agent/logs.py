"""Logs in the platform's user log folder; ``--debug`` makes them verbose. Keys never reach them:
every formatted line (exceptions included) goes through the same Redactor as session files."""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
from pathlib import Path

from .session.paths import ensure_private_dir, log_dir
from .session.redaction import Redactor

LOG_FILE = "tui-agent.log"
_LOGGER = "tui_agent"


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

    def format(self, record: logging.LogRecord) -> str:
        return self._redactor.redact(super().format(record))


_formatter = RedactingFormatter()


def setup_logging(debug: bool = False, directory: Path | None = None) -> Path | None:
    """Log to ``tui-agent.log`` (0600, rotated); its path, or None when it cannot be written."""
    logger = logging.getLogger(_LOGGER)
    logger.setLevel(logging.DEBUG if debug else logging.INFO)
    logger.propagate = False
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
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
        logger.addHandler(logging.NullHandler())
        return None
    handler.setFormatter(_formatter)
    logger.addHandler(handler)
    return path


def add_log_secret(value: str | None) -> None:
    """A key to keep out of the logs (besides every known key shape)."""
    if value:
        _formatter.add_secret(value)
