"""Snapshots of the approval prompt, armed, for a read, a command and a file write with a diff.

Regenerate with ``pytest tests/test_ui_snapshots_approval.py --snapshot-update`` and look at the
SVGs in ``tests/__snapshots__/`` before keeping them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from .approval_prompt_app import PromptApp, make_request, wait_until_armed

SIZE = (120, 40)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "config.py").write_text(
        'NAME = "demo"\nDEBUG = False\nPORT = 8000\n\n\ndef url() -> str:\n'
        '    return f"http://localhost:{PORT}"\n'
    )
    return root.resolve()


async def _armed(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, PromptApp)
    await wait_until_armed(pilot, app.prompt, still=True)


def _app(workspace: Path, tool: str, arguments: dict[str, Any], **where: int) -> PromptApp:
    return PromptApp(make_request(tool, arguments, **where), workspace, decoy_input=False)


def test_read_file(snap_compare: Callable[..., bool], workspace: Path) -> None:
    app = _app(
        workspace,
        "read_file",
        {"path": "src/config.py\u202e", "offset": 1, "limit": 40},
        position=1,
        total=3,
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=_armed)


def test_run_command(snap_compare: Callable[..., bool], workspace: Path) -> None:
    arguments = {
        "command": "pytest -q tests/test_config.py -k 'port and not slow'",
        "timeout_s": 120,
    }
    app = _app(workspace, "run_command", arguments, position=2, total=2)
    assert snap_compare(app, terminal_size=SIZE, run_before=_armed)


def test_write_file_with_diff(snap_compare: Callable[..., bool], workspace: Path) -> None:
    content = (
        'NAME = "demo"\nDEBUG = True\nPORT = 8080\n\n\ndef url() -> str:\n'
        '    return f"http://localhost:{PORT}/api"\n'
    )
    app = _app(workspace, "write_file", {"path": "src/config.py", "content": content})
    assert snap_compare(app, terminal_size=SIZE, run_before=_armed)
