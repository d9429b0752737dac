"""How wide a terminal draws text: the platform's ``wcwidth`` (glibc's through ctypes, in the
C.UTF-8 locale), as tmux without utf8proc measures; a character it does not know (-1) is one
cell, as tmux draws it. The layout's own measure is Rich's ``cell_len``."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import locale
from collections.abc import Callable

import pytest


@functools.cache
def _wcwidth() -> Callable[[str], int] | None:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "wcwidth"):
        return None
    function = libc.wcwidth
    function.argtypes = [ctypes.c_wchar]
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


def terminal_cells(text: str) -> int:
    """Cells a terminal draws ``text`` in (skips the test where there is no wcwidth)."""
    wcwidth = _wcwidth()
    if wcwidth is None:
        pytest.skip("no C library to ask wcwidth")
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        pytest.skip("no C.UTF-8 locale")
    try:
        return sum(1 if (w := wcwidth(c)) < 0 else w for c in text if c != "\n")
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
