"""When to try a request again, and how long to wait: only before a response has started."""

from __future__ import annotations

import datetime
import email.utils
import math
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

RETRYABLE_STATUS = frozenset({408, 409, 429, 529}) | frozenset(range(500, 600))

# What a server error says when the request itself is what it cannot take (llama.cpp answers
# HTTP 500 "Failed to parse tool call arguments as JSON" for a history it cannot render): the
# same bytes would fail the same way, so such an answer is not retried. So is a model that takes
# no images (llama.cpp without its projector: HTTP 500 "image input is not supported").
_UNPARSEABLE_REQUEST = re.compile(
    rb"fail(?:ed)? to parse|(?:cannot|could not|unable to) parse|parse[_ ]error"
    rb"|invalid json|malformed (?:json|request)"
    rb"|image input is not supported|does not support (?:image|vision)",
    re.IGNORECASE,
)


def is_retryable(status: int, body: bytes) -> bool:
    """Whether an error answer may be worth sending again: a retryable status whose body does
    not say the request itself cannot be parsed."""
    if status not in RETRYABLE_STATUS:
        return False
    return not (status >= 500 and _UNPARSEABLE_REQUEST.search(body))


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0  # for our own backoff
    max_retry_after_s: float = 60.0  # a server's retry-after is honoured up to this

    def delay(
        self,
        attempt: int,
        headers: Mapping[str, str] | None = None,
        rng: random.Random | None = None,
    ) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        asked = retry_after_seconds(headers) if headers is not None else None
        if asked is not None:
            return min(asked, self.max_retry_after_s)
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return float(backoff * (0.5 + (rng or random).random() / 2))  # jitter: 50-100% of it


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """What ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date) asks for, if sane."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:  # HTTP dates are GMT, whatever the sender left out
            when = when.replace(tzinfo=datetime.UTC)
        value = when.timestamp() - (time.time() if now is None else now)
        return max(0.0, value)
    return value if math.isfinite(value) and value >= 0 else None
