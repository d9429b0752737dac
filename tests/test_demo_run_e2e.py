"""`tui-agent run` on the built-in offline model, as a real subprocess: no config file, no key
in the environment, empty XDG folders, a small workspace (named with --workspace; the demo's own
workspace is tested in test_demo_workspace_run.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .run_helpers import split_session_line

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str
    session_line: str | None = None

    def __post_init__(self) -> None:
        self.stdout, self.stderr, self.session_line = split_session_line(self.stdout, self.stderr)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for folder in ("config", "data", "state", "cache"):
        (tmp_path / folder).mkdir()
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "README.md").write_text("# Sample\n\nA sample project.\n", encoding="utf-8")
    (workspace / "alpha.txt").write_text("alpha\n", encoding="utf-8")
    (workspace / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    return tmp_path


def run(home: Path, *args: str, workspace: bool = True) -> Done:
    """``tui-agent run ARGS`` started in ``home/ws``; with ``workspace`` that folder is named
    (``--workspace``), else the demo works in its own folder in the data directory."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "TUI_AGENT_DEMO_PACE": "0",
    }
    assert not any(name.endswith("_API_KEY") for name in env)
    named = ["--workspace", str(home / "ws")] if workspace else []
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "run", *args, *named],
        cwd=home / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def test_list_the_files_names_them(home: Path) -> None:
    done = run(home, "list the files", "--profile", "demo", "--approve", "read-only")
    assert done.code == 0, done.stderr
    final = done.stdout.strip().splitlines()[-1]
    assert "3 entries" in final
    for name in ("`README.md`", "`alpha.txt`", "`src/`"):
        assert name in final
    assert "offline demo model" in done.stderr and "config.toml" in done.stderr
    assert "[list_dir] done" in done.stderr
    [session] = (home / "data" / "tui-agent" / "sessions").glob("*.jsonl")
    header = json.loads(session.read_text(encoding="utf-8").splitlines()[0])
    assert (header["profile"], header["model"]) == ("demo", "tui-agent-demo")


def test_with_no_config_and_no_key_the_demo_answers(home: Path) -> None:
    done = run(home, "read README.md and alpha.txt in parallel", "--approve", "read-only", "--json")
    assert done.code == 0, done.stderr
    events: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    announced = [(e["call_id"], e["name"]) for e in events if e["type"] == "tool_call_announced"]
    assert announced == [("call_demo_1_0", "read_file"), ("call_demo_1_1", "read_file")]
    # Arguments arrive in many fragments, so their size is reported many times as they grow.
    sizes = [e["size"] for e in events if e["type"] == "tool_arguments_received"]
    assert len(sizes) >= 6
    finished = [e["status"] for e in events if e["type"] == "tool_finished"]
    assert finished == ["done", "done"]
    answer = "".join(e["text"] for e in events if e["type"] == "text")
    assert "`README.md` has 3 lines" in answer and "`alpha.txt` has 1 line" in answer
    assert (events[-1]["type"], events[-1]["outcome"]) == ("loop_ended", "complete")


def test_write_with_approve_all_creates_the_file(home: Path) -> None:
    done = run(
        home, "write notes.txt saying hello from the demo", "--profile", "demo", "--approve", "all"
    )
    assert done.code == 0, done.stderr
    assert (home / "ws" / "notes.txt").read_text(encoding="utf-8") == "hello from the demo\n"
    assert "Done: created notes.txt" in done.stdout


def test_write_without_approval_is_denied_and_said_so(home: Path) -> None:
    done = run(home, "write notes.txt saying hello", "--profile", "demo")
    assert done.code == 0, done.stderr
    assert not (home / "ws" / "notes.txt").exists()
    assert (
        "The approval mode denied the call to `write_file`, so I did not write `notes.txt`"
        in done.stdout
    )


def test_truncate_exits_2_and_runs_nothing(home: Path) -> None:
    done = run(home, "truncate", "--profile", "demo", "--approve", "all")
    assert done.code == 2, done.stderr
    assert "Here is a turn that never finishes." in done.stdout
    assert not (home / "ws" / "never-written.txt").exists()


def test_with_no_workspace_named_the_demo_works_in_its_own_folder_and_says_so(home: Path) -> None:
    demo = home / "data" / "tui-agent" / "demo-workspace"
    done = run(home, "read notes.md", "--approve", "read-only", workspace=False)
    assert done.code == 0, done.stderr
    assert f"info: the demo works in its own folder {demo} (sample files" in done.stderr
    assert "`notes.md` has" in done.stdout and "# Notes" in done.stdout
    assert not (home / "ws" / "notes.md").exists()
    done = run(home, "write notes.txt saying hi", "--approve", "all", "--json", workspace=False)
    assert done.code == 0, done.stderr
    notices = [
        e["text"] for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "notice"
    ]
    assert any(f"the demo works in its own folder {demo}" in text for text in notices)
    assert (demo / "notes.txt").read_text(encoding="utf-8") == "hi\n"
    assert not (home / "ws" / "notes.txt").exists()
