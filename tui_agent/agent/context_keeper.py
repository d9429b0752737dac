"""The agent's view of its context window: how full it is, what a request sends after a
compaction, when to compact, and how much tool output still fits.

Counts are kept in messages of the whole conversation (as rebuilt from the session records),
so a resumed session starts where it left off: ``replaced`` of them are stood for by
``summary``; the agent keeps the rest verbatim. ``base`` tokens were counted (a turn's usage, or
the estimate after a compaction) when the conversation held ``base_at`` messages; what came
after is estimated. Estimates are scaled by ``scale``: what the server counted for the last
request over what the estimate said of it (never below 1: the estimate stays the floor).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..config import Config, ResolvedProfile
from ..context.estimate import estimate_fixed, estimate_messages, estimate_tokens
from ..context.events import ContextOverflow, ContextUpdate
from ..context.fit import MIN_OUTPUT_TOKENS, fit_output
from ..context.overflow import (
    is_overflow,
    overflow_limit,
    overflow_prompt_tokens,
    overflow_words,
)
from ..context.planner import plan_compaction
from ..context.resume import ResumedContext
from ..context.summary import DEFAULT_COMPACT_PROMPT, compacted_view
from ..context.window import (
    ContextWindow,
    WindowSource,
    builtin_window,
    over_threshold,
    sane_window,
)
from ..conversation import Message, ToolResultMessage
from ..providers import ToolSchema
from ..stream.turn import TruncatedTurn

# The limit a server's overflow error names wins even over the configured window: the server
# is the one refusing.
_PRIORITY: dict[WindowSource | None, int] = {
    None: 0,
    "table": 1,
    "server": 2,
    "profile": 3,
    "error": 4,
}
# How far the server's counts may scale the estimate up: past this, what it counted is more
# likely a different request (a template's tool preamble on a tiny conversation) than text.
MAX_SCALE = 4.0
# The output budget a request asks for is never cut below this by the window (a request that
# leaves less room overflows anyway, and the overflow names the window).
MIN_OUTPUT_BUDGET = 256
# A result cut because it kept the request from fitting still says this much.
MIN_CUT_RESULT_TOKENS = 64


@dataclass(frozen=True, slots=True)
class ContextSettings:
    window: ContextWindow = field(default_factory=ContextWindow)
    compact_at: float = 0.85  # of the window; 0: never compact by itself
    prompt: str = DEFAULT_COMPACT_PROMPT
    keep_share: float = 0.25  # of the window, kept verbatim by a compaction
    keep_tokens_unknown: int = 4000  # kept verbatim when the window is unknown
    retry_on_overflow: bool = False  # `run`: compact once and send again


def context_settings(
    profile: ResolvedProfile, config: Config, retry_on_overflow: bool = False
) -> ContextSettings:
    """The profile's window (else the table's, until the server answers) and the settings."""
    configured = profile.context_window or config.settings.context_window
    if configured:
        window = ContextWindow(configured, "profile")
    elif (known := builtin_window(profile.model)) is not None:
        window = ContextWindow(known, "table")
    else:
        window = ContextWindow()
    settings = config.settings
    return ContextSettings(
        window=window,
        compact_at=settings.compact_at,
        prompt=settings.compact_prompt or DEFAULT_COMPACT_PROMPT,
        retry_on_overflow=retry_on_overflow,
    )


class ContextKeeper:
    def __init__(
        self, settings: ContextSettings | None = None, resumed: ResumedContext | None = None
    ) -> None:
        self.settings = settings or ContextSettings()
        self.window = self.settings.window
        resumed = resumed or ResumedContext()
        self.summary = resumed.summary
        self.replaced = resumed.replaced
        self.base = resumed.base
        self.base_at = resumed.base_at
        self._given = 0  # tokens of tool output let through since the last turn
        self.scale = 1.0  # server-counted tokens per estimated token (see calibrate)
        self._sent: int | None = None  # the unscaled estimate of the last request sent
        self.refused: int | None = None  # the size of the last request refused as too long

    # -- the window ----------------------------------------------------------------------

    @property
    def size(self) -> int | None:
        return self.window.size

    def adopt_window(
        self, size: int | None, source: WindowSource, where: str | None = None
    ) -> bool:
        """Use ``size`` unless a better-founded one is known, or it is no sane window (logged);
        True when it changed. ``where`` says what answered (shown by /context)."""
        if sane_window(size, f"the {source}") is None:
            return False
        if _PRIORITY[source] < _PRIORITY[self.window.source] or size == self.window.size:
            return False
        self.window = ContextWindow(size, source, where)
        return True

    # -- what is sent, and how much it is -------------------------------------------------

    def view(self, kept: Sequence[Message]) -> list[Message]:
        """The messages a request sends: the summary (if any), then the kept ones."""
        return compacted_view(self.summary, kept)

    def scaled(self, estimate: int) -> int:
        """An estimate as the server would likely count it."""
        return math.ceil(estimate * self.scale)

    def estimate_all(
        self, system: str | None, tools: Sequence[ToolSchema], kept: Sequence[Message]
    ) -> int:
        return self.scaled(estimate_fixed(system, tools) + estimate_messages(self.view(kept)))

    def used(self, system: str | None, tools: Sequence[ToolSchema], kept: Sequence[Message]) -> int:
        """The tokens the next request would hold."""
        if self.base is None:
            return self.estimate_all(system, tools, kept)
        since = max(0, self.base_at - self.replaced)
        return self.base + self.scaled(estimate_messages(kept[since:]))

    def sending(
        self, system: str | None, tools: Sequence[ToolSchema], kept: Sequence[Message]
    ) -> None:
        """A request is about to go out: its estimate is kept, to calibrate by what the server
        counts of it."""
        self._sent = estimate_fixed(system, tools) + estimate_messages(self.view(kept))

    def calibrate(self, counted: int) -> None:
        """The server counted ``counted`` tokens for the last request sent (its usage, or the
        size an overflow error named): later estimates are scaled by that over the estimate,
        when it is more (at most MAX_SCALE)."""
        if counted > 0 and self._sent:
            self.scale = min(MAX_SCALE, max(1.0, counted / self._sent))

    def output_budget(self, max_tokens: int, used: int) -> int:
        """The output limit a request asks for: ``max_tokens``, but no more than the known
        window leaves after the request itself (a server refuses a limit it cannot give)."""
        if not self.size:
            return max_tokens
        return max(min(max_tokens, MIN_OUTPUT_BUDGET), min(max_tokens, self.size - used))

    def counted(self, tokens: int, kept: Sequence[Message]) -> None:
        """``tokens`` is what the conversation holds now (a turn's usage, a compaction)."""
        self.base = tokens
        self.base_at = self.replaced + len(kept)
        self._given = 0

    def after_turn(self, tokens: int, kept: Sequence[Message], prompt_tokens: int = 0) -> None:
        """A turn completed whose usage counts ``tokens`` (0: it said nothing usable), of
        which ``prompt_tokens`` the request's."""
        self._given = 0
        self.refused = None
        self.calibrate(prompt_tokens)
        if tokens:
            self.counted(tokens, kept)

    def update(
        self, system: str | None, tools: Sequence[ToolSchema], kept: Sequence[Message]
    ) -> ContextUpdate:
        return ContextUpdate(self.used(system, tools, kept), self.size)

    # -- when to act ----------------------------------------------------------------------

    def should_compact(self, used: int) -> bool:
        return over_threshold(used, self.size, self.settings.compact_at)

    def compaction_futile(self, kept_now: Sequence[Message], used: int) -> str | None:
        """Why a compaction could not bring the context under the threshold, or None.

        What it would leave is at least what was counted less the messages it replaces (their
        estimate), with a summary of no length at all: when even that passes the threshold,
        the system prompt, the tools and the recent messages it keeps are too much for the
        window, and compacting would only repeat."""
        if not self.size or self.settings.compact_at <= 0:
            return None
        plan = plan_compaction(list(kept_now), self.keep_tokens())
        if plan is None:
            return None  # nothing to compact: the compaction says so itself
        kept = kept_now[plan.cut :]
        least = used - estimate_messages(self.view(kept_now)) + estimate_messages(kept)
        limit = int(self.settings.compact_at * self.size)
        if least <= limit:
            return None
        return (
            f"no automatic compaction: even with an empty summary the context would hold about "
            f"{least:,} tokens (the system prompt, the tools and the recent messages kept), past "
            f"compact_at ({limit:,} of the {self.size:,}-token window), so it could not help; "
            "set a larger context_window or a higher compact_at, or start a new session"
        )

    def keep_tokens(self) -> int:
        if self.size:
            return max(256, int(self.size * self.settings.keep_share))
        return self.settings.keep_tokens_unknown

    def request_budget(self) -> int | None:
        """The most the compaction request's transcript may take."""
        return int(self.size * 0.6) if self.size else None

    def overflow(self, turn: TruncatedTurn) -> ContextOverflow | None:
        """The overflow a truncated turn reports, if it is one (its limit becomes the window)."""
        if turn.reason != "error" or not is_overflow(turn.error):
            return None
        limit = overflow_limit(turn.error)
        if limit:
            self.adopt_window(limit, "error", "the limit its overflow error named")
        counted = overflow_prompt_tokens(turn.error)
        if counted:
            self.calibrate(counted)
        # What was refused was at least the window (else it would not have been).
        self.refused = counted or ((self.size + 1) if self.size else None)
        return ContextOverflow(overflow_words(turn.error), limit)

    def reserve(self, max_tokens: int) -> int:
        """What a request leaves of the window for the answer."""
        return min(max_tokens, (self.size or 0) // 4)

    def fit(self, text: str, used: int, max_tokens: int) -> str:
        """A tool's output, cut to what is left of the window (all of it when unknown)."""
        if not self.size:
            return text
        budget = min(self.size - used - self.reserve(max_tokens) - self._given, self.size // 2)
        floor = int(MIN_OUTPUT_TOKENS / self.scale)
        out = fit_output(text, int(budget / self.scale), floor)
        self._given += self.scaled(estimate_tokens(out))
        return out

    def cut_results(
        self, kept: Sequence[Message], used: int, max_tokens: int
    ) -> tuple[list[Message], tuple[str, ...], int] | None:
        """When the next request would not fit the window (less the answer's reserve) and the
        results of the newest round of calls are too much for what is left: the conversation
        with those results cut (the largest first) until it fits, the tools cut, and the
        tokens that saved; None when no result is at the end or none could be cut."""
        if not self.size:
            return None
        used = max(used, self.refused or 0)
        over = used - (self.size - self.reserve(max_tokens))
        start = len(kept)
        while start > 0 and isinstance(kept[start - 1], ToolResultMessage):
            start -= 1
        if over <= 0 or start == len(kept):
            return None
        out = list(kept)
        names: list[str] = []
        saved = 0
        results = [(i, m) for i, m in enumerate(kept) if i >= start]
        results.sort(key=lambda item: -estimate_tokens(_output(item[1])))
        for i, message in results:
            if over <= 0:
                break
            output = _output(message)
            size = self.scaled(estimate_tokens(output))
            target = int(max(0, size - over) / self.scale)
            cut = fit_output(output, target, MIN_CUT_RESULT_TOKENS)
            if cut == output:
                continue
            assert isinstance(message, ToolResultMessage)
            out[i] = replace(message, output=cut)
            names.append(message.name)
            less = size - self.scaled(estimate_tokens(cut))
            over -= less
            saved += less
        if not names:
            return None
        self.refused = None
        return out, tuple(names), saved


def _output(message: Message) -> str:
    return message.output if isinstance(message, ToolResultMessage) else ""
