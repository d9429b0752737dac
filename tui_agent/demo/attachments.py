"""What the demo model says of files the person attached (``@notes.md``) when the message asks
for nothing else: each file's name, size and first lines, quoted as text.

An attachment arrives as a text part of its own, ``<attached_file path="P">`` then a newline,
the file's text, a newline and ``</attached_file>`` (conversation/messages.py); its words are
data, never a request. An attached image arrives as ``<attached_image path="P" media_type="M"
width="W" height="H"/>`` then the image itself: the demo names it, it cannot look at it.
"""

from __future__ import annotations

import re

from .markup import inline_code, plural

_BLOCK = re.compile(
    r'\A<attached_file path="((?:[^"\\]|\\.)*)"( truncated="true")?>\n(.*)\n</attached_file>\Z',
    re.DOTALL,
)
_IMAGE = re.compile(
    r'\A<attached_image path="((?:[^"\\]|\\.)*)" media_type="([^"]*)" '
    r'width="(\d+)" height="(\d+)"/>\Z'
)
_ESCAPE = re.compile(r"\\(.)")
_SHOWN_LINES = 3


_MENTION = re.compile(r"(?<!\S)@(?=\S)")


def without_mentions(text: str) -> str:
    """The person's text with ``@`` taken off the files they attached (``read @a.md``)."""
    return _MENTION.sub("", text)


def is_attachment_block(text: str) -> bool:
    return _BLOCK.match(text) is not None or _IMAGE.match(text) is not None


def describe_attachments(blocks: list[str]) -> str:
    """A short answer about each attached file's block in ``blocks``."""
    paragraphs = []
    for block in blocks:
        image = _IMAGE.match(block)
        if image is not None:
            path = _ESCAPE.sub(r"\1", image.group(1))
            size = f"{image.group(2)}, {image.group(3)}x{image.group(4)} pixels"
            paragraphs.append(
                f"{inline_code(path)} is an image ({size}); the offline demo cannot look at "
                "images, a real model sees it."
            )
            continue
        found = _BLOCK.match(block)
        if found is None:
            continue
        path = _ESCAPE.sub(r"\1", found.group(1))
        lines = found.group(3).splitlines()
        cut = " (only its start was attached)" if found.group(2) else ""
        head = f"{inline_code(path)} has {plural(len(lines), 'line')}{cut}"
        shown = [line for line in lines if line.strip()][:_SHOWN_LINES]
        if shown:
            quoted = "\n".join(f"- {inline_code(line.strip())}" for line in shown)
            paragraphs.append(f"{head}. It begins:\n\n{quoted}")
        else:
            paragraphs.append(f"{head}, all of them empty.")
    intro = "Here is what you attached (the offline demo only quotes a file's first lines):"
    return "\n\n".join([intro, *paragraphs]) + "\n"
