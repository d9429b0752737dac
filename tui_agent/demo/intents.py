"""From the user's last message to what the demo model does about it (the rules are listed in
brain.py's docstring and in the help answer)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .markup import inline_code, plural
from .script import Script, ScriptedCall
from .texts import HELP, LONG_ANSWER
from .words import Word, is_path_like, quoted, strip_quotes, unquoted, words

DEFAULT_FILE = "README.md"
DEFAULT_NOTE_FILE = "notes.txt"
DEFAULT_PATTERN = "TODO"
DEFAULT_NOTE = "# Notes\n\nWritten by the tui-agent offline demo model.\n"

PARALLEL_WORDS = frozenset({"parallel", "both", "concurrently"})
TRUNCATE_WORDS = frozenset({"cut", "break"})  # and any word starting with "truncat"
LONG_WORDS = frozenset({"long", "markdown", "essay"})
READ_WORDS = frozenset({"read", "cat", "open", "show"})  # "show" only before a path
LIST_WORDS = frozenset({"list", "ls", "dir", "files"})

# Words that are never the path or the pattern a verb is about ("list the files in src").
_FILLERS = frozenset(
    {
        *("a", "all", "an", "and", "any", "are", "contents", "current", "dir", "directory"),
        *("everything", "file", "files", "folder", "for", "here", "in", "is", "me", "my", "of"),
        *("please", "project", "repo", "some", "string", "text", "that", "the", "there"),
        *("this", "what", "which", "with", "word", "workspace"),
    }
)
_LOCATORS = frozenset({"in", "under", "inside", "of"})
_ARROW = re.compile(r"\s*(?:->|=>|→)\s*")
# "write notes.txt saying hi", "... with the text hi", "...: hi", "... that says hi".
_CONNECTOR = re.compile(
    r"^\s*[:=\-—]?\s*(?:(?:with|containing)(?:\s+the)?(?:\s+(?:text|content|contents|words))?"
    r"|(?:that|which)\s+says|saying|says|reading)?\s*[:=\-—]?\s*",
    re.IGNORECASE,
)


def plan_for(message: str, turn: int) -> Script:
    """The response to ``message``, the conversation's last user message; ``turn`` numbers the
    call ids (``call_demo_<turn>_<i>``)."""
    text = message.replace("\0", "").strip()  # no tool takes a NUL character
    if text.startswith("$"):
        return _run(text[1:], turn)
    all_words = words(text)
    if all_words and _leads(all_words[0], text[all_words[0].end :]):
        return _FREE_TEXT_VERBS[all_words[0].key](text[all_words[0].end :], turn)
    visible = words(unquoted(text))  # same offsets as ``text``: quotes are blanked, not removed
    keys = {word.key for word in visible}
    if keys & PARALLEL_WORDS:
        return _parallel(all_words, turn)
    if keys & TRUNCATE_WORDS or any(key.startswith("truncat") for key in keys):
        return _truncated(turn)
    if keys & LONG_WORDS:
        return Script(LONG_ANSWER)
    for position, word in enumerate(visible):
        rest = text[word.end :]
        if word.key in _FREE_TEXT_VERBS:
            return _FREE_TEXT_VERBS[word.key](rest, turn)
        if word.key in READ_WORDS and (word.key != "show" or _next_is_path(visible, position)):
            return _read(rest, turn)
        if word.key in LIST_WORDS:
            return _list(rest, turn, loose=word.key == "files")
    return Script(HELP)


def _leads(first: Word, rest: str) -> bool:
    """A message that starts with a verb taking free text is that verb's, whatever words follow
    ("write notes.txt saying we should cut costs"); "write a long essay" names no file, so it
    is left to the other rules."""
    if first.key not in _FREE_TEXT_VERBS:
        return False
    if first.key in ("write", "create"):
        return bool(quoted(rest)) or any(is_path_like(w.raw) for w in words(unquoted(rest)))
    return True


def _call(turn: int, index: int, name: str, arguments: dict[str, Any]) -> ScriptedCall:
    return ScriptedCall(
        f"call_demo_{turn}_{index}", name, json.dumps(arguments, ensure_ascii=False)
    )


def _next_is_path(visible: list[Word], position: int) -> bool:
    return position + 1 < len(visible) and is_path_like(visible[position + 1].raw)


def _subject(rest: str) -> str | None:
    """What a verb is about: a quoted piece, else a path, else the first word that says
    something (not "the", "file", "please"...)."""
    pieces = quoted(rest)
    if pieces:
        return pieces[0]
    candidates = words(rest)
    for word in candidates:
        if is_path_like(word.raw):
            return word.raw
    for word in candidates:
        if word.key not in _FILLERS:
            return word.raw
    return None


def _read(rest: str, turn: int) -> Script:
    path = _subject(rest) or DEFAULT_FILE
    return Script(
        f"Let me read {inline_code(path)}.\n",
        (_call(turn, 0, "read_file", {"path": path}),),
    )


def _list(rest: str, turn: int, *, loose: bool = False) -> Script:
    """``loose``: the trigger was the noun "files", so only a path or a word after "in" counts."""
    pieces = quoted(rest)
    candidates = words(unquoted(rest))
    path = pieces[0] if pieces else None
    for index, word in enumerate(candidates):
        if path is not None:
            break
        if is_path_like(word.raw):
            path = word.raw
        elif word.key in _LOCATORS and index + 1 < len(candidates):
            following = candidates[index + 1]
            if following.key not in _FILLERS:
                path = following.raw
    if path is None and not loose:
        path = next((w.raw for w in candidates if w.key not in _FILLERS), None)
    path = path or "."
    return Script(
        # "Let me list `.`." reads as "Let me list .." once the code is drawn: say what it is.
        f"Let me list {'the workspace folder' if path in ('.', './') else inline_code(path)}.\n",
        (_call(turn, 0, "list_dir", {"path": path}),),
    )


def _search(rest: str, turn: int) -> Script:
    pieces = quoted(rest)
    candidates = words(unquoted(rest))
    pattern = pieces[0] if pieces else None
    start = 0
    if pattern is None:
        for index, word in enumerate(candidates):
            if word.key not in _FILLERS and not word.raw.startswith("-"):
                pattern, start = word.raw, index + 1
                break
    path = None
    for index in range(start, len(candidates) - 1):
        if candidates[index].key in _LOCATORS and candidates[index + 1].key not in _FILLERS:
            path = candidates[index + 1].raw
            break
    arguments = {"pattern": pattern or DEFAULT_PATTERN}
    where = ""
    if path is not None:
        arguments["path"] = path
        where = f" in {inline_code(path)}"
    return Script(
        f"Let me search for {inline_code(arguments['pattern'])}{where}.\n",
        (_call(turn, 0, "search_text", arguments),),
    )


def _write(rest: str, turn: int) -> Script:
    pieces = quoted(rest)
    visible = words(unquoted(rest))
    target = next((word for word in visible if is_path_like(word.raw)), None)
    if pieces:
        content = pieces[0]
    elif target is not None:
        content = _CONNECTOR.sub("", rest[target.end :], count=1).strip()
    else:
        content = ""
    content = content or DEFAULT_NOTE
    if not content.endswith("\n"):
        content += "\n"
    path = target.raw if target is not None else DEFAULT_NOTE_FILE
    size = plural(len(content), "character")
    return Script(
        f"I'll write {inline_code(path)} ({size}).\n",
        (_call(turn, 0, "write_file", {"path": path, "content": content}),),
    )


def _edit(rest: str, turn: int) -> Script:
    target = next(iter(words(rest)), None)
    change = _ARROW.split(rest[target.end :], maxsplit=1) if target is not None else []
    old = strip_quotes(change[0].strip().lstrip(":").strip()) if len(change) == 2 else ""
    if target is None or not old:
        return Script(
            "To edit a file, tell me the file, the exact text to replace and the new text, "
            "like this: `edit notes.txt: old text -> new text`.\n"
        )
    new = strip_quotes(change[1])
    path = target.raw
    return Script(
        f"I'll edit {inline_code(path)}, replacing {inline_code(old)} with "
        f"{inline_code(new) if new else 'nothing'}.\n",
        (_call(turn, 0, "edit_file", {"path": path, "old": old, "new": new}),),
    )


_COMMAND_NOUN = re.compile(r"^\s*(?:the\s+)?(?:command|cmd)\b\s*:?\s*", re.IGNORECASE)


def _run(rest: str, turn: int) -> Script:
    rest = _COMMAND_NOUN.sub("", rest, count=1)  # "run the command ls" runs ls
    backticked = re.search(r"`([^`]+)`", rest)
    command = backticked.group(1).strip() if backticked else strip_quotes(rest)
    if not command:
        return Script("Which command? Say, for example, `run ls -la` or `$ ls -la`.\n")
    return Script(
        f"Let me run {inline_code(command)}.\n",
        (_call(turn, 0, "run_command", {"command": command}),),
    )


def _parallel(all_words: list[Word], turn: int) -> Script:
    """Two calls in one turn: the paths named (a folder is listed, a file read), topped up
    with a listing of the workspace and a read of README.md."""
    paths = list(dict.fromkeys(w.raw for w in all_words if is_path_like(w.raw)))[:2]
    plan: list[tuple[str, str]] = [
        ("list_dir" if path.endswith("/") or path in (".", "..") else "read_file", path)
        for path in paths
    ]
    if len(plan) < 2 and all(name != "list_dir" for name, _ in plan):
        plan.insert(0, ("list_dir", "."))
    if len(plan) < 2:
        plan.append(("read_file", DEFAULT_FILE))
    calls = tuple(_call(turn, i, name, {"path": path}) for i, (name, path) in enumerate(plan))
    named = " and ".join(
        f"{'list' if name == 'list_dir' else 'read'} {inline_code(path)}" for name, path in plan
    )
    return Script(f"I'll do both at once: {named}.\n", calls, interleave=True)


def _truncated(turn: int) -> Script:
    content = "This file is never written: the turn that asked for it was cut off.\n"
    return Script(
        "Here is a turn that never finishes. I start a call to write a file, and the "
        "connection drops halfway through its arguments, so nothing of this turn runs.\n",
        (_call(turn, 0, "write_file", {"path": "never-written.txt", "content": content}),),
        cut=True,
    )


_FREE_TEXT_VERBS: dict[str, Callable[[str, int], Script]] = {
    "run": _run,
    "execute": _run,
    "exec": _run,
    "write": _write,
    "create": _write,
    "edit": _edit,
    "search": _search,
    "grep": _search,
    "find": _search,
}
