"""The approval prompt's sandbox line: where the program the call runs will run.

``request.sandbox`` names the mode and the network switch ("workspace-write, no network"); a
tool that runs no program has none and the line is hidden. In warning colour when the call runs
unconfined (mode off, or an unconfined re-run) or a protection is missing on this machine
(``request.sandbox_warning``). The once-a-session extra confirmation (``request.confirm``) is a
bold warning above it that says the command will run UNCONFINED (or unprotected) and that y
confirms it; only y, n, r and Esc work then (``CONFIRM_KEYS``).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...approval.approver import ApprovalRequest
from ..sanitize import visible

# On the extra confirmation: approve (confirm), deny, deny with a reason, cancel.
CONFIRM_KEYS = frozenset({"y", "n", "r", "escape", "ctrl+c"})


def unconfined(request: ApprovalRequest) -> bool:
    return request.sandbox.startswith("off")


def sandbox_text(request: ApprovalRequest) -> Text:
    """The line(s) shown; empty for a tool that runs no program."""
    text = Text()
    if not request.sandbox:
        return text
    if request.confirm:
        what = "UNCONFINED" if unconfined(request) else "without a protection"
        text.append(f"this command will run {what}: press y again to confirm", "bold reverse")
        text.append("\n")
        text.append(visible(request.confirm), "bold")
        text.append("\n")
    text.append("sandbox: ")
    label = request.sandbox.upper() if unconfined(request) else request.sandbox
    text.append(visible(label), "bold")
    if request.sandbox_warning:
        text.append(" · " + visible(request.sandbox_warning))
    return text


def confirm_pairs(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The key hints of the extra confirmation: y confirms, n/r deny, Esc cancels."""
    kept = [pair for pair in pairs if pair[0] in ("n", "r", "esc") or pair[0].startswith("↑")]
    return [("y", "confirm: run it so"), *kept]


class SandboxLine(Static):
    """Shows ``sandbox_text``; the class ``-warning`` colours it."""

    DEFAULT_CSS = """
    SandboxLine { color: $text-muted; }
    SandboxLine.-warning { color: $warning; }
    SandboxLine.-empty { display: none; }
    """

    def __init__(self, request: ApprovalRequest, id: str | None = None) -> None:
        super().__init__(sandbox_text(request), id=id)
        warn = bool(request.sandbox_warning) or unconfined(request) or bool(request.confirm)
        self.set_class(warn, "-warning")
        self.set_class(not request.sandbox, "-empty")
