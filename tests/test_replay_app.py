"""`tui-agent replay` in the app (Pilot): the transcript is drawn by the live app's widgets and
router, the keys pause, step and change speed; nothing connects and nothing is written."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from tests.replay_helpers import CUT_REASON, FrozenClock, demo_session, written_session
from tui_agent import cli
from tui_agent.session import LoadedSession, SessionStore
from tui_agent.ui.replay_app import ReplayApp, ReplayStatus
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.notice import Notice
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.ui.widgets.transcript import Transcript
from tui_agent.ui.widgets.user_message import UserMessage

SIZE = (120, 50)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """A guard: any outgoing connection fails the test."""
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise AssertionError(f"the replay tried to connect to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield attempts
    assert attempts == []


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def load(path: Path) -> LoadedSession:
    return SessionStore(path.parent).load(str(path))


def items(app: ReplayApp) -> list[Widget]:
    return app.query_one(Transcript).mounted_items


def status(app: ReplayApp) -> str:
    return str(app.query_one(ReplayStatus).content)


def screen(app: ReplayApp) -> list[tuple[str, ...]]:
    """What the transcript shows, item by item."""
    out: list[tuple[str, ...]] = []
    for item in items(app):
        if isinstance(item, UserMessage):
            out.append(("user", item.text))
        elif isinstance(item, AssistantMessage):
            out.append(("assistant", item.text, item.discarded or ""))
        elif isinstance(item, ToolCallCard):
            m = item.model
            out.append(("call", m.name, m.state, m.detail, m.summary, m.output or ""))
        elif isinstance(item, Notice):
            out.append(("notice", item.text))
    return out


async def replay_to_the_end(app: ReplayApp, pilot: Any) -> None:
    for _ in range(500):
        if app.player.finished:
            break
        await pilot.pause(0.01)
    await pilot.pause()
    assert app.player.finished


@pytest.mark.heavy
async def test_a_demo_session_replays_at_speed_0(tmp_path: Path, no_network: list[Any]) -> None:
    path = demo_session(tmp_path)
    before = files(tmp_path / "ws"), files(path.parent)
    app = ReplayApp(load(path), speed=0)
    async with app.run_test(size=SIZE) as pilot:
        # The file is not locked while it is replayed: a writer could take it.
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        await replay_to_the_end(app, pilot)
        shown = screen(app)
        total = len(app.script)
        assert f"event {total} of {total} · speed instant · finished" in status(app)
    assert shown[0] == ("user", "list the files")
    [card] = [row for row in shown if row[0] == "call"]
    assert card[1:4] == ("list_dir", "done", "auto-approved: read-only tool in auto-read mode")
    assert "alpha.txt" in card[5] and "README.md" in card[5]
    answers = [row for row in shown if row[0] == "assistant"]
    assert answers[0][1].startswith("Let me list")
    assert "alpha.txt" in answers[-1][1] and answers[-1][2] == ""
    assert shown.index(answers[0]) < shown.index(card) < shown.index(answers[-1])
    assert (files(tmp_path / "ws"), files(path.parent)) == before

    # The same session replayed again shows the same screen.
    again = ReplayApp(load(path), speed=0)
    async with again.run_test(size=SIZE) as pilot:
        await replay_to_the_end(again, pilot)
        assert screen(again) == shown


async def test_decisions_a_cut_turn_and_a_withdrawal(tmp_path: Path, no_network: list[Any]) -> None:
    app = ReplayApp(load(written_session(tmp_path)), speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await replay_to_the_end(app, pilot)
        shown = screen(app)
    calls = {row[1]: row[2:4] for row in shown if row[0] == "call"}
    assert calls["read_file"] == ("done", "auto-approved by rule: tool read_file")
    assert calls["run_command"] == ("denied", "denied: too risky")
    assert calls["nope"][0] == "invalid"
    assert calls["write_file"] == ("cut", "the turn ended before it was complete")
    [cut] = [row for row in shown if row[0] == "assistant" and row[2]]
    assert cut[1] == "Writing it"
    assert "Turn discarded, the stream ended before" in cut[2] and CUT_REASON in cut[2]
    assert shown[-1] == ("notice", "you withdrew the message above; it was never answered")


async def test_the_keys(tmp_path: Path, no_network: list[Any]) -> None:
    clock = FrozenClock()  # time stands still: only the keys move the replay
    app = ReplayApp(load(written_session(tmp_path)), speed=1, clock=clock)
    total = len(app.script)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.player.position == 1  # the user's message; the turn's start waits 1 s
        assert screen(app) == [("user", "read notes.txt")]
        await pilot.press("space")
        assert f"event 1 of {total} · speed x1 · paused" in status(app)
        await pilot.press("full_stop")
        await pilot.pause()
        assert app.player.position == 2
        await pilot.press("full_stop")
        await pilot.pause()
        assert app.player.position == 3
        assert f"event 3 of {total} · speed x1 · paused" in status(app)
        await pilot.press("plus")
        assert "speed x2" in status(app)
        await pilot.press("minus", "minus")
        assert "speed x0.5" in status(app)
        await pilot.press("space")
        await pilot.pause()
        assert "speed x0.5 · playing" in status(app)
        assert app.player.position == 3  # the clock has not moved
        assert "space pause" in status(app) and "q leave" in status(app)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


def test_cli_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    garbage = tmp_path / "bad.jsonl"
    garbage.write_text("not json\n\x00\x00\n", encoding="utf-8")
    for argv in (
        ["replay", "1zzzzzzz"],
        ["replay", str(tmp_path / "missing.jsonl")],
        ["replay", str(garbage)],
        ["replay", str(garbage), "--speed", "-1"],
        ["replay", str(garbage), "--speed", "fast"],
    ):
        with pytest.raises(SystemExit) if "--speed" in argv else contextlib.nullcontext():
            assert cli.main(argv) == 1
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith("tui-agent"), err
        assert "Traceback" not in err
