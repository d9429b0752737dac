"""`tui-agent rewind`: a real session made by `tui-agent run` on the offline demo model (a
write_file and a command, both checkpointed), then rewound from the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui_agent.session.records import NoteRecord, RewindRecord, UserRecord

from .checkpoint_helpers import picture
from .sessions_cli_helpers import TIMEOUT_S, Cli

pytestmark = pytest.mark.heavy


def _run(cli: Cli, *argv: str) -> str:
    flags = ["--profile", "demo", "--approve", "all", "--workspace", str(cli.workspace)]
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "run", *flags, *argv],
        cwd=cli.workspace,
        env={**cli.env(), "TUI_AGENT_DEMO_PACE": "0"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = re.match(r"session ([0-9a-z]+) ", done.stderr)
    assert found, done.stderr
    return found.group(1)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, Any]]:
    """One session, two turns: 'write notes.txt' (messages 1-3), a command (messages 4-6)."""
    root = tmp_path_factory.mktemp("rewind")
    with pytest.MonkeyPatch.context() as patch:
        cli = Cli(root, patch)
        (cli.workspace / "README.md").write_text("# Sample\n")
        (cli.workspace / "alpha.txt").write_text("alpha\n")
        original = picture(cli.workspace)
        session = _run(cli, "write notes.txt saying hello")
        _run(cli, "--session", session, "$ rm alpha.txt && echo more >> README.md")
    assert (cli.workspace / "notes.txt").exists() and not (cli.workspace / "alpha.txt").exists()
    return root, session, original


def _json(cli: Cli, *argv: str) -> tuple[int, dict[str, Any]]:
    out = cli.main("rewind", *argv, "--json")
    assert "Traceback" not in out.stderr, out.stderr
    return out.code, json.loads(out.stdout) if out.stdout else {}


def test_rewind_from_the_command_line(
    made: tuple[Path, str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, session, original = made
    cli = Cli(root, monkeypatch)
    ws = cli.workspace
    agent_state = picture(ws)
    # Usage errors: exit 1, one line.
    assert (
        cli.main("rewind", session, "--to", "2")
        .error_line()
        .endswith("message 2 is the assistant's; rewind to one of your messages")
    )
    assert cli.main("rewind", session, "--to", "99").code == 1
    assert cli.main("rewind", session).code == 1
    assert cli.main("rewind", "nosuchsession", "--to", "1").code == 1
    # A dry run changes nothing and says what would change.
    code, body = _json(cli, session, "--to", "4", "--dry-run")
    assert code == 0 and body["dry_run"] and body["session"] is None
    assert {(f["path"], f["action"]) for f in body["files"]} == {
        ("README.md", "restored"),
        ("alpha.txt", "restored"),
    }
    assert picture(ws) == agent_state
    # The person edits README.md after the agent: a conflict, kept; exit 2.
    (ws / "README.md").write_text("# Sample\nmine\n")
    code, body = _json(cli, session, "--to", "1", "--files-only")
    assert code == 2 and body["session"] is None
    assert {(f["path"], f["action"]) for f in body["files"]} == {
        ("README.md", "conflict"),
        ("alpha.txt", "restored"),
        ("notes.txt", "deleted"),
    }
    assert (ws / "README.md").read_text() == "# Sample\nmine\n"
    assert (ws / "alpha.txt").read_text() == "alpha\n" and not (ws / "notes.txt").exists()
    # Both, conflicts overwritten: the files are as before message 1, and a fork ends there.
    code, body = _json(cli, session, "--to", "1", "--overwrite-conflicts")
    assert code == 0, body
    assert [(f["path"], f["action"]) for f in body["files"]] == [("README.md", "restored")]
    assert picture(ws) == original
    fork = cli.store.load(body["session"])
    assert not any(isinstance(r, UserRecord) for r in fork.records)
    assert any(isinstance(r, NoteRecord) and r.kind == "fork" for r in fork.records)
    assert any(isinstance(r, RewindRecord) for r in fork.records)  # undoable from there too
    rewinds = [r for r in cli.store.load(session).records if isinstance(r, RewindRecord)]
    assert [r.to for r in rewinds] == [1, 1]
    # The last rewind is undone: README.md is the person's edit again.
    code, body = _json(cli, session, "--undo")
    assert code == 0 and [(f["path"], f["action"]) for f in body["files"]] == [
        ("README.md", "restored")
    ]
    assert (ws / "README.md").read_text() == "# Sample\nmine\n"


def test_conversation_only_forks_before_the_message(
    made: tuple[Path, str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, session, _original = made
    cli = Cli(root, monkeypatch)
    before = picture(cli.workspace)
    out = cli.main("rewind", session, "--to", "4", "--conversation-only")
    assert out.code == 0, out.stderr
    fork_id = out.stdout.strip().split()[3].rstrip(":")
    fork = cli.store.load(fork_id)
    users = [r.text for r in fork.records if isinstance(r, UserRecord)]
    assert users == ["write notes.txt saying hello"]
    assert picture(cli.workspace) == before


def test_text_output_is_one_line_per_file(
    made: tuple[Path, str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, session, _original = made
    cli = Cli(root, monkeypatch)
    out = cli.spawn("rewind", session, "--to", "4", "--dry-run")
    assert out.code in (0, 2), out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stdout.splitlines()
    assert "would be restored README.md (+0 -1 lines)" in lines, lines
    assert "the conversation would be forked before message 4" in out.stderr
