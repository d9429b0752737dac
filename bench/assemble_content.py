"""The content of the benchmark streams: seeded text, argument objects, fragments, SSE framing.

Protocol-neutral; bench/assemble_streams.py wraps it in each protocol's events.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sizes:
    text_chars: int
    text_deltas: int
    call_count: int
    args_chars: int


FULL = Sizes(text_chars=1_000_000, text_deltas=60_000, call_count=8, args_chars=20_000)
QUICK = Sizes(text_chars=50_000, text_deltas=3_000, call_count=8, args_chars=2_000)


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    arguments: str  # the exact JSON argument text the turn must return


@dataclass(frozen=True)
class BenchStream:
    protocol: str
    kind: str
    body: bytes
    text: str  # the text the turn must return
    calls: tuple[Call, ...]
    events: int
    fragments: int  # argument fragments on the wire (0: arguments arrive whole)


# -- content --------------------------------------------------------------------------------

_PROSE_VOCABULARY = (
    "the of and to in is that for it as with was on be by this are from at or an have not "
    "stream token parser buffer event chunk delta model answer result value function call "
    "arguments protocol server client request response turn assistant user tool latency "
    'naïve café Zürich façade déjà-vu — → 日本語 ✓ 🙂 "quoted" back\\slash tab\there'
)
_CODE_VOCABULARY = (
    "def class return if else for while import from self None True False await async yield "
    'x = 1 y = "two" z = [1, 2, 3] print(f"{x}") # comment \\n escape \t \' " {} [] () '
    "résumé ünïcödé 中文"
)
_WORDS = _PROSE_VOCABULARY.split(" ")
_CODE = _CODE_VOCABULARY.split(" ")


def _prose(rng: random.Random, chars: int) -> str:
    words = _WORDS
    out: list[str] = []
    size = 0
    while size < chars:
        roll = rng.random()
        word = rng.choice(words)
        if roll < 0.02:
            word += ".\n\n"
        elif roll < 0.08:
            word += ","
        piece = word + " "
        out.append(piece)
        size += len(piece)
    return "".join(out)[:chars]


def _split(rng: random.Random, text: str, low: int, high: int) -> list[str]:
    pieces = []
    i = 0
    while i < len(text):
        n = rng.randint(low, high)
        pieces.append(text[i : i + n])
        i += n
    return pieces


def text_deltas(rng: random.Random, sizes: Sizes) -> tuple[str, list[str]]:
    text = _prose(rng, sizes.text_chars)
    mean = sizes.text_chars / sizes.text_deltas
    return text, _split(rng, text, 1, max(1, round(2 * mean - 1)))


def _arguments(rng: random.Random, index: int, chars: int) -> dict[str, Any]:
    """A write-file style argument object whose compact JSON text is about ``chars`` long."""
    lines = []
    size = 0
    while size < chars - 200:  # the other fields take about 200 characters
        indent = " " * (4 * rng.randint(0, 3))
        line = indent + " ".join(rng.choice(_CODE) for _ in range(rng.randint(2, 9)))
        lines.append(line)
        size += len(compact(line))  # escaped, as it appears in the JSON text
    return {
        "path": f"src/pkg/module_{index}.py",
        "mode": "overwrite",
        "content": "\n".join(lines),
        "line_count": len(lines),
        "tags": [f"t{rng.randint(0, 99)}" for _ in range(rng.randint(1, 6))],
        "options": {"backup": bool(index % 2), "encoding": "utf-8", "ratio": 0.25 * index},
    }


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_calls(
    rng: random.Random, sizes: Sizes, id_prefix: str
) -> list[tuple[Call, dict[str, Any]]]:
    names = ("write_file", "run_tests", "search_code", "edit_file")
    out = []
    for i in range(sizes.call_count):
        args = _arguments(rng, i, sizes.args_chars)
        call_id = f"{id_prefix}{rng.getrandbits(64):016x}{i}"
        out.append((Call(call_id, names[i % len(names)], compact(args)), args))
    return out


def interleaved(rng: random.Random, calls: list[Call]) -> list[tuple[int, str]]:
    """(call position, fragment) for every 2-12 char fragment, calls interleaved at random."""
    queues = [_split(rng, call.arguments, 2, 12)[::-1] for call in calls]
    active = [i for i, q in enumerate(queues) if q]
    out = []
    while active:
        slot = rng.randrange(len(active))
        position = active[slot]
        queue = queues[position]
        out.append((position, queue.pop()))
        if not queue:
            active[slot] = active[-1]
            active.pop()
    return out


# -- wire framing ----------------------------------------------------------------------------


class Wire:
    def __init__(self, named: bool, separators: tuple[str, str], newline: str = "\n") -> None:
        self.named = named
        self.separators = separators
        self.newline = newline
        self.parts: list[str] = []
        self.events = 0

    def send(self, payload: Any, name: str | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False, separators=self.separators)
        self.raw(data, name)

    def raw(self, data: str, name: str | None = None) -> None:
        nl = self.newline
        head = f"event: {name}{nl}" if self.named and name else ""
        self.parts.append(f"{head}data: {data}{nl}{nl}")
        self.events += 1

    def body(self) -> bytes:
        return "".join(self.parts).encode("utf-8")


def obfuscation(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijkXYZ0123") for _ in range(rng.randint(0, 15)))
