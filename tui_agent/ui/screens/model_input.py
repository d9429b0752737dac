"""Which model to use from the next turn: typed, or chosen from the configured ones and those
the server offers (``action_runners.model_list``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


class ModelInput(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ModelInput { align: center middle; }
    ModelInput > Vertical {
        width: 70; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    ModelInput OptionList { height: auto; max-height: 12; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "to_list", "Models", show=False),
    ]

    def __init__(self, current: str, choices: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__()
        self.current = current
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Model for the next turn (Enter to use it, Esc to keep the current one)")
            yield Input(value=self.current, id="model")
            yield OptionList(*self._options(""), id="models")

    def _options(self, typed: str) -> list[Option]:
        wanted = typed.strip().lower()
        if wanted == self.current.lower():
            wanted = ""  # the box starts with the model in use: show them all
        return [
            Option(Text.assemble(model, ("  " + what, "dim")), id=model)
            for model, what in self.choices
            if wanted in model.lower()
        ]

    def on_mount(self) -> None:
        self.query_one(OptionList).display = bool(self.choices)
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_to_list(self) -> None:
        options = self.query_one(OptionList)
        if options.option_count and self.query_one(Input).has_focus:
            options.focus()
            options.highlighted = 0

    def action_cancel(self) -> None:
        self.dismiss(None)
