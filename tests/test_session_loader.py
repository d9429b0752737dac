"""Loading survives damage: a bad line is reported and never costs the lines after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.session import SessionCorruptError, SessionNotFoundError, SessionStore, load_session

from .session_samples import every_record


def _good_lines() -> list[bytes]:
    return [r.model_dump_json().encode() for r in every_record()]


def _write(tmp_path: Path, lines: list[bytes], end: bytes = b"\n") -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + end)
    return path


def test_a_clean_file_loads_without_problems(tmp_path: Path) -> None:
    loaded = load_session(_write(tmp_path, _good_lines()))
    assert loaded.problems == []
    assert loaded.records == every_record()[1:]


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (b"\x00" * 4096, "line 4: NUL bytes skipped"),
        (b"{not json at all", "line 4: torn or corrupt record skipped"),
        (b'{"ts":1.0,"type":"user","te', "line 4: torn or corrupt record skipped"),
        (b'{"ts":1.0,"type":"hologram","x":1}', "line 4: unknown record type 'hologram' skipped"),
        (b'{"ts":1.0,"type":"user"}', "line 4: invalid user record skipped"),
        (b"[1, 2, 3]", "line 4: not a record skipped"),
        (b"\xff\xfe\xfa garbage \xc3", "line 4: torn or corrupt record skipped"),
    ],
)
def test_a_bad_line_in_the_middle_is_reported_and_the_rest_loads(
    tmp_path: Path, damage: bytes, problem: str
) -> None:
    lines = _good_lines()
    path = _write(tmp_path, [*lines[:3], damage, *lines[3:]])
    loaded = load_session(path)
    assert loaded.records == every_record()[1:]
    assert loaded.problems == [problem]


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    loaded = load_session(_write(tmp_path, _good_lines(), end=b""))
    assert loaded.problems == [] and loaded.records == every_record()[1:]


def test_a_lost_header_is_reported_and_the_records_still_load(tmp_path: Path) -> None:
    lines = _good_lines()
    loaded = load_session(_write(tmp_path, [b"\x00" * 100 + b"{torn", *lines[1:]]))
    assert loaded.records == every_record()[1:]
    assert loaded.header.id == "s" and loaded.header.model == ""
    assert loaded.problems[0].startswith("no readable header")


def test_a_second_header_is_skipped(tmp_path: Path) -> None:
    lines = _good_lines()
    loaded = load_session(_write(tmp_path, [*lines, lines[0]]))
    assert loaded.problems == [f"line {len(lines) + 1}: second header skipped"]


@pytest.mark.parametrize("content", [b"", b"\x00" * 64, b"\n\n", b"garbage\n{also}\n"])
def test_nothing_usable_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    with pytest.raises(SessionCorruptError, match="holds no readable session records"):
        load_session(path)


def test_a_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError, match="no session file"):
        load_session(tmp_path / "nope.jsonl")
    with pytest.raises(SessionNotFoundError):
        SessionStore(tmp_path).open_for_append(str(tmp_path / "nope.jsonl"))
