"""How the approval prompt shows one call: pretty JSON, the exact command line, or a file diff.

Everything shown goes through ``sanitize.exact_text``: hidden characters and characters whose
width Rich and a terminal may disagree on appear as styled escapes, long runs of blanks as a
marker with their length, and no markup is parsed. JSON control escapes (``\\u001b``) are
styled like the other escapes so a terminal sequence hidden in an argument stands out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rich.highlighter import JSONHighlighter
from rich.text import Text

from tui_agent.approval.rules import COMMAND_ARGUMENT, SHELL_TOOL
from tui_agent.tools.sandbox import SandboxError, resolve_in_workspace
from tui_agent.tools.spec import ToolContext

from .file_change import FileChange, edit_change, write_change
from .sanitize import ESCAPE_STYLE, exact_text, replace_hidden

PreviewKind = Literal["json", "command", "diff", "content"]
WEB_FETCH = "web_fetch"

# A JSON \u escape of a control character, not preceded by an escaping backslash.
_JSON_CONTROL = re.compile(r"(?<!\\)(?:\\\\)*(\\u00(?:[01][0-9a-f]|7f))")
_DIFF_STYLES = (
    ("+++ ", "bold"),
    ("--- ", "bold"),
    ("@@", "cyan"),
    ("+", "green"),
    ("-", "red"),
    ("\\", "dim italic"),
)


@dataclass(frozen=True)
class CallPreview:
    """What to show for one call: a heading for the body, the body, and plain-text notes."""

    kind: PreviewKind
    heading: Text
    body: Text
    notes: tuple[str, ...] = ()


def build_preview(tool_name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> CallPreview:
    """The preview for a call; file tools read the current file (call it off the event loop)."""
    command = arguments.get(COMMAND_ARGUMENT)
    if tool_name == SHELL_TOOL and isinstance(command, str):
        return _command_preview(command, arguments)
    if tool_name == WEB_FETCH and isinstance(arguments.get("url"), str):
        return _url_preview(arguments["url"])
    path = arguments.get("path")
    content = arguments.get("content")
    if tool_name == "write_file" and isinstance(path, str) and isinstance(content, str):
        return _change_preview(write_change(path, content, ctx))
    old, new = arguments.get("old"), arguments.get("new")
    if (
        tool_name == "edit_file"
        and isinstance(path, str)
        and isinstance(old, str)
        and isinstance(new, str)
    ):
        return _change_preview(edit_change(path, old, new, ctx))
    notes = _path_notes(path, ctx) if tool_name in _PATH_TOOLS else ()
    return CallPreview("json", Text("arguments"), json_text(arguments), notes)


# The built-in tools that read a path of the workspace (the file tools have their diff's notes).
_PATH_TOOLS = frozenset({"read_file", "list_dir", "search_text"})


def _path_notes(path: object, ctx: ToolContext) -> tuple[str, ...]:
    """A path the tool will refuse (outside the workspace, a protected folder...), said before
    the call is approved, as the file tools' diff does."""
    if not isinstance(path, str):
        return ()
    try:
        resolve_in_workspace(path, ctx)
    except SandboxError as exc:
        return (f"this call will fail: {exc}",)
    except OSError:
        return ()  # the tool says what is wrong when it runs
    return ()


def recorded_preview(tool_name: str, arguments: Mapping[str, Any]) -> CallPreview:
    """The preview of a recorded call, from its arguments alone: no file is read (a replay)."""
    command = arguments.get(COMMAND_ARGUMENT)
    if tool_name == SHELL_TOOL and isinstance(command, str):
        return _command_preview(command, arguments)
    if tool_name == WEB_FETCH and isinstance(arguments.get("url"), str):
        return _url_preview(arguments["url"])
    return CallPreview("json", Text("arguments"), json_text(arguments))


def pretty_arguments(arguments: Mapping[str, Any]) -> str:
    """The arguments as indented JSON, characters kept as they are (for showing)."""
    return json.dumps(dict(arguments), indent=2, ensure_ascii=False)


def editable_arguments(arguments: Mapping[str, Any]) -> str:
    """Indented JSON whose hidden characters are ``\\u`` escapes: the same value, safe to edit."""
    return replace_hidden(pretty_arguments(arguments), _json_escape)


def json_text(arguments: Mapping[str, Any]) -> Text:
    """Highlighted pretty JSON with hidden characters and control escapes styled apart."""
    text = exact_text(pretty_arguments(arguments))
    escapes = list(text.spans)
    JSONHighlighter().highlight(text)
    for span in escapes:  # again, on top of the string colour
        text.stylize(span.style, span.start, span.end)
    for match in _JSON_CONTROL.finditer(text.plain):
        text.stylize(ESCAPE_STYLE, match.start(1), match.end(1))
    return text


def diff_text(diff: str) -> Text:
    """A unified diff with added, removed and header lines coloured."""
    text = Text()
    # Split at "\n" only: str.splitlines would also break at CR, FF, U+2028 and hide them.
    for number, line in enumerate(diff.removesuffix("\n").split("\n")):
        style = next((style for prefix, style in _DIFF_STYLES if line.startswith(prefix)), "")
        if number:
            text.append("\n")
        text.append_text(exact_text(line, style))
    return text


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON spells characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _command_preview(command: str, arguments: Mapping[str, Any]) -> CallPreview:
    body = exact_text(command, "bold")
    others = {key: value for key, value in arguments.items() if key != COMMAND_ARGUMENT}
    if others:
        body.append("\n\nwith ")
        body.append_text(json_text(others))
    notes: list[str] = []
    if "\n" in command:
        notes.append(f"the command has {command.count(chr(10)) + 1} lines; the shell runs each")
    if command != command.strip():
        notes.append("the command starts or ends with whitespace (kept exactly)")
    heading = Text("command line, run by /bin/sh -c exactly as shown")
    if arguments.get("background") is True:
        heading = Text("command line, run IN THE BACKGROUND by /bin/sh -c exactly as shown")
        notes.append(
            "it keeps running after this call, with no timeout, until it exits, is stopped "
            "(/jobs, or the model's stop_job) or the session ends"
        )
    return CallPreview("command", heading, body, tuple(notes))


def _url_preview(url: str) -> CallPreview:
    """web_fetch: the exact URL, and its host as the network sees it when it is written with
    other than ASCII letters (a look-alike of a known name shows as xn--...)."""
    import httpx  # not at import: the app's first frame does not need it

    notes = ["fetched by the app itself, not in the sandbox; no key or cookie is sent"]
    try:
        host = httpx.URL(url).raw_host.decode("ascii")
    except (httpx.InvalidURL, UnicodeDecodeError, ValueError):
        host = ""
    if "xn--" in host.lower():
        notes.insert(0, f"the host is not plain ASCII: the network reads it as {host}")
    heading = Text("URL, fetched exactly as shown")
    return CallPreview("command", heading, exact_text(url, "bold"), tuple(notes))


def _change_preview(change: FileChange) -> CallPreview:
    if change.diff is None:
        heading = Text("new content of ").append_text(exact_text(change.shown, one_line=True))
        return CallPreview("content", heading, exact_text(change.content or ""), change.notes)
    heading = Text("changes to ").append_text(exact_text(change.shown, one_line=True))
    return CallPreview("diff", heading, diff_text(change.diff), change.notes)
