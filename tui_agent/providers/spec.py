"""What one wire protocol is, as the rest of the app needs to know it: one descriptor per
provider package (its ``PROTOCOL``), collected by ``registry``.

A descriptor holds the protocol's name as users write it, the decoder for one turn's stream, the
function that builds its request, the official base URL (following each official SDK: the OpenAI
protocols include the API version, Anthropic and Gemini do not), the variables its key is read
from, whether it can keep state on the server, the endpoint suffixes a ``base_url`` must not
already end with, and how to count the tokens its usage reports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..conversation import Message
from .decoding import StreamDecoder
from .request import ProviderRequest, RequestSettings, ToolSchema

# A usage count past this is no count (a turn of a 100M-token window is far below it); it is
# ignored with a log line, as a count of 10^400 would overflow every float it met.
MAX_USAGE_COUNT = 1_000_000_000

log = logging.getLogger(__name__)

RequestBuilder = Callable[
    [Sequence[Message], Sequence[ToolSchema], RequestSettings], ProviderRequest
]


@dataclass(frozen=True)
class UsageKeys:
    """Where a protocol's usage (merged over the turn) holds its token counts: the first of
    ``totals`` with a positive count, else the sum of ``parts``. ``output`` are the counts the
    request's output limit bounds (summed): the output budget is spent when they reach it."""

    totals: tuple[str, ...]
    parts: tuple[str, ...]
    output: tuple[str, ...] = ()

    def tokens(self, usage: Mapping[str, Any] | None) -> int:
        """The tokens one turn's usage accounts for (0 when it says nothing usable)."""
        if not usage:
            return 0
        for key in self.totals:
            if found := _count(usage.get(key)):
                return found
        return sum(_count(usage.get(key)) for key in self.parts)

    def output_tokens(self, usage: Mapping[str, Any] | None) -> int:
        """The output tokens one turn's usage reports (0 when it says nothing usable)."""
        if not usage:
            return 0
        return sum(_count(usage.get(key)) for key in self.output)


def _count(value: Any) -> int:
    # bool is an int to Python, and a hostile server may send one; neither counts.
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return 0
    if value > MAX_USAGE_COUNT:
        log.warning("ignored a usage count past %d tokens the server sent", MAX_USAGE_COUNT)
        return 0
    return value


@dataclass(frozen=True)
class ProtocolSpec:
    name: str
    decoder: Callable[[], StreamDecoder]
    build_request: RequestBuilder
    base_url: str
    key_envs: tuple[str, ...]  # tried in order; the first that is set wins
    stateful_capable: bool  # has previous_response_id / previous_interaction_id
    endpoint_suffixes: tuple[str, ...]  # what the app appends: a base_url must not end with it
    usage: UsageKeys
