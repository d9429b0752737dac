"""Fixtures many test files share. A file that needs more defines its own fixture of the same
name, which wins over these."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .run_helpers import Home
    from .ui_app_helpers import AppEnv


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    """Folders and environment of their own for an app under Pilot (config, data, workspace)."""
    from .ui_app_helpers import make_env  # imported here: it pulls in Textual and the app

    return make_env(tmp_path, monkeypatch)


@pytest.fixture
def home(tmp_path: Path) -> Home:
    """Folders and environment of their own for ``tui-agent run`` as a subprocess."""
    from .run_helpers import Home

    return Home(tmp_path)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the default, see pyproject): one worker per core this process may use, at
    most 16. Two per core ran about a third faster on 2 cores, but the extra load stretched
    timing-sensitive UI tests past what they allow often enough to fail clean-checkout CI runs.
    PYTEST_XDIST_AUTO_NUM_WORKERS sets the number instead."""
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return max(1, min(16, len(os.sched_getaffinity(0))))
