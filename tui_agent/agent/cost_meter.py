"""The money a session spends: each complete turn's cost from its usage (``providers/cost.py``),
each compaction's summary request too, the session's sum and its share per model (/cost), and
``[settings] max_cost``, kept before each request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..providers.cost import BUILTIN, Price, billed, money, price_of, turn_cost


@dataclass
class Spend:
    """What one model (or the compactions) cost: the known part and how many were unknown."""

    spent: float = 0.0
    priced: int = 0
    unknown: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def total(self) -> str:
        if not self.priced:
            return money(None)
        return money(self.spent) + ("+?" if self.unknown else "")


@dataclass
class CostMeter:
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(BUILTIN))
    max_cost: float | None = None  # US dollars; None: no limit
    spent: float = 0.0  # of the turns whose cost is known
    priced_turns: int = 0
    unknown_turns: int = 0  # no price for the model, or no usage reported
    told_unpriced: bool = False  # max_cost cannot be kept for a model without a price: said once
    by_model: dict[str, Spend] = field(default_factory=dict)  # the turns' share of each model
    compactions: Spend = field(default_factory=Spend)  # the summary requests of compactions

    def add(
        self,
        protocol: str,
        model: str,
        usage: Mapping[str, Any] | None,
        *,
        compaction: bool = False,
    ) -> float | None:
        """Count one complete turn (or a compaction's summary request); its cost, or None when
        unknown."""
        cost = turn_cost(protocol, model, usage, self.prices)
        share = self.compactions if compaction else self.by_model.setdefault(model, Spend())
        tokens = billed(protocol, usage)
        if tokens is not None:
            share.input_tokens += tokens.input + tokens.cached_input + tokens.cache_write
            share.output_tokens += tokens.output
        if cost is None:
            self.unknown_turns += 1
            share.unknown += 1
        else:
            self.spent += cost
            self.priced_turns += 1
            share.spent += cost
            share.priced += 1
        return cost

    def report(self) -> str:
        """/cost: the session's total, then each model's share and the compactions'."""
        lines = [f"This session's cost: {self.total()}"]
        if not self.by_model and not (self.compactions.priced or self.compactions.unknown):
            lines.append("  nothing sent yet")
        for model, share in self.by_model.items():
            lines.append(f"  {model}: {_share(share, 'turn')}")
        if self.compactions.priced or self.compactions.unknown:
            lines.append(f"  compactions: {_share(self.compactions, 'request')}")
        if self.unknown_turns:
            lines.append(
                "  ? = no price known (prices.toml in the config folder adds one), or the "
                "provider reported no usage"
            )
        if self.max_cost is not None:
            lines.append(f"  max_cost: ${self.max_cost:g}")
        return "\n".join(lines)

    def priced(self, model: str) -> bool:
        return price_of(model, self.prices) is not None

    def total(self) -> str:
        """``$0.0123``; ``$0.0123+?`` when some turn's cost is unknown; ``$?`` if none is."""
        if not self.priced_turns:
            return money(None) if self.unknown_turns else money(0.0)
        return money(self.spent) + ("+?" if self.unknown_turns else "")

    def shown(self, model: str) -> str:
        """What the status line shows: the total, or "" while nothing is priced and ``model``
        has no price (a local model's session says nothing of money)."""
        return self.total() if self.priced_turns or self.priced(model) else ""

    def stop_before(self, model: str, input_tokens: int) -> tuple[str, bool] | None:
        """Why the next request must not be sent (with ``True``: the loop stops), or a note that
        the limit cannot be kept (``False``: said once, the request goes); None: go on."""
        if self.max_cost is None:
            return None
        price = price_of(model, self.prices)
        if price is None:
            if self.told_unpriced:
                return None
            self.told_unpriced = True
            return (
                f"max_cost ${self.max_cost:g} cannot be kept: no price is known for model "
                f"{model!r} (add it to prices.toml)",
                False,
            )
        next_input = input_tokens * price.input / 1_000_000
        if self.spent + next_input <= self.max_cost:
            return None
        return (
            f"stopped before the next request: it would pass max_cost ${self.max_cost:g} "
            f"(spent {money(self.spent)}, the request's input alone about {money(next_input)})",
            True,
        )


def _share(share: Spend, what: str) -> str:
    count = share.priced + share.unknown
    tokens = f"{share.input_tokens:,} in, {share.output_tokens:,} out"
    return f"{share.total()} ({count} {what}{'s' if count != 1 else ''}; {tokens})"
