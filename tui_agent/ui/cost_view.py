"""/cost (and the palette): what this session has cost so far, per model, and its compactions'
summary requests (agent/cost_meter.py)."""

from __future__ import annotations

from .shell import Action, Entry, Shell


def cost(app: Shell, arguments: str) -> None:
    from .widgets.transcript import Transcript

    if app.host is None:
        return
    app.query_one(Transcript).add_notice(app.host.agent.cost.report(), "info")


# Its row of the actions' table (actions.py).
COST = Action(
    "cost",
    "what this session has cost so far, per model and for its compactions",
    cost,
    palette=(Entry("Cost", "What this session has cost so far, per model (/cost)"),),
    needs_session=True,
)
