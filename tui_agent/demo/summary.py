"""The demo model's answer to a compaction request: a summary of the transcript it was sent.

A compaction request holds the conversation as a transcript between ``<conversation>`` tags,
one part per ``[user]``, ``[assistant]``, ``[assistant called NAME] ARGS`` and ``[result of
NAME]`` heading (see tui_agent/context/summary.py). The demo reads those headings back and
lists what the user asked, which tools ran on what, and where the conversation stood, so
/compact can be tried offline.
"""

from __future__ import annotations

import re

from .script import Script

_OPEN, _CLOSE = "<conversation>", "</conversation>"
_HEADING = re.compile(r"^\[(user|assistant|assistant called [^\]]+|result of [^\]]+)\]", re.M)


def is_compaction_request(text: str) -> bool:
    return _OPEN in text and _CLOSE in text


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def summarize(text: str) -> Script:
    """A short markdown summary of the transcript in ``text``."""
    body = text[text.index(_OPEN) + len(_OPEN) : text.rindex(_CLOSE)]
    marks = list(_HEADING.finditer(body))
    asked: list[str] = []
    tools: list[str] = []
    last_answer = ""
    earlier = "[summary of what came before]" in body
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following is not None else len(body)
        content = body[mark.end() : end].strip()
        kind = mark.group(1)
        if kind == "user":
            asked.append(_short(content))
        elif kind == "assistant":
            last_answer = _short(content, 120)
        elif kind.startswith("assistant called "):
            tools.append(f"`{kind.removeprefix('assistant called ')}` {_short(content, 60)}")
    lines = ["Summary of the conversation so far (written by the offline demo model):", ""]
    if earlier:
        lines.append("- It continues an earlier, already summarized part.")
    if asked:
        lines.append(f"- The user asked {len(asked)} thing(s):")
        lines += [f"  - {item}" for item in asked[-8:]]
    if tools:
        lines.append(f"- Tools were called {len(tools)} time(s), the last ones:")
        lines += [f"  - {item}" for item in tools[-6:]]
    if last_answer:
        lines.append(f"- The last answer began: {last_answer}")
    if len(lines) == 2:
        lines.append("- Nothing of note happened yet.")
    return Script("\n".join(lines) + "\n")
