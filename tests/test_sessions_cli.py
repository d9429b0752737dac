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


# -- list -----------------------------------------------------------------------------------


def test_list_is_newest_first_with_every_json_field(cli: Cli) -> None:
    old = cli.session("first question", "second")
    new = cli.session("a newer one")
    middle = cli.session("made last, updated in between", workspace="/elsewhere")
    cli.set_updated(old, 1_700_000_000.0)
    cli.set_updated(middle, 1_700_000_100.0)
    cli.set_updated(new, 1_700_000_200.0)

    rows = cli.listed()
    assert [row["id"] for row in rows] == [new, middle, old]
    assert all(set(row) == FIELDS for row in rows)
    first = rows[2]
    assert first["title"] == "first question" and first["messages"] == 4
    assert first["updated"] == "2023-11-14T22:13:20.000Z"
    assert ISO_UTC.fullmatch(first["created"])
    assert abs(datetime.fromisoformat(first["created"]).timestamp() - time.time()) < 60
    assert first["profile"] == "default" and first["protocol"] == "openai-chat"
    assert first["model"] == "m1" and first["workspace"] == str(cli.workspace)
    assert Path(first["path"]) == cli.store.resolve(old)

    # Every workspace by default (and with --all); --workspace narrows it.
    assert [row["id"] for row in cli.listed("--all")] == [new, middle, old]
    assert [row["id"] for row in cli.listed("--workspace", str(cli.workspace))] == [new, old]
    assert cli.listed("--workspace", str(cli.root / "nowhere")) == []


@pytest.mark.heavy
def test_the_table_as_the_real_command_prints_it(cli: Cli) -> None:
    session = cli.session("what is in notes.txt?")
    cli.set_updated(session, 1_700_000_000.0)
    out = cli.spawn("sessions")
    assert out.code == 0, out.stderr
    header, row = out.stdout.splitlines()
    assert header.split() == ["ID", "UPDATED", "PROFILE/MODEL", "MESSAGES", "TITLE"]
    assert row.split()[:5] == [session, "2023-11-14", "22:13", "default/m1", "2"]
    assert row.endswith("  what is in notes.txt?")
    listed = cli.spawn("sessions", "--json")
    assert listed.code == 0 and [r["id"] for r in json.loads(listed.stdout)] == [session]


def test_no_sessions_is_an_empty_list(cli: Cli) -> None:
    out = cli.main("sessions")
    assert out.code == 0 and out.stdout == "" and "no saved sessions" in out.stderr
    assert cli.listed() == []


def test_hostile_titles_reach_the_terminal_inert(cli: Cli) -> None:
    hostile = "evil\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J\u202etxt.exe\x9b31m"
    cli.session(hostile)
    renamed = cli.session("fine")
    assert cli.main("sessions", "rename", renamed, "\x1b[31mred\x1b[0m\u200b").code == 0
    model_escape = "m\x1b[5m"
    with cli.store.create(
        profile="p\x07", protocol="openai-chat", model=model_escape, workspace="/w"
    ) as writer:
        writer.append(UserRecord(text="hi"))
    for out in (cli.main("sessions"), cli.main("sessions", "--json")):
        assert out.code == 0
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u202e]", out.stdout)
    table = cli.main("sessions").stdout
    assert "\\x1b[5m" in table and "\\x07" in table  # profile and model: escaped, visible
    assert "red" in table and "evil" in table


# -- rename -------------------------------------------------------------------------------


def test_rename_wins_over_the_header_title_and_the_first_message(cli: Cli) -> None:
    plain = cli.session("the first message")
    titled = cli.session("another", title="from the header")
    assert {r["id"]: r["title"] for r in cli.listed()} == {
        plain: "the first message",
        titled: "from the header",
    }
    out = cli.spawn("sessions", "rename", plain[:10], "Tidy the build")
    assert out.code == 0, out.stderr
    assert out.stdout == f"renamed {plain}: Tidy the build\n"
    assert cli.main("sessions", "rename", titled, "Renamed once").code == 0
    assert cli.main("sessions", "rename", titled, "Renamed twice").code == 0
    titles = {r["id"]: r["title"] for r in cli.listed()}
    assert titles == {plain: "Tidy the build", titled: "Renamed twice"}
    assert cli.store.load(plain).title == "Tidy the build"


