"""Token estimates for what no provider has counted yet (a message about to be sent, a tool's
result, a summary).

Text is split roughly as byte-level BPE tokenizers split it before merging (a word with the
space or symbol before it, each digit, a run of symbols, a run of blanks), and each piece is
given the tokens it takes at most in the tokenizers checked (tests/fixtures/tokens: Qwen2.5's
and OpenAI's cl100k_base): a digit is a token (Qwen, Llama 3 and many others split numbers
into digits), a word a token per 6 letters, a CJK character 1.25, an emoji 3. Deliberately a
little high: the estimate decides when to compact and how much tool output fits, and
overshooting costs less than overflowing. What a server then counts calibrates it further
(ContextKeeper.scale)."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Sequence

from ..conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ..providers import ToolSchema

MESSAGE_OVERHEAD = 4  # role markers and separators a chat template adds per message

# Two classes spelt as the ASCII ranges they come to (every code point checked the same), not
# negated over \x80-\U0010ffff: re's compiler walks a class's ranges one BMP code point at a
# time, and the negated spelling cost ~10 ms of every session's opening (the status line's
# estimate). _NOT_WORD is [^\r\n0-9A-Za-z\x80-\U0010ffff], _SYMBOL [^\s0-9A-Za-z\x80-\U0010ffff].
_NOT_WORD = r"[\x00-\x09\x0b\x0c\x0e-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"
_SYMBOL = r"[\x00-\x08\x0e-\x1b\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]"
_PIECES = re.compile(  # runs are bounded, so a long one is cut inside too
    rf"(?P<word>{_NOT_WORD}?[A-Za-z]{{1,64}})"
    r"|(?P<digit>[0-9])"
    rf"|(?P<narrow>{_NOT_WORD}?[\x80-\u07ff]{{1,64}})"  # Latin-1 to Arabic: 2-byte letters
    rf"|(?P<wide>{_NOT_WORD}?[\u0800-\uffff])"  # CJK, kana, hangul, most symbols
    r"|(?P<astral>[\U00010000-\U0010ffff])"  # emoji and rare scripts
    rf"|(?P<symbols> ?{_SYMBOL}{{1,32}}[\r\n]{{0,4}})"
    r"|(?P<blank>[^\S\r\n]{0,16}[\r\n]{1,4}|[^\S\r\n]{1,16}(?!\S)|\s{1,16})"
)
# Costs in quarter tokens, so a CJK character's 1.25 stays a whole number.
_LETTERS_PER_TOKEN = 6
_SYMBOLS_PER_TOKEN = 1.5
_NARROW_PER_CHAR = 2  # 0.5 a token
_WIDE_PER_CHAR = 5  # 1.25
_ASTRAL_PER_CHAR = 12  # 3


def _quarters(kind: str | None, piece: str) -> int:
    if kind == "word":
        letters = len(piece) - (not piece[0].isalpha())
        return 4 * -(-letters // _LETTERS_PER_TOKEN)
    if kind == "digit" or kind == "blank":
        return 4
    if kind == "symbols":
        shown = piece.strip()
        return 4 * math.ceil(len(shown) / _SYMBOLS_PER_TOKEN) if shown else 4
    if kind == "narrow":
        return max(4, _NARROW_PER_CHAR * (len(piece) - (piece[0] < "\x80")))
    if kind == "wide":
        return _WIDE_PER_CHAR
    return _ASTRAL_PER_CHAR


@functools.lru_cache(maxsize=512)
def estimate_tokens(text: str) -> int:
    """Tokens ``text`` will take, estimated from its pieces (see above; about 20 ms for 64 KiB).
    Cached: a message's text is estimated again for every request of a conversation (512
    entries: what it holds beyond live messages stays in the tens of MiB at most)."""
    if not text:
        return 0
    quarters = sum(_quarters(m.lastgroup, m.group()) for m in _PIECES.finditer(text))
    return -(-quarters // 4)


def piece_costs(text: str) -> tuple[list[int], list[int]]:
    """Where each piece of ``text`` ends, and the estimate in quarter tokens up to that end
    (both ascending): what cutting a text to a number of tokens needs."""
    ends: list[int] = []
    totals: list[int] = []
    total = 0
    for match in _PIECES.finditer(text):
        total += _quarters(match.lastgroup, match.group())
        ends.append(match.end())
        totals.append(total)
    return ends, totals


def image_tokens(images: Iterable[ImagePart]) -> int:
    """About what the providers count for an image: one token for each 750 pixels (Anthropic's
    rule; the others count tiles, within the same range for images of at most 1568 pixels)."""
    return sum(max(85, image.width * image.height // 750) for image in images)


def estimate_message(message: Message) -> int:
    if isinstance(message, UserMessage):
        text = sum(estimate_tokens(block) for block in message.blocks())
        return MESSAGE_OVERHEAD + text + image_tokens(message.images)
    if isinstance(message, ToolResultMessage):
        text = estimate_tokens(message.output) + estimate_tokens(message.call_id)
        return MESSAGE_OVERHEAD + text + image_tokens(message.images)
    assert isinstance(message, AssistantMessage)
    calls = sum(
        MESSAGE_OVERHEAD + estimate_tokens(c.name) + estimate_tokens(c.arguments)
        for c in message.tool_calls
    )
    return MESSAGE_OVERHEAD + estimate_tokens(message.text) + calls


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in messages)


def estimate_fixed(system: str | None, tools: Sequence[ToolSchema]) -> int:
    """What every request carries besides the conversation: the system prompt and the tools."""
    schema = sum(
        estimate_tokens(t.name)
        + estimate_tokens(t.description)
        + estimate_tokens(json.dumps(t.parameters, separators=(",", ":")))
        for t in tools
    )
    return estimate_tokens(system or "") + schema + MESSAGE_OVERHEAD
