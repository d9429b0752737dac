"""/cost (and the palette): what this session has cost so far, per model, and its compactions'
summary requests (agent/cost_meter.py)."""

from __future__ import annotations

from .shell import Shell


def cost(app: Shell, arguments: str) -> None:
    from .widgets.transcript import Transcript

    if app.host is None:
        return
    app.query_one(Transcript).add_notice(app.host.agent.cost.report(), "info")