def test_rename_refuses_an_empty_title_and_a_session_in_use(cli: Cli) -> None:
    session = cli.session("hello")
    out = cli.main("sessions", "rename", session, " \x1b ")
    assert out.code == 1 and "title is empty" in out.error_line()
    with cli.store.open_for_append(session):
        out = cli.main("sessions", "rename", session, "New")
    assert out.code == 1 and "open in another tui-agent process" in out.error_line()
    assert cli.store.load(session).title == "hello"


# -- delete -------------------------------------------------------------------------------


def test_delete_without_a_terminal_needs_yes(cli: Cli) -> None:
    session = cli.session("keep me unless told")
    out = cli.spawn("sessions", "delete", session)
    assert out.code == 1
    assert "--yes" in out.error_line() and "not a terminal" in out.error_line()
    assert cli.store.resolve(session).is_file()
    out = cli.spawn("sessions", "delete", session[:8], "--yes")
    assert out.code == 0 and out.stdout == f"deleted {session}\n", out.stderr
    assert cli.listed() == []


def _delete_on_a_terminal(cli: Cli, session: str, answer: bytes) -> tuple[int, str]:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", "sessions", "delete", session],
            cwd=cli.workspace,
            env=cli.env(),
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


def test_delete_asks_on_a_terminal(cli: Cli) -> None:
    keep = cli.session("keep")
    drop = cli.session("drop")
    code, stderr = _delete_on_a_terminal(cli, keep, b"n\n")
    assert code == 1 and "Delete session " + keep in stderr and "not deleted" in stderr
    assert cli.store.resolve(keep).is_file()
    code, stderr = _delete_on_a_terminal(cli, drop, b"y\n")
    assert code == 0, stderr
    assert [r["id"] for r in cli.listed()] == [keep]


def test_delete_takes_a_path_in_the_folder_only(cli: Cli, tmp_path: Path) -> None:
    session = cli.session("hello")
    path = cli.store.resolve(session)
    outside = tmp_path / "copy.jsonl"
    outside.write_bytes(path.read_bytes())
    out = cli.main("sessions", "delete", str(outside), "--yes")
    assert out.code == 1 and "not in the session folder" in out.error_line()
    assert outside.is_file()
    with cli.store.open_for_append(session):
        out = cli.main("sessions", "delete", str(path), "--yes")
        assert out.code == 1 and "open in another tui-agent process" in out.error_line()
    assert cli.main("sessions", "delete", str(path), "--yes").code == 0
    assert not path.exists()


# -- fork ---------------------------------------------------------------------------------


def test_fork_keeps_the_messages_up_to_n_with_their_results(cli: Cli) -> None:
    source = conversation(cli.store, str(cli.workspace))
    out = cli.spawn("sessions", "fork", source, "--at", "3", "--title", "Second try")
    assert out.code == 0, out.stderr
    fork_id = out.stdout.strip()
    assert re.fullmatch(r"[0-9a-z]{14}", fork_id) and fork_id != source
    assert f"forked {source} at message 3 into {fork_id}" in out.stderr

    original, fork = cli.store.load(source), cli.store.load(fork_id)
    # Every record up to message 4, as stored (timestamps too), then the fork note.
    assert fork.records[:-1] == original.records[:15]
    assert fork.records[-1] == NoteRecord(
        ts=fork.records[-1].ts, kind="fork", text=f"forked from {source} at message 3"
    )
    for name in ("profile", "protocol", "model", "workspace"):
        assert getattr(fork.header, name) == getattr(original.header, name)
    assert fork.header.id == fork_id and fork.header.title == "Second try"
    assert messages_from_records(fork.records)[1] == []  # nothing to repair: valid as it is
    row = next(r for r in cli.listed() if r["id"] == fork_id)
    assert row["messages"] == 3 and row["title"] == "Second try"
    assert cli.listed()[0]["id"] == fork_id  # the newest session


