"""`tui-agent sessions`: the list (table and --json), rename, delete and fork, on real files."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tui_agent.agent.history import INTERRUPTED, messages_from_records
from tui_agent.session.records import NoteRecord, ToolResultRecord, UserRecord

from .sessions_cli_helpers import Cli, conversation

FIELDS = {
    "cost",
    "cost_unknown_turns",
    "id",
    "title",
    "created",
    "updated",
    "profile",
    "protocol",
    "model",
    "messages",
    "workspace",
    "path",
}
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    return Cli(tmp_path, monkeypatch)


# -- list -----------------------------------------------------------------------------------


def test_list_is_newest_first_with_every_json_field(home: Cli) -> None:
    old = home.session("first question", "second")
    new = home.session("a newer one")
    middle = home.session("made last, updated in between", workspace="/elsewhere")
    home.set_updated(old, 1_700_000_000.0)
    home.set_updated(middle, 1_700_000_100.0)
    home.set_updated(new, 1_700_000_200.0)

    rows = home.listed()
    assert [row["id"] for row in rows] == [new, middle, old]
    assert all(set(row) == FIELDS for row in rows)
    first = rows[2]
    assert first["title"] == "first question" and first["messages"] == 4
    assert first["updated"] == "2023-11-14T22:13:20.000Z"
    assert ISO_UTC.fullmatch(first["created"])
    assert abs(datetime.fromisoformat(first["created"]).timestamp() - time.time()) < 60
    assert first["profile"] == "default" and first["protocol"] == "openai-chat"
    assert first["model"] == "m1" and first["workspace"] == str(home.workspace)
    assert Path(first["path"]) == home.store.resolve(old)

    # Every workspace by default (and with --all); --workspace narrows it.
    assert [row["id"] for row in home.listed("--all")] == [new, middle, old]
    assert [row["id"] for row in home.listed("--workspace", str(home.workspace))] == [new, old]
    assert home.listed("--workspace", str(home.root / "nowhere")) == []


def test_the_table_as_the_real_command_prints_it(home: Cli) -> None:
    session = home.session("what is in notes.txt?")
    home.set_updated(session, 1_700_000_000.0)
    out = home.spawn("sessions")
    assert out.code == 0, out.stderr
    header, row = out.stdout.splitlines()
    assert header.split() == ["ID", "UPDATED", "PROFILE/MODEL", "MESSAGES", "TITLE"]
    assert row.split()[:5] == [session, "2023-11-14", "22:13", "default/m1", "2"]
    assert row.endswith("  what is in notes.txt?")
    listed = home.spawn("sessions", "--json")
    assert listed.code == 0 and [r["id"] for r in json.loads(listed.stdout)] == [session]


def test_no_sessions_is_an_empty_list(home: Cli) -> None:
    out = home.main("sessions")
    assert out.code == 0 and out.stdout == "" and "no saved sessions" in out.stderr
    assert home.listed() == []


def test_hostile_titles_reach_the_terminal_inert(home: Cli) -> None:
    hostile = "evil\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\u202etxt.exe\x9b31m"
    home.session(hostile)
    renamed = home.session("fine")
    assert home.main("sessions", "rename", renamed, "\x1b[31mred\x1b[0m\u200b").code == 0
    model_escape = "m\x1b[5m"
    with home.store.create(
        profile="p\x07", protocol="openai-chat", model=model_escape, workspace="/w"
    ) as writer:
        writer.append(UserRecord(text="hi"))
    for out in (home.main("sessions"), home.main("sessions", "--json")):
        assert out.code == 0
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u202e]", out.stdout)
    table = home.main("sessions").stdout
    assert "\\x1b[5m" in table and "\\x07" in table  # profile and model: escaped, visible
    assert "red" in table and "evil" in table


# -- rename -------------------------------------------------------------------------------


def test_rename_wins_over_the_header_title_and_the_first_message(home: Cli) -> None:
    plain = home.session("the first message")
    titled = home.session("another", title="from the header")
    assert {r["id"]: r["title"] for r in home.listed()} == {
        plain: "the first message",
        titled: "from the header",
    }
    out = home.spawn("sessions", "rename", plain[:10], "Tidy the build")
    assert out.code == 0, out.stderr
    assert out.stdout == f"renamed {plain}: Tidy the build\n"
    assert home.main("sessions", "rename", titled, "Renamed once").code == 0
    assert home.main("sessions", "rename", titled, "Renamed twice").code == 0
    titles = {r["id"]: r["title"] for r in home.listed()}
    assert titles == {plain: "Tidy the build", titled: "Renamed twice"}
    assert home.store.load(plain).title == "Tidy the build"


def test_rename_refuses_an_empty_title_and_a_session_in_use(home: Cli) -> None:
    session = home.session("hello")
    out = home.main("sessions", "rename", session, " \x1b ")
    assert out.code == 1 and "title is empty" in out.error_line()
    with home.store.open_for_append(session):
        out = home.main("sessions", "rename", session, "New")
    assert out.code == 1 and "open in another tui-agent process" in out.error_line()
    assert home.store.load(session).title == "hello"


# -- delete -------------------------------------------------------------------------------


def test_delete_without_a_terminal_needs_yes(home: Cli) -> None:
    session = home.session("keep me unless told")
    out = home.spawn("sessions", "delete", session)
    assert out.code == 1
    assert "--yes" in out.error_line() and "not a terminal" in out.error_line()
    assert home.store.resolve(session).is_file()
    out = home.spawn("sessions", "delete", session[:8], "--yes")
    assert out.code == 0 and out.stdout == f"deleted {session}\n", out.stderr
    assert home.listed() == []


def _delete_on_a_terminal(home: Cli, session: str, answer: bytes) -> tuple[int, str]:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", "sessions", "delete", session],
            cwd=home.workspace,
            env=home.env(),
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.write(controller, answer)
        _, stderr = process.communicate(timeout=60)
    finally:
        os.close(terminal)
        os.close(controller)
    return process.returncode, stderr.decode()


def test_delete_asks_on_a_terminal(home: Cli) -> None:
    keep = home.session("keep")
    drop = home.session("drop")
    code, stderr = _delete_on_a_terminal(home, keep, b"n\n")
    assert code == 1 and "Delete session " + keep in stderr and "not deleted" in stderr
    assert home.store.resolve(keep).is_file()
    code, stderr = _delete_on_a_terminal(home, drop, b"y\n")
    assert code == 0, stderr
    assert [r["id"] for r in home.listed()] == [keep]


def test_delete_takes_a_path_in_the_folder_only(home: Cli, tmp_path: Path) -> None:
    session = home.session("hello")
    path = home.store.resolve(session)
    outside = tmp_path / "copy.jsonl"
    outside.write_bytes(path.read_bytes())
    out = home.main("sessions", "delete", str(outside), "--yes")
    assert out.code == 1 and "not in the session folder" in out.error_line()
    assert outside.is_file()
    with home.store.open_for_append(session):
        out = home.main("sessions", "delete", str(path), "--yes")
        assert out.code == 1 and "open in another tui-agent process" in out.error_line()
    assert home.main("sessions", "delete", str(path), "--yes").code == 0
    assert not path.exists()


# -- fork ---------------------------------------------------------------------------------


def test_fork_keeps_the_messages_up_to_n_with_their_results(home: Cli) -> None:
    source = conversation(home.store, str(home.workspace))
    out = home.spawn("sessions", "fork", source, "--at", "3", "--title", "Second try")
    assert out.code == 0, out.stderr
    fork_id = out.stdout.strip()
    assert re.fullmatch(r"[0-9a-z]{14}", fork_id) and fork_id != source
    assert f"forked {source} at message 3 into {fork_id}" in out.stderr

    original, fork = home.store.load(source), home.store.load(fork_id)
    # Every record up to message 4, as stored (timestamps too), then the fork note.
    assert fork.records[:-1] == original.records[:15]
    assert fork.records[-1] == NoteRecord(
        ts=fork.records[-1].ts, kind="fork", text=f"forked from {source} at message 3"
    )
    for name in ("profile", "protocol", "model", "workspace"):
        assert getattr(fork.header, name) == getattr(original.header, name)
    assert fork.header.id == fork_id and fork.header.title == "Second try"
    assert messages_from_records(fork.records)[1] == []  # nothing to repair: valid as it is
    row = next(r for r in home.listed() if r["id"] == fork_id)
    assert row["messages"] == 3 and row["title"] == "Second try"
    assert home.listed()[0]["id"] == fork_id  # the newest session


def test_a_fork_of_a_call_without_result_is_repaired(home: Cli) -> None:
    source = conversation(home.store)
    out = home.main("sessions", "fork", source, "--at", "6")
    assert out.code == 0, out.stderr
    fork = home.store.load(out.stdout.strip())
    repair = fork.records[-2]
    assert isinstance(repair, ToolResultRecord)
    assert (repair.call_id, repair.status, repair.output) == ("c7", "interrupted", INTERRUPTED)
    assert messages_from_records(fork.records)[1] == []
    assert "1 call without a result marked interrupted" in out.stderr
    # In the source, the call is still open (it gets its result only when resumed).
    assert len(messages_from_records(home.store.load(source).records)[1]) == 1


def test_a_fork_at_a_user_message_ends_with_it_and_is_titled_a_fork(home: Cli) -> None:
    source = home.session("one", "two", "three")
    assert home.main("sessions", "rename", source, "Numbers").code == 0
    out = home.main("sessions", "fork", source, "--at", "3")
    assert out.code == 0, out.stderr
    fork = home.store.load(out.stdout.strip())
    assert [getattr(r, "text", None) for r in fork.records[:-1]] == [
        "one",
        "answer to one",
        "two",
    ]
    # The rename stays behind (it was the source's); the fork's title says what it is.
    assert not any(isinstance(r, NoteRecord) and r.kind == "rename" for r in fork.records)
    assert fork.title == "fork of Numbers at message 3" == fork.header.title


def test_fork_from_a_path_outside_the_folder(home: Cli, tmp_path: Path) -> None:
    source = home.session("one", "two")
    outside = tmp_path / "elsewhere" / "saved.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(home.store.resolve(source).read_bytes())
    home.store.delete(source)
    out = home.main("sessions", "fork", str(outside), "--at", "2")
    assert out.code == 0, out.stderr
    assert [r["messages"] for r in home.listed()] == [2]


@pytest.mark.parametrize(
    ("at", "words"),
    [("5", "no message 5: the session has messages 1 to 4"), ("0", "numbered from 1")],
)
def test_fork_at_a_message_that_does_not_exist(home: Cli, at: str, words: str) -> None:
    source = home.session("one", "two")
    out = home.main("sessions", "fork", source, "--at", at)
    assert out.code == 1 and words in out.error_line()
    assert len(home.listed()) == 1


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["rename", "delete", "fork"])
def test_an_unknown_id_is_one_line(home: Cli, action: str) -> None:
    home.session("one")
    extra = {"rename": ["T"], "delete": ["--yes"], "fork": ["--at", "1"]}[action]
    out = home.main("sessions", action, "nosuchsession", *extra)
    assert out.code == 1 and "no session 'nosuchsession'" in out.error_line()


def test_an_ambiguous_prefix_and_a_corrupt_file_are_one_line(home: Cli, tmp_path: Path) -> None:
    home.session("one")
    home.session("two")
    out = home.main("sessions", "fork", "", "--at", "1")
    assert out.code == 1 and "not a session id" in out.error_line()
    first, second = (r["id"] for r in home.listed())
    prefix = next(first[:n] for n in range(len(first)) if first[n] != second[n])
    out = home.main("sessions", "fork", prefix, "--at", "1")
    assert out.code == 1 and "matches 2 sessions" in out.error_line()
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_bytes(b'{"type": "user", "te\x00\x00garbage\n\xff\xfe\n')
    out = home.spawn("sessions", "fork", str(corrupt), "--at", "1")
    assert out.code == 1 and "holds no readable session records" in out.error_line()


def test_usage_errors_are_one_line_and_exit_1(home: Cli) -> None:
    out = home.spawn("sessions", "fork", "abc")
    assert out.code == 1 and "--at" in out.error_line()
    out = home.main("sessions", "--all", "--workspace", "x")
    assert out.code == 1 and "not allowed with" in out.error_line()
