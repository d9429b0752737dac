"""Fixtures many test files share. A file that needs more defines its own fixture of the same
name, which wins over these."""

from __future__ import annotations

import compileall
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .run_helpers import Home
    from .sessions_cli_helpers import Cli
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


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    """A person with an isolated home and workspace (the current folder), no provider key and the
    offline demo model instant: ``tui-agent`` in this process and its session store."""
    from .support.demo_user import demo_user

    return demo_user(tmp_path, monkeypatch)


def pytest_configure(config: pytest.Config) -> None:
    """Bytecode for the app and the tests, made once before the workers start. The children the
    tests spawn (``tui-agent`` as a subprocess, servers, agents) run with
    PYTHONDONTWRITEBYTECODE=1 so that none of them writes into the checkout while others read it;
    without the bytecode made here each of them compiled every module it imports from source
    (~0.2 s a start), and so did each worker, whatever the environment says about writing it."""
    if hasattr(config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    for folder in ("tui_agent", "tests"):
        # node_modules: the npm ACP agents' packages ship Python 2 build scripts
        compileall.compile_dir(root / folder, quiet=2, workers=0, rx=re.compile(r"node_modules"))


# pytest writes its rewritten test modules' bytecode unless told not to: a machine that sets
# PYTHONDONTWRITEBYTECODE (some do, for everything) would have each worker rewrite and compile
# every test module again on every run.
sys.dont_write_bytecode = False


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the default, see pyproject): one worker more than the cores this process may
    use, at most 16. Part of many tests is waiting (a child process, a server, a terminal), and
    the extra worker fills it: on 2 cores the whole suite took 7 min 10 s with 3 workers against
    10 min 7 s with 2, in the same hour. No test depends on the machine's speed (the key timing
    runs on the tests' own clock), so the extra load costs time, not results.
    PYTEST_XDIST_AUTO_NUM_WORKERS sets the number instead."""
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return max(1, min(16, len(os.sched_getaffinity(0)) + 1))


# What ``pytest -m "not heavy"`` (the quick loop) leaves out. Heavy are: the modules that carry
# ``pytestmark = pytest.mark.heavy`` (tmux, Chromium, real MCP servers, the CLI as a subprocess),
# the modules listed here, where every test is heavy or nearly (a real sandbox, a child process
# that crashes, the linters, agents run as processes, most app tests of a feature), every test
# that takes the ``home`` fixture (``tui-agent`` as a subprocess), and each test marked
# ``@pytest.mark.heavy`` in a module of cheap Pilot tests: one that took 1 s or more (1.5 s in
# the quick loop on 2 shared cores). A new slow test gets the mark; a new slow module joins the
# list.
HEAVY_MODULES = frozenset(
    [
        "hostile/test_persistence_resume.py",
        "hostile/test_rendering.py",
        "hostile/test_rewind_hostile.py",
        "hostile/test_sandbox_app.py",
        "hostile/test_sandbox_commands.py",
        "hostile/test_sandbox_confinement.py",
        "hostile/test_sandbox_git.py",
        "hostile/test_sandbox_limits.py",
        "hostile/test_sandbox_process_limits.py",
        "hostile/test_secrets_split.py",
        "hostile/test_streams_turn_limits.py",
        "hostile/test_trust_questions.py",
        "hostile/test_typing_approval.py",
        "hostile/test_typing_browser.py",
        "hostile/test_validation_approval_prompt.py",
        "hostile/test_validation_approval_width.py",
        "hostile/test_workspace_trust.py",
        "test_agent_cancel.py",
        "test_acp_app.py",
        "test_acp_client.py",
        "test_agent_execution.py",
        "test_architecture.py",
        "test_checkpoints_crash.py",
        "test_code_quality.py",
        "test_differential_sdks.py",
        "test_invalid_call_history.py",
        "test_output_budget_sent.py",
        "test_replay_headless.py",
        "test_serve_http.py",
        "test_text_width_rule.py",
        "test_tools_run_command.py",
        "test_ui_app_approval.py",
        "test_ui_app_roundtrip.py",
        "test_ui_confirm_edit.py",
        "test_ui_context.py",
        "test_ui_first_hour.py",
        "test_ui_message_queue.py",
        "test_ui_mode_change_waiting.py",
        "test_ui_new_session_demo.py",
        "test_ui_notify.py",
        "test_ui_overflow_after_results.py",
        "test_ui_prompt_path_notes.py",
        "test_ui_rewind.py",
        "test_ui_sandbox.py",
        "test_ui_server_window.py",
        "test_ui_session_browser.py",
        "test_ui_small_terminals.py",
        "test_ui_snapshots_app.py",
        "test_ui_snapshots_approval.py",
        "test_ui_snapshots_transcript.py",
        "test_ui_stream_whole.py",
        "test_ui_toasts.py",
        "test_ui_transcript_lazy.py",
    ]
)
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of ``HEAVY_MODULES`` are marked heavy, every test in them, and so is every
    test that takes the ``home`` fixture (it runs ``tui-agent`` as a subprocess)."""
    for item in items:
        module = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
        if module in HEAVY_MODULES or "home" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.heavy)
