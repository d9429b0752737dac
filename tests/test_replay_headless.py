"""`tui-agent replay ID --headless`: the transcript as text, through the real command line.

Sessions come from a real `tui-agent run` against the offline demo model and from the real
SessionStore (a denial, a rule approval, an invalid call, a cut turn, a withdrawal). Each run is
a subprocess with isolated folders and no key in the environment; the file is only read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.replay_helpers import (
    CUT_REASON,
    ROOT,
    TIMEOUT_S,
    demo_env,
    demo_session,
    written_session,
)
from tui_agent.replay import ReplayScript
from tui_agent.replay.script import WITHDRAWN
from tui_agent.replay.text_transcript import RESULT_LINES, transcript_text
from tui_agent.session import SessionStore
from tui_agent.session.records import (
    AssistantRecord,
    ToolCallRecord,
    ToolResultRecord,
    UserRecord,
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_session(tmp_path_factory.mktemp("demo"))


def headless(session: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    for folder in ("config", "data", "state", "cache"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", "replay", str(session), "--headless"],
        cwd=ROOT,
        env=demo_env(home),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def printed(session: Path, home: Path) -> str:
    done = headless(session, home)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def test_a_demo_session_prints_its_turns_calls_and_results(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    text = printed(demo, tmp_path)
    lines = text.splitlines()
    assert lines[0].startswith("session ") and "list the files" in lines[0]
    assert "user: list the files" in lines
    call = next(line for line in lines if line.startswith("call list_dir ["))
    assert call.endswith('{"path": "."}')
    decision = next(line for line in lines if " decision: " in line)
    assert decision.startswith("  list_dir [") and "auto-approved" in decision
    at = lines.index(next(line for line in lines if " result (done)" in line))
    assert {"    README.md", "    alpha.txt"} <= set(lines[at + 1 : at + 3])
    answer = [line for line in lines if line.startswith("assistant: ")]
    assert len(answer) == 2 and "alpha.txt" in answer[-1]
    assert lines.index(call) < lines.index(decision) < at < lines.index(answer[-1])
    assert demo.read_bytes() == before  # only read


def test_the_same_session_prints_the_same_text_twice(demo: Path, tmp_path: Path) -> None:
    assert printed(demo, tmp_path / "a") == printed(demo, tmp_path / "b")


def test_denial_invalid_call_cut_turn_and_withdrawal(tmp_path: Path) -> None:
    path = written_session(tmp_path / "sessions")
    text = printed(path, tmp_path)
    assert printed(path, tmp_path) == text
    lines = text.splitlines()
    expected = [
        "user: read notes.txt",
        "assistant: Reading.",
        'call read_file [call_A] {"path": "notes.txt"}',
        'call run_command [call_B] {"command": "rm -rf /"}',
        "call nope [call_C] {}",
        "  nope [call_C] invalid: no tool named 'nope'",
        "  nope [call_C] result (invalid, error): no tool named 'nope'",
        "  read_file [call_A] decision: auto-approved by rule: tool read_file",
        "  run_command [call_B] decision: denied: too risky",
        "  run_command [call_B] result (denied, error): denied by user: too risky",
        "  read_file [call_A] result (done): hello notes",
        "turn discarded: cut, the stream ended before the provider finished the turn: "
        + CUT_REASON,
        "  text so far: Writing it",
        "  pending call: write_file [call_W]",
        f"note: {WITHDRAWN}",
    ]
    assert lines[lines.index(expected[0]) :] == expected


def test_a_torn_tail_and_a_corrupt_line_are_noted_and_passed(tmp_path: Path) -> None:
    path = written_session(tmp_path / "sessions")
    lines = path.read_text("utf-8").splitlines()
    lines.insert(3, "{not json at all")
    path.write_text("\n".join(lines) + '\n{"type": "user", "te', encoding="utf-8")
    out = printed(path, tmp_path).splitlines()
    warnings = [line for line in out if line.startswith("warning: session file: ")]
    assert len(warnings) == 2 and "line 4" in warnings[0]
    assert out.index(warnings[-1]) < out.index("user: read notes.txt")
    assert "  pending call: write_file [call_W]" in out  # printed past the bad line


def test_hostile_text_prints_inert(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace="/w")
    osc = "\x1b]52;c;SGVsbG8=\x07"
    writer.append(UserRecord(ts=1.0, text=f"hi {osc}\x9b2J\u202eevil"))
    call = ToolCallRecord(id="c\x1b[1", name="read\u200bfile", arguments='{"p": "\\u001b[2J"}')
    writer.append(_assistant("ok \x1b[31mred", [call]))
    output = "\n".join(f"line {n} \x1b[2J\r" for n in range(RESULT_LINES + 5))
    writer.append(ToolResultRecord(ts=3.0, call_id=call.id, name=call.name, output=output))
    writer.close()
    done = headless(writer.path, tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for char in ("\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\r"):
        assert char not in text
    assert "\\x1b]52;c;SGVsbG8=\\x07" in text and "<U+202E>evil" in text
    assert 'call read<U+200B>file [c\\x1b[1] {"p": "\\u001b[2J"}' in text  # JSON's own escape
    assert "… 5 more lines" in text and f"line {RESULT_LINES} " not in text


def test_an_unknown_id_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    for session in ("no-such-session", str(tmp_path / "missing.jsonl")):
        done = headless(session, tmp_path)
        assert done.returncode == 1 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1
        assert done.stderr.startswith("tui-agent replay: ")


def test_the_text_is_built_from_the_replay_script(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    loaded = SessionStore(tmp_path).load(str(path))
    script = ReplayScript.from_records(loaded.records, loaded.problems)
    # What `replay --headless` prints is the script's transcript under the three head lines.
    out = printed(path, tmp_path)
    assert out == transcript_text(script, out.splitlines()[:3])
    assert out.splitlines()[2] == "" and out.splitlines()[3] == "user: read notes.txt"
    assert transcript_text(script, ["head"]).startswith("head\nuser: read notes.txt\n")


def _assistant(text: str, calls: list[ToolCallRecord]) -> AssistantRecord:
    return AssistantRecord(
        ts=2.0,
        protocol="openai-chat",
        model="m",
        text=text,
        reasoning="thinking \x1b[8m hidden",
        tool_calls=calls,
        stop_reason="tool_calls",
        usage=None,
        response_id=None,
        raw=[],
    )
