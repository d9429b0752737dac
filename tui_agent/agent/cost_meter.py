"""The money a session spends: each complete turn's cost from its usage (``providers/cost.py``),
the session's sum, and ``[settings] max_cost``, kept before each request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..providers.cost import BUILTIN, Price, money, price_of, turn_cost


@dataclass
class CostMeter:
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(BUILTIN))
    max_cost: float | None = None  # US dollars; None: no limit
    spent: float = 0.0  # of the turns whose cost is known
    priced_turns: int = 0
    unknown_turns: int = 0  # no price for the model, or no usage reported
    told_unpriced: bool = False  # max_cost cannot be kept for a model without a price: said once

    def add(self, protocol: str, model: str, usage: Mapping[str, Any] | None) -> float | None:
        """Count one complete turn; its cost, or None when unknown."""
        cost = turn_cost(protocol, model, usage, self.prices)
        if cost is None:
            self.unknown_turns += 1
        else:
            self.spent += cost
            self.priced_turns += 1
        return cost

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
