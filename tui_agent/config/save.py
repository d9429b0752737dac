"""Saving approval rules into config.toml without disturbing the rest of the user's file.

Choice: the ``[approval]`` table is rewritten in place (or appended when absent) by a minimal
emitter, and every other line is kept byte for byte, comments and layout included. Comments
inside the old ``[approval]`` table are lost. The edited text is parsed again and must equal the
old document with only ``approval`` changed; if not (an approval table written as dotted keys or an
inline table, or a layout the scanner misreads) nothing is written and ConfigFileError says what to
add by hand. The file is replaced atomically and left readable only by its owner (0600).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..approval.policy import ApprovalMode
from ..approval.rules import AllowCommand, AllowCommandPrefix, AllowFetchHost, AllowTool, Rule
from .errors import ConfigFileError
from .load import default_config_path, parse_config, parse_toml, read_config_text
from .toml_text import emit_string, emit_string_array, header_lines, split_lines, table_span

APPROVAL_TABLE = "approval"


def save_approval_rules(
    path: Path | None, rules: Iterable[Rule], *, mode: ApprovalMode | None = None
) -> None:
    """Make ``rules`` the saved rules (and ``mode`` the starting mode, if given) in config.toml."""
    path = default_config_path() if path is None else path
    text = read_config_text(path) or ""
    current = parse_config(text, path)  # never rewrite a file we could not read back
    chosen_mode = mode if mode is not None else current.approval.mode
    newline = "\r\n" if "\r\n" in text else "\n"
    try:
        block, values = _approval_block(chosen_mode, list(dict.fromkeys(rules)), newline)
    except ValueError as exc:
        raise ConfigFileError(f"cannot save approval rules to {path}: {exc}") from None
    updated = _replace_approval(text, block, newline)
    if updated is None or not _only_approval_changed(text, updated, values, path):
        raise ConfigFileError(
            f"could not update the [{APPROVAL_TABLE}] table of {path} automatically; "
            f"replace its approval settings with these lines:\n{block}"
        )
    _write_private(path, updated)


def remember_rule(path: Path | None, rule: Rule) -> None:
    """Add ``rule`` to the rules saved in config.toml (the "saved to config" scope)."""
    saved = _saved_rules(path)
    if rule not in saved:
        save_approval_rules(path, [*saved, rule])


def forget_rule(path: Path | None, rule: Rule) -> bool:
    """Remove ``rule`` from config.toml; False if it was not saved there."""
    saved = _saved_rules(path)
    if rule not in saved:
        return False
    save_approval_rules(path, [kept for kept in saved if kept != rule])
    return True


def _saved_rules(path: Path | None) -> list[Rule]:
    path = default_config_path() if path is None else path
    text = read_config_text(path)
    return [] if text is None else parse_config(text, path).approval.rules()


def _approval_block(mode: ApprovalMode, rules: list[Rule], newline: str) -> tuple[str, Any]:
    """The ``[approval]`` table's text and the value tomllib must read back from it."""
    values: dict[str, Any] = {
        "mode": str(mode),
        "allowed_tools": [rule.name for rule in rules if isinstance(rule, AllowTool)],
        "allowed_commands": [rule.command for rule in rules if isinstance(rule, AllowCommand)],
        "allowed_command_prefixes": [
            rule.text for rule in rules if isinstance(rule, AllowCommandPrefix)
        ],
        "allowed_fetch_hosts": [rule.host for rule in rules if isinstance(rule, AllowFetchHost)],
    }
    lines = [f"[{APPROVAL_TABLE}]", f"mode = {emit_string(values['mode'])}"]
    for key in ("allowed_tools", "allowed_commands", "allowed_command_prefixes"):
        lines.append(f"{key} = {emit_string_array(values[key], newline)}")
    if values["allowed_fetch_hosts"]:  # written only once there is one: older files stay as is
        key = "allowed_fetch_hosts"
        lines.append(f"{key} = {emit_string_array(values[key], newline)}")
    else:
        del values["allowed_fetch_hosts"]
    return newline.join(lines) + newline, values


def _replace_approval(text: str, block: str, newline: str) -> str | None:
    lines = split_lines(text)
    span = table_span(text, (APPROVAL_TABLE,))
    if span is None:
        if any(path[:1] == (APPROVAL_TABLE,) for _, path in header_lines(text)):
            return None  # only sub-tables such as [approval.x]: not a layout we edit
        if not text:
            return block
        if text.endswith("\n\n") or text.endswith("\n\r\n"):
            return text + block
        return text + (newline if text.endswith("\n") else newline * 2) + block
    start, end = span
    return "".join(lines[:start]) + block + "".join(lines[end:])


def _only_approval_changed(old_text: str, new_text: str, values: Any, path: Path) -> bool:
    old = parse_toml(old_text, path)
    try:
        new = parse_toml(new_text, path)
    except ConfigFileError:
        return False
    old[APPROVAL_TABLE] = values
    return _same(old, new)


def _same(a: Any, b: Any) -> bool:
    # == would call a file holding nan changed, since nan != nan.
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and bool(a == b)


def _write_private(path: Path, text: str) -> None:
    """Replace the file atomically, 0600; a symlinked config (dotfiles) keeps its link."""
    target = Path(os.path.realpath(path))
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise ConfigFileError(f"cannot write config file {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, 0o600)
        os.replace(temp_name, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise ConfigFileError(f"cannot write config file {path}: {exc.strerror or exc}") from None
