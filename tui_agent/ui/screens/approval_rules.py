"""What is auto-approved right now: the mode and every rule, with revoke and "save to config"."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..sanitize import exact_text

if TYPE_CHECKING:
    from ...wiring.host import SessionHost

_MODES = {
    "ask": "ask for every call",
    "auto-read": "read-only tools run without asking",
    "auto-all": "EVERY call runs without asking",
    "plan": "planning: read-only tools run, every other call is refused",
}


class ApprovalRulesScreen(ModalScreen[None]):
    """F4: the rules this session approves by itself; `d` revokes one, `s` saves it to config."""

    DEFAULT_CSS = """
    ApprovalRulesScreen { align: center middle; }
    ApprovalRulesScreen > Vertical {
        width: 90%; height: 80%; border: round $primary; background: $surface; padding: 0 1;
    }
    ApprovalRulesScreen #mode { margin-bottom: 1; }
    ApprovalRulesScreen OptionList { height: 1fr; }
    ApprovalRulesScreen #hint { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "revoke", "Revoke"),
        Binding("s", "save", "Save to config"),
        Binding("escape", "dismiss_screen", "Close"),
    ]

    def __init__(self, host: SessionHost) -> None:
        super().__init__()
        self.host = host

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="mode")
            yield OptionList(id="rules")
            yield Static(
                "d revoke for this session · s save to config.toml for every session · Esc close",
                id="hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self._refresh()
        self.query_one(OptionList).focus()

    def _refresh(self) -> None:
        mode = str(self.host.policy.mode)
        line = Text("approval mode: ", style="bold")
        line.append(f"{mode} ({_MODES.get(mode, mode)})", "bold yellow" if mode != "ask" else "")
        self.query_one("#mode", Static).update(line)
        options = self.query_one(OptionList)
        options.clear_options()
        rules = self.host.policy.rules.rules()
        if not rules:
            options.add_option(Option(Text("no rules: every call is asked", "dim"), disabled=True))
        for index, rule in enumerate(rules):
            options.add_option(Option(exact_text(rule.describe()), id=str(index)))
        if rules:
            options.highlighted = 0

    def _selected(self) -> Any:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        if option.id is None:
            return None
        rules = self.host.policy.rules.rules()
        index = int(option.id)
        return rules[index] if index < len(rules) else None

    def action_revoke(self) -> None:
        rule = self._selected()
        if rule is None:
            return
        self.host.policy.rules.revoke(rule)
        self.app.notify(f"revoked: {rule.describe()}", markup=False)
        self._refresh()

    async def action_save(self) -> None:
        rule = self._selected()
        if rule is None:
            return
        from ...config import ConfigError, default_config_path, remember_rule

        path = default_config_path()
        try:
            await asyncio.to_thread(remember_rule, path, rule)
        except (ConfigError, OSError) as exc:
            self.app.notify(f"not saved: {exc}", severity="error", markup=False)
            return
        self.app.notify(f"saved to {path.name}: {rule.describe()}", markup=False)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
