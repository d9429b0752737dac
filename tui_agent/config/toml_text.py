"""Just enough TOML text handling to replace one table and leave the rest of a file untouched.

tomllib reads but cannot write, and a full writer would drop the user's comments and layout. So
``table_span`` finds where a ``[table]`` starts and ends in the text (a small scanner that knows
strings, multi-line strings, comments and multi-line arrays), and ``emit_*`` write the few value
types the approval table holds. The caller checks the edited text by parsing it again.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from typing import Any


def header_lines(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """(line index, key path) of every ``[table]`` and ``[[array]]`` header in ``text``."""
    lines = split_lines(text)
    headers: list[tuple[int, tuple[str, ...]]] = []
    for index, at_top in enumerate(_line_starts_at_top_level(lines)):
        if at_top and lines[index].lstrip().startswith("["):
            headers.append((index, _header_path(lines[index])))
    return headers


def table_span(text: str, path: tuple[str, ...]) -> tuple[int, int] | None:
    """Lines [start, end) of the table ``path``, from its header to its last key.

    Comment and blank lines just before the next header are left out: they usually introduce it.
    """
    lines = split_lines(text)
    at_top = _line_starts_at_top_level(lines)
    headers = header_lines(text)
    for position, (start, header_path) in enumerate(headers):
        if header_path != path:
            continue
        end = headers[position + 1][0] if position + 1 < len(headers) else len(lines)
        while end - 1 > start and at_top[end - 1] and _is_blank_or_comment(lines[end - 1]):
            end -= 1
        return start, end
    return None


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split on LF only as TOML does (str.splitlines also splits on
    U+2028 and friends, which may sit inside a TOML string)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def emit_string(value: str) -> str:
    """A TOML basic string; ValueError for text TOML cannot hold (lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{value!r} holds characters that cannot be saved") from None
    # JSON string escapes are valid TOML escapes; TOML also forbids a raw DEL.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def emit_string_array(values: Sequence[str], newline: str) -> str:
    """``[]``, or one item per line so that later changes are one-line diffs."""
    if not values:
        return "[]"
    items = "".join(f"    {emit_string(value)},{newline}" for value in values)
    return f"[{newline}{items}]"


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _header_path(line: str) -> tuple[str, ...]:
    try:
        node: Any = tomllib.loads(line)  # a header line alone is a valid document
    except tomllib.TOMLDecodeError:
        return ()  # not a header after all; the caller's re-parse check will refuse the edit
    path: list[str] = []
    while isinstance(node, (dict, list)) and node:
        if isinstance(node, list):
            node = node[-1]
            continue
        key = next(iter(node))
        path.append(key)
        node = node[key]
    return tuple(path)


def _line_starts_at_top_level(lines: list[str]) -> list[bool]:
    """For each line: does it begin outside every string and bracket (where a header may be)?"""
    result: list[bool] = []
    string: str | None = None  # the delimiter of an open multi-line string
    depth = 0  # open [ and { of a value
    for line in lines:
        at_top = string is None and depth == 0
        result.append(at_top)
        if at_top and line.lstrip().startswith("["):
            continue  # a header: never continues onto another line
        string, depth = _scan_line(line, string, depth)
    return result


def _scan_line(line: str, string: str | None, depth: int) -> tuple[str | None, int]:
    i = 0
    while i < len(line):
        if string is not None:  # inside a multi-line string
            if string == '"""' and line[i] == "\\":
                i += 2
                continue
            if line.startswith(string, i):
                i += 3
                while i < len(line) and line[i] == string[0]:
                    i += 1  # up to two quotes may end the content right before the delimiter
                string = None
                continue
            i += 1
            continue
        char = line[i]
        if char == "#":
            break
        if line.startswith('"""', i) or line.startswith("'''", i):
            string = line[i : i + 3]
            i += 3
        elif char in "\"'":
            i = _skip_one_line_string(line, i)
        else:
            depth += (char in "[{") - (char in "]}")
            i += 1
    return string, depth


def _skip_one_line_string(line: str, start: int) -> int:
    quote = line[start]
    i = start + 1
    while i < len(line) and line[i] not in (quote, "\n"):
        i += 2 if quote == '"' and line[i] == "\\" else 1
    return i + 1
