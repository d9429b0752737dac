"""A minimal app hosting transcript widgets, and markdown samples for the transcript tests."""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.widget import Widget

HOSTILE = "\x1b]52;c;SGVsbG8=\x07 [@click=app.quit] [link=https://evil.example]x[/link] \x1b[2J"


class WidgetApp(App[None]):
    """Shows the given widgets, one under the other."""

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self._widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self._widgets


def sample_markdown(size: int, seed: int = 7) -> str:
    """About ``size`` characters of varied markdown: headings, paragraphs, lists, fences."""
    rng = random.Random(seed)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "*em*",
        "**strong**",
        "`code`",
        "[link](https://example.com)",
        "zeta",
    ]
    blocks: list[str] = []
    total = 0
    while total < size:
        kind = rng.randrange(5)
        if kind == 0:
            block = f"## Heading {len(blocks)}\n"
        elif kind == 1:
            block = "- " + "\n- ".join(" ".join(rng.choices(words, k=5)) for _ in range(4)) + "\n"
        elif kind == 2:
            body = "\n".join(f"    x_{i} = {i} * 2" for i in range(rng.randrange(3, 12)))
            block = f"```python\ndef f():\n\n{body}\n```\n"
        else:
            block = " ".join(rng.choices(words, k=rng.randrange(20, 80))) + "\n"
        blocks.append(block)
        total += len(block) + 1
    return "\n".join(blocks)


def chunks(text: str, count: int, seed: int = 3) -> list[str]:
    """``text`` cut at ``count - 1`` random places."""
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(text)), count - 1))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
