"""Logs go to the log folder, 0600, verbose with --debug, and never hold a key."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

from tui_agent.logs import add_log_secret, setup_logging

KEY = "my-configured-key-0123456789"


def test_logs_redact_keys_and_key_shapes_even_in_tracebacks(tmp_path: Path) -> None:
    path = setup_logging(debug=True, directory=tmp_path / "logs")
    assert path is not None
    add_log_secret(KEY)
    log = logging.getLogger("tui_agent.test")
    log.debug("sending with key %s", KEY)
    try:
        raise RuntimeError(f"bad key {KEY} and sk-proj-abcdefghijklmnopqrstuvwxyz012345")
    except RuntimeError:
        log.exception("request failed")
    for handler in logging.getLogger("tui_agent").handlers:
        handler.flush()
    text = path.read_text()
    assert "sending with key" in text and "request failed" in text
    assert KEY not in text and "abcdefghijklmnopqrstuvwxyz012345" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_without_debug_debug_lines_are_dropped(tmp_path: Path) -> None:
    path = setup_logging(debug=False, directory=tmp_path / "logs")
    assert path is not None
    logging.getLogger("tui_agent.test").debug("verbose detail")
    logging.getLogger("tui_agent.test").info("plain fact")
    for handler in logging.getLogger("tui_agent").handlers:
        handler.flush()
    text = path.read_text()
    assert "plain fact" in text and "verbose detail" not in text


def test_an_unwritable_log_folder_is_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert setup_logging(directory=blocker / "logs") is None
    logging.getLogger("tui_agent.test").error("still fine")
