"""A fetched page as text for the model: HTML turned into Markdown (markdownify, over Beautiful
Soup's parser), text kept as it is.

Only what a reader sees is kept: scripts, styles, templates, embedded frames and vector
graphics are dropped before the conversion, and so are the page's head (its title comes first,
as a line of its own) and comments. Links keep their targets, images their alt text, tables
become Markdown tables. Runs of blank lines are squeezed to one.
"""

from __future__ import annotations

import re

_DROPPED = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas")
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


def html_to_markdown(html: str | bytes) -> str:
    """The readable content of an HTML document as Markdown (imports its libraries on first
    use: they cost ~0.1 s, and a session that fetches nothing never pays it). Bytes are
    decoded as the page's own ``<meta charset>`` says (UTF-8 when it says nothing)."""
    from bs4 import BeautifulSoup, Comment
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title is not None else ""
    for tag in soup.find_all(_DROPPED):
        tag.decompose()
    for comment in soup.find_all(string=lambda text: isinstance(text, Comment)):
        comment.extract()
    if soup.head is not None:
        soup.head.decompose()
    body = soup.body if soup.body is not None else soup
    converter = MarkdownConverter(heading_style="ATX", bullets="-", escape_misc=False)
    text = converter.convert_soup(body)
    text = _BLANK_RUNS.sub("\n\n", text).strip()
    if title:
        text = f"Title: {title}\n\n{text}"
    return text + "\n"


def is_html(content_type: str, body: bytes) -> bool:
    """HTML by its type, or by its first bytes when the server sent no type."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        return True
    if kind:
        return False
    start = body[:512].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html"))


def is_text(content_type: str) -> bool:
    """A type whose body can be shown as text."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind.startswith("text/") or kind == "":
        return True
    return kind.endswith(("+json", "+xml")) or kind in (
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-ndjson",
        "application/yaml",
        "application/toml",
    )
