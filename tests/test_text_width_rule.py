"""The width rule of the exact surfaces (``text.sanitize.exact``), against the real tables.

A character whose width Rich (the layout) and the terminal disagree on lets a line hold more
than the layout counted: its tail is drawn past the right edge. The set escaped is derived here
from the two tables themselves, over all of Unicode, so it cannot fall behind either: Rich's
own width function, and the platform's ``wcwidth`` (glibc's, through ctypes, in a UTF-8 locale;
tmux without utf8proc draws with it). Every code point where the two differ must be escaped.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import locale
import unicodedata
from collections.abc import Iterator

import pytest
from rich.cells import cell_len, get_character_cell_size

from tui_agent.text.sanitize import (
    MAX_BLANK_CELLS,
    blank_marker,
    exact,
    exact_spans,
    is_hidden,
    width_unsure,
)

ALL = [code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]


def _wcwidth() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to ask wcwidth")
    libc = ctypes.CDLL(name)
    if not hasattr(libc, "wcwidth"):
        pytest.skip("the C library has no wcwidth")
    function = libc.wcwidth
    function.argtypes = [ctypes.c_wchar]
    function.restype = ctypes.c_int
    return function


@pytest.fixture(scope="module")
def terminal_widths() -> Iterator[dict[int, int]]:
    """wcwidth of every code point, in the C.UTF-8 locale (restored after)."""
    wcwidth = _wcwidth()
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        pytest.skip("no C.UTF-8 locale")
    try:
        assert wcwidth("\u4e00") == 2, "wcwidth is not reading a UTF-8 locale"
        yield {code: wcwidth(chr(code)) for code in ALL}
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def _disagreeing(widths: dict[int, int]) -> list[int]:
    return [code for code in ALL if get_character_cell_size(chr(code)) != widths[code]]


def test_every_code_point_rich_and_wcwidth_measure_differently_is_escaped(
    terminal_widths: dict[int, int],
) -> None:
    disagree = _disagreeing(terminal_widths)
    assert 0x302E in disagree  # the case that was found: 0 cells for Rich, 2 for glibc
    assert len(disagree) > 400  # hundreds of assigned ones, plus the unassigned
    kept = [c for c in disagree if not (is_hidden(chr(c)) or width_unsure(chr(c)))]
    # Newline and tab are the only two kept (a line break; a tab is expanded to spaces before
    # it reaches the terminal); on one line they are escaped too.
    assert kept == [0x09, 0x0A], [f"U+{c:04X} {unicodedata.name(chr(c), '?')}" for c in kept]
    # And the whole text through the rule: no disagreeing character is left on the screen.
    shown = exact("".join(map(chr, disagree)), one_line=True)
    left = set(map(ord, shown)) & set(disagree)
    assert not left, sorted(left)[:20]
    left = set(map(ord, exact("a".join(map(chr, disagree))))) & set(disagree)
    assert left == {0x09, 0x0A}


def test_what_the_rule_shows_measures_the_same_for_rich_and_the_terminal(
    terminal_widths: dict[int, int],
) -> None:
    """Every character the rule lets through (all of Unicode, one at a time and beside the
    escapes) has one width in both tables; so does each whole escaped text."""
    shown = exact("".join(chr(code) for code in ALL if code not in (9, 10)), one_line=True)
    differ = sorted(
        {ord(c) for c in shown if get_character_cell_size(c) != terminal_widths[ord(c)]}
    )
    assert not differ, [f"U+{c:04X}" for c in differ[:20]]


def test_the_rule_keeps_what_people_write() -> None:
    """The rule is not "escape everything non-ASCII": prose and code in common scripts, CJK,
    box drawing and emoji stay as they are."""
    for text in (
        "Привет, мир — «ёлка» … ← → ① ° ± times é ß ø",
        "中文 日本語 한국어 ｶﾀｶﾅ \uff21\uff22",
        "│ ├── src └── tests ━ ░▒▓",
        "git commit -m '🚀 ship it 🎉 ✅'",
        "ελληνικά עברית العربية ไทย",
    ):
        assert exact(text) == text, exact(text)


def test_the_found_case_shows_its_tail_within_the_width() -> None:
    command = "echo 'formatting the docs' " + "\u302e" * 200 + "; touch HIDDEN-RAN"
    shown = exact(command)
    assert shown.endswith("; touch HIDDEN-RAN")
    assert "\u302e" not in shown and "⟨200 times <U+302E>⟩" in shown
    assert cell_len(shown) == len(shown)  # all ASCII and markers: one cell each


@pytest.mark.parametrize(
    ("run", "marker"),
    [
        (" " * 6000, "⟨6000 spaces⟩"),
        ("\t" * 9, "⟨9 tabs⟩"),
        ("\u3000" * 5, "⟨5 times <U+3000>⟩"),
        ("\u2800" * 40, "⟨40 times <U+2800>⟩"),
        (" \u00a0" * 10, "⟨20 blank characters: 10 spaces, 10 times \\xa0⟩"),
    ],
)
def test_a_long_run_of_blanks_is_one_marker_with_its_length(run: str, marker: str) -> None:
    assert blank_marker(run) == marker
    assert exact(f"ls{run}; rm -rf ~") == f"ls{marker}; rm -rf ~"
    assert exact(f"ls{run}", one_line=True).startswith("ls⟨")


def test_short_blanks_and_indentation_stay_and_runs_of_escapes_are_counted() -> None:
    assert exact("a" + " " * MAX_BLANK_CELLS + "b") == "a" + " " * MAX_BLANK_CELLS + "b"
    code = "def f():\n        return 1\n\t\t\tgo()\n"
    assert exact(code) == code  # indentation is kept, tabs too
    assert exact(" " * 41 + "x") == "⟨41 spaces⟩x"  # but not a page of it
    assert exact("\u200b" * 3000 + "x") == "⟨3000 times <U+200B>⟩x"
    assert exact("a\u200b\u200bb") == "a<U+200B><U+200B>b"
    assert [shown for _, _, shown in exact_spans("a\nb\tc", one_line=True)] == ["\\x0a", "\\x09"]