def test_a_fork_of_a_call_without_result_is_repaired(cli: Cli) -> None:
    source = conversation(cli.store)
    out = cli.main("sessions", "fork", source, "--at", "6")
    assert out.code == 0, out.stderr
    fork = cli.store.load(out.stdout.strip())
    repair = fork.records[-2]
    assert isinstance(repair, ToolResultRecord)
    assert (repair.call_id, repair.status, repair.output) == ("c7", "interrupted", INTERRUPTED)
    assert messages_from_records(fork.records)[1] == []
    assert "1 call without a result marked interrupted" in out.stderr
    # In the source, the call is still open (it gets its result only when resumed).
    assert len(messages_from_records(cli.store.load(source).records)[1]) == 1


def test_a_fork_at_a_user_message_ends_with_it_and_is_titled_a_fork(cli: Cli) -> None:
    source = cli.session("one", "two", "three")
    assert cli.main("sessions", "rename", source, "Numbers").code == 0
    out = cli.main("sessions", "fork", source, "--at", "3")
    assert out.code == 0, out.stderr
    fork = cli.store.load(out.stdout.strip())
    assert [getattr(r, "text", None) for r in fork.records[:-1]] == [
        "one",
        "answer to one",
        "two",
    ]
    # The rename stays behind (it was the source's); the fork's title says what it is.
    assert not any(isinstance(r, NoteRecord) and r.kind == "rename" for r in fork.records)
    assert fork.title == "fork of Numbers at message 3" == fork.header.title


def test_fork_from_a_path_outside_the_folder(cli: Cli, tmp_path: Path) -> None:
    source = cli.session("one", "two")
    outside = tmp_path / "elsewhere" / "saved.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(cli.store.resolve(source).read_bytes())
    cli.store.delete(source)
    out = cli.main("sessions", "fork", str(outside), "--at", "2")
    assert out.code == 0, out.stderr
    assert [r["messages"] for r in cli.listed()] == [2]


@pytest.mark.parametrize(
    ("at", "words"),
    [("5", "no message 5: the session has messages 1 to 4"), ("0", "numbered from 1")],
)
def test_fork_at_a_message_that_does_not_exist(cli: Cli, at: str, words: str) -> None:
    source = cli.session("one", "two")
    out = cli.main("sessions", "fork", source, "--at", at)
    assert out.code == 1 and words in out.error_line()
    assert len(cli.listed()) == 1


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["rename", "delete", "fork"])
def test_an_unknown_id_is_one_line(cli: Cli, action: str) -> None:
    cli.session("one")
    extra = {"rename": ["T"], "delete": ["--yes"], "fork": ["--at", "1"]}[action]
    out = cli.main("sessions", action, "nosuchsession", *extra)
    assert out.code == 1 and "no session 'nosuchsession'" in out.error_line()


def test_an_ambiguous_prefix_and_a_corrupt_file_are_one_line(cli: Cli, tmp_path: Path) -> None:
    cli.session("one")
    cli.session("two")
    out = cli.main("sessions", "fork", "", "--at", "1")
    assert out.code == 1 and "not a session id" in out.error_line()
    first, second = (r["id"] for r in cli.listed())
    prefix = next(first[:n] for n in range(len(first)) if first[n] != second[n])
    out = cli.main("sessions", "fork", prefix, "--at", "1")
    assert out.code == 1 and "matches 2 sessions" in out.error_line()
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_bytes(b'{"type": "user", "te\x00\x00garbage\n\xff\xfe\n')
    out = cli.spawn("sessions", "fork", str(corrupt), "--at", "1")
    assert out.code == 1 and "holds no readable session records" in out.error_line()


def test_usage_errors_are_one_line_and_exit_1(cli: Cli) -> None:
    out = cli.spawn("sessions", "fork", "abc")
    assert out.code == 1 and "--at" in out.error_line()
    out = cli.main("sessions", "--all", "--workspace", "x")
    assert out.code == 1 and "not allowed with" in out.error_line()
