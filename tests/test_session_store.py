"""The store on real files: round trips, permissions, listing, renaming, deleting, ids, paths."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from tui_agent.session import (
    Redactor,
    SessionClosedError,
    SessionLockedError,
    SessionNotFoundError,
    SessionStore,
    is_session_path,
    new_session_id,
    paths,
)
from tui_agent.session.records import AssistantRecord, HeaderRecord, UserRecord

from .session_samples import OPAQUE_EVENTS, every_record


def _store(tmp_path: Path, *secrets: str) -> SessionStore:
    return SessionStore(tmp_path / "data" / "sessions", Redactor(secrets))


def _new(store: SessionStore, workspace: str = "/w", **fields: str) -> tuple[str, Path]:
    with store.create(profile="p", protocol="openai-chat", model="m", workspace=workspace) as w:
        for text in fields.values():
            w.append(UserRecord(text=text))
    return w.session_id, w.path


def test_every_record_type_round_trips_and_opaque_data_stays_byte_exact(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _header, *body = every_record()
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as writer:
        for record in body:
            assert writer.append(record) == record
    loaded = store.load(writer.session_id)
    assert loaded.problems == []
    assert loaded.records == body
    assistant = loaded.records[1]
    assert isinstance(assistant, AssistantRecord)
    assert [e.data for e in assistant.raw[: len(OPAQUE_EVENTS)]] == [e.data for e in OPAQUE_EVENTS]
    assert loaded.header.id == writer.session_id and loaded.header.version == 1


def test_a_configured_key_and_key_shapes_never_reach_the_file(tmp_path: Path) -> None:
    secret = "local-server-key-0123456789"
    shaped = "sk-proj-" + "Zz09" * 12
    store = _store(tmp_path, secret)
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as writer:
        for record in every_record(secret)[1:] + every_record(shaped)[1:]:
            writer.append(record)
    data = writer.path.read_bytes()
    assert secret.encode() not in data
    assert shaped.encode() not in data and b"Zz09Zz09" not in data
    loaded = store.load(writer.session_id)
    assert loaded.problems == []
    assistant = loaded.records[1]
    assert isinstance(assistant, AssistantRecord)
    assert assistant.text == "using [REDACTED]"
    assert assistant.raw[: len(OPAQUE_EVENTS)] == OPAQUE_EVENTS


def test_text_no_utf8_encoder_accepts_still_round_trips(tmp_path: Path) -> None:
    store = _store(tmp_path)
    odd = "lone \ud800 surrogate, NUL \x00, U+2028 \u2028, newline \n end"
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as writer:
        writer.append(UserRecord(ts=5.0, text=odd))
    assert store.load(writer.session_id).records == [UserRecord(ts=5.0, text=odd)]
    assert writer.path.read_bytes().count(b"\n") == 2


def test_records_get_a_timestamp_and_appending_after_close_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace="/w")
    before = time.time()
    stored = writer.append(UserRecord(text="hi"))
    assert before <= stored.ts <= time.time()
    writer.close()
    writer.close()
    with pytest.raises(SessionClosedError):
        writer.append(UserRecord(text="late"))


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_files_are_0600_in_a_0700_folder(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        store = _store(tmp_path)
        _, path = _new(store, a="hello")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700  # the data folder we made


def test_a_loose_existing_folder_is_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    _new(SessionStore(folder))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_list_is_newest_first_with_titles_and_counts(tmp_path: Path) -> None:
    store = _store(tmp_path)
    long = "Refactor the\nparser so that it   handles\tCRLF line endings and also " + "x" * 80
    first, first_path = _new(store, "/proj/a", a=long, b="second message")
    second, second_path = _new(store, "/proj/b")
    third, third_path = _new(store, "/proj/a", a="fix the tests")
    with store.open_for_append(third) as writer:
        writer.append(
            AssistantRecord(
                protocol="openai-chat",
                model="m",
                text="ok",
                reasoning="",
                tool_calls=[],
                stop_reason="stop",
                usage=None,
                response_id=None,
                raw=[],
            )
        )
    for age, path in ((300, first_path), (200, second_path), (100, third_path)):
        os.utime(path, (time.time() - age, time.time() - age))

    listed = store.list()
    assert [s.id for s in listed] == [third, second, first]
    by_id = {s.id: s for s in listed}
    title = by_id[first].title
    assert "\n" not in title and "\t" not in title and "  " not in title
    assert title.startswith("Refactor the parser so that it handles CRLF")
    assert len(title) <= 60 and title.endswith("…")
    assert by_id[second].title == "(untitled)"
    assert (by_id[first].messages, by_id[second].messages, by_id[third].messages) == (2, 0, 2)
    assert by_id[third].workspace == "/proj/a" and by_id[third].model == "m"
    assert by_id[third].updated > by_id[first].updated

    assert store.latest_for_workspace("/proj/a") == third
    assert store.latest_for_workspace("/proj/a/") == third
    assert store.latest_for_workspace("/proj/c") is None


def test_rename_is_an_appended_note_and_wins_over_the_first_message(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session_id, path = _new(store, a="first message")
    size = path.stat().st_size
    store.rename(session_id, "My  session\n")
    assert path.stat().st_size > size  # appended, not rewritten
    assert store.list()[0].title == "My session"
    assert store.load(session_id).title == "My session"


def test_a_header_title_is_used(tmp_path: Path) -> None:
    store = _store(tmp_path)
    writer = store.create(profile="p", protocol="p", model="m", workspace="/w", title="Named")
    writer.close()
    assert store.list()[0].title == "Named"


def test_delete_removes_and_is_refused_while_open(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session_id, path = _new(store)
    writer = store.open_for_append(session_id)
    with pytest.raises(SessionLockedError, match="cannot delete session"):
        store.delete(session_id)
    writer.close()
    store.delete(session_id)
    assert not path.exists()
    assert store.list() == []
    with pytest.raises(SessionNotFoundError):
        store.load(session_id)


def test_ids_and_prefixes_and_paths_resolve(tmp_path: Path) -> None:
    store = _store(tmp_path)
    session_id, path = _new(store, a="x")
    assert store.resolve(session_id) == path
    assert store.load(session_id[:-1]).id == session_id  # a unique prefix
    assert store.load(str(path)).id == session_id
    for bad in ("../etc/passwd", "nope", "a*"):
        with pytest.raises(SessionNotFoundError):
            store.load(bad)
    _new(store)
    with pytest.raises(SessionNotFoundError, match="matches 2 sessions"):
        store.load(session_id[:3])


def test_new_ids_are_short_sortable_and_filename_safe() -> None:
    ids = [new_session_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert sorted(ids) == ids
    assert all(len(i) == 14 and i.isalnum() and i == i.lower() for i in ids)
    assert is_session_path("./x") and is_session_path("a.jsonl") and not is_session_path(ids[0])


def test_folders_follow_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.name != "posix" or os.uname().sysname != "Linux":
        pytest.skip("XDG variables apply on Linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    assert paths.sessions_dir() == tmp_path / "d" / "tui-agent" / "sessions"
    assert paths.config_dir() == tmp_path / "c" / "tui-agent"
    assert SessionStore().directory == paths.sessions_dir()
    assert not paths.sessions_dir().exists()  # nothing is made until a session is


def test_the_header_is_what_create_was_given(tmp_path: Path) -> None:
    store = _store(tmp_path)
    writer = store.create(profile="work", protocol="anthropic", model="claude", workspace="/w")
    writer.close()
    header = store.load(writer.session_id).header
    assert isinstance(header, HeaderRecord)
    assert (header.profile, header.protocol, header.model, header.workspace) == (
        "work",
        "anthropic",
        "claude",
        "/w",
    )
    assert abs(header.created - time.time()) < 60


class _BrokenRedactor(Redactor):
    """A redactor with a defect: it fails on the text that holds ``trap``."""

    def redact(self, text: str) -> str:
        if "trap" in text:
            raise TypeError("a defect in the redactor")
        return super().redact(text)


def test_a_record_the_redaction_fails_on_is_kept_in_memory_and_the_user_told(
    tmp_path: Path,
) -> None:
    """Never written unredacted, never raised into the loop (which would end the conversation):
    the writer degrades and says why."""
    store = SessionStore(tmp_path / "sessions", _BrokenRedactor(("local-server-key-0123456789",)))
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as writer:
        writer.append(UserRecord(text="fine"))
        writer.append(UserRecord(text="a trap with local-server-key-0123456789"))
        assert writer.degraded is not None and "defect in the redactor" in writer.degraded
        assert [r.text for r in writer.unsaved] == ["a trap with local-server-key-0123456789"]
    data = writer.path.read_bytes()
    assert b"trap" not in data and b"fine" in data
