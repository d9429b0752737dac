"""The approval prompt: one tool call shown in full, answered by a single key.

Typing never decides (see ``attention``): while the person types, the prompt waits and keys keep
going to the message box; it takes focus after a pause in typing (or at once when nobody was
typing, or by Tab). Keys are taken only while the prompt (or one of its inputs) has focus, and
decide only once it is armed: ``arming_delay`` seconds after the preview is shown and the prompt
has focus, started over by every key pressed meanwhile, and again whenever one of its inputs
(reason, prefix, edit) opens or closes. A typing key that reaches it while arming, after it took
focus by itself, goes back to the message box.

An edit (``e``, then Ctrl+S) first shows the diff of the model's arguments and the edited ones
(``screens.confirm_edit``); only an armed ``y`` there decides, ``n`` or Esc goes back to the editor.

The prompt resolves exactly once: it posts ``Decided`` and resolves the optional future, then
disables itself. Removed undecided, it resolves the future with
``cancel()`` so the agent never waits on a prompt nobody can answer.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static, TextArea

from ...approval.approver import ApprovalRequest
from ...approval.decision import Decision, approve, cancel, deny, edit
from ...approval.rules import SHELL_TOOL, Rule, RuleError, rule_for_call
from ...tools.spec import ToolContext
from ..call_preview import CallPreview, build_preview, editable_arguments, json_text
from ..sanitize import exact_text
from ..screens.confirm_edit import ConfirmEdit
from .approval_keys import (
    CHOICE_KEYS,
    SCROLL_KEYS,
    KeyHints,
    default_prefix,
    describe_decision,
    key_pairs,
    no_prefix_reason,
    prefix_rule,
)
from .approval_sandbox import CONFIRM_KEYS, SandboxLine, confirm_pairs
from .attention import Attention
from .folded_text import FoldedText

Mode = Literal["loading", "choose", "reason", "prefix", "edit", "decided"]
_BACK_KEYS = ("escape", "ctrl+c")


class ApprovalPrompt(Vertical, can_focus=True):
    """Asks the user about one call of ``request``; see the module docstring for the contract."""

    DEFAULT_CSS = """
    ApprovalPrompt {
        height: auto;
        padding: 0 1;
        border: round $warning 60%;
        background: $surface;
    }
    ApprovalPrompt:focus-within { border: round $warning; }
    ApprovalPrompt:disabled { border: round $panel; }
    ApprovalPrompt #title { height: auto; }
    ApprovalPrompt #heading { color: $text-muted; }
    ApprovalPrompt #arguments { height: auto; max-height: 40vh; background: $boost; }
    ApprovalPrompt #notes { color: $warning; }
    ApprovalPrompt #error { color: $error; }
    ApprovalPrompt #rule { color: $accent; }
    ApprovalPrompt .-empty { display: none; }
    ApprovalPrompt.-arming #keys { text-opacity: 45%; }
    ApprovalPrompt #editor { height: auto; min-height: 5; max-height: 40vh; }
    """

    class Decided(Message):
        """The user answered: ``decision`` for ``prompt.request``."""

        def __init__(self, prompt: ApprovalPrompt, decision: Decision) -> None:
            super().__init__()
            self.prompt = prompt
            self.decision = decision

        @property
        def control(self) -> ApprovalPrompt:
            return self.prompt

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        workspace: Path,
        arming_delay: float = 0.4,
        future: asyncio.Future[Decision] | None = None,
        protected: tuple[Path, ...] = (),
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.request = request
        self.arming_delay = arming_delay
        self._tool_context = ToolContext(workspace=workspace, protected=protected)
        self._future = future
        self._mode: Mode = "loading"
        self._attention = Attention(self, arming_delay, self._refresh_hints)
        self._enter_decides = False
        self._decision: Decision | None = None
        self._confirm: ConfirmEdit | None = None  # the edit's diff, asking before it runs
        command = request.arguments.get("command") if request.tool_name == SHELL_TOOL else None
        self._prefix = default_prefix(command) if isinstance(command, str) else None
        self._session_rule: Rule | RuleError
        try:
            self._session_rule = rule_for_call(request.tool_name, request.arguments)
        except RuleError as exc:
            self._session_rule = exc
        self.add_class("-arming")

    @property
    def armed(self) -> bool:
        """True once the preview is shown and the prompt has been attended for the arming delay."""
        return self._mode not in ("loading", "decided") and self._attention.armed()

    @property
    def waiting(self) -> bool:
        """True while the prompt waits for a pause in typing to take focus."""
        return self._attention.waiting

    @property
    def mode(self) -> Mode:
        """What the prompt is waiting for: a choice, a reason, a prefix, an edit, or nothing."""
        return self._mode

    @property
    def decision(self) -> Decision | None:
        """The decision, once made."""
        return self._decision

    def compose(self) -> ComposeResult:
        request = self.request
        yield Static(_title(request), id="title")  # wraps: a long tool name is never cut
        yield SandboxLine(request, id="sandbox")
        yield Static(Text("arguments"), id="heading")
        yield FoldedText(Text("preparing the preview…"), id="arguments")
        yield Static(id="notes", classes="-empty")
        yield Static(id="error", classes="-empty")
        yield KeyHints(id="keys")

    def on_mount(self) -> None:
        self._refresh_hints()
        self.run_worker(self._load_preview(), group="preview", exclusive=True)
        self._attention.mount()

    def on_unmount(self) -> None:
        self._attention.unmount()
        confirm, self._confirm = self._confirm, None
        if confirm is not None and confirm.is_current:  # taken down while confirming an edit
            confirm.dismiss(False)
        if self._future is not None and not self._future.done():
            self._future.set_result(cancel())

    async def _load_preview(self) -> None:
        request = self.request
        try:
            preview = await asyncio.to_thread(
                build_preview, request.tool_name, request.arguments, self._tool_context
            )
        except Exception as exc:  # a preview must never cost the user the prompt
            note = f"could not prepare the preview: {exc}"
            preview = CallPreview("json", Text("arguments"), json_text(request.arguments), (note,))
        self.query_one("#heading", Static).update(preview.heading)
        self.query_one(FoldedText).update(preview.body)
        self._set_line("#notes", "\n".join((*preview.notes, *request.claims)))
        self._mode = "choose"
        self._attention.restart()  # the arming delay runs from the moment the call is shown
        self._refresh_hints()

    async def on_key(self, event: events.Key) -> None:
        key = event.key
        decides = self._attention.key(event.time) and self._mode != "loading"
        self._enter_decides = key == "enter" and decides  # the inputs' Enter comes next
        # A key that is not one of its choices is typing for the message box, armed or not:
        # "/new" typed at a prompt that took focus in a pause goes to the box, whole.
        typed = (
            key not in SCROLL_KEYS
            and (not decides or key not in CHOICE_KEYS)
            and self._mode in ("loading", "choose")
        )
        if typed and self._attention.give_back(event):  # typed for the message box
            event.stop()
            event.prevent_default()
            return
        if self._mode == "choose":
            if key in SCROLL_KEYS:
                self._scroll(key)
            elif decides and key in CHOICE_KEYS:
                await self._choose(key)
            elif not (event.is_printable or key in (*_BACK_KEYS, "enter")):
                return  # tab and the like still move focus
        elif self._mode in ("reason", "prefix", "edit"):
            if key in _BACK_KEYS:
                await self._back_to_choice()
            elif key == "ctrl+s" and self._mode == "edit":
                if decides:
                    self._submit_edit()
            else:
                return
        elif self._mode == "loading" and not (event.is_printable or key in _BACK_KEYS):
            return
        event.stop()
        event.prevent_default()

    async def _choose(self, key: str) -> None:
        self._set_line("#error", "")
        if self.request.confirm and key not in CONFIRM_KEYS:
            return  # the extra confirmation: y, n, r or Esc
        if key == "y":
            self._resolve(approve())
        elif key == "t":
            rule = self._session_rule
            if isinstance(rule, RuleError):
                self._set_line("#error", str(rule))
            else:
                self._resolve(approve(remember=rule))
        elif key == "p":
            await self._open_prefix()
        elif key == "A":
            self._resolve(approve(approve_rest=True))
        elif key == "n":
            self._resolve(deny())
        elif key == "r":
            reason = Input(placeholder="why not (sent to the model)", id="reason")
            await self._open_input("reason", reason)
        elif key == "e":
            text = editable_arguments(self.request.arguments)
            await self._open_input("edit", TextArea(text, show_line_numbers=True, id="editor"))
        else:  # escape, ctrl+c
            self._resolve(cancel())

    async def _open_prefix(self) -> None:
        if self._prefix is None:
            if self.request.tool_name == SHELL_TOOL:
                why = no_prefix_reason(self.request.arguments.get("command"))
            else:
                why = f"prefix rules are for {SHELL_TOOL} only"
            self._set_line("#error", why)
            return
        await self.mount(Static(id="rule"), before="#error")
        await self._open_input(
            "prefix", Input(value=self._prefix, id="prefix", select_on_focus=False)
        )
        self._show_prefix_rule(self._prefix)

    async def _open_input(self, mode: Mode, widget: Input | TextArea) -> None:
        self._mode = mode
        widget.add_class("-editor")
        await self.mount(widget, before="#error")
        self.screen.set_focus(widget)
        self._attention.restart()
        self._refresh_hints()

    async def _back_to_choice(self) -> None:
        await self.query(".-editor, #rule").remove()
        self._mode = "choose"
        self._set_line("#error", "")
        self.screen.set_focus(self)
        self._attention.restart()
        self._refresh_hints()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "prefix":
            event.stop()
            self._show_prefix_rule(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self._enter_decides:  # Enter came right after the input opened, or while typing
            return
        self._enter_decides = False
        if event.input.id == "reason" and self._mode == "reason":
            self._resolve(deny(event.value.strip() or None))
        elif event.input.id == "prefix" and self._mode == "prefix":
            rule = prefix_rule(event.value, self.request.arguments)
            if isinstance(rule, str):  # its reason is on the rule's line already
                self._set_line("#error", "not kept: change the prefix above, or Esc to go back")
            else:
                self._resolve(approve(remember=rule))

    def _show_prefix_rule(self, text: str) -> None:
        rule = prefix_rule(text, self.request.arguments)
        if isinstance(rule, str):
            line = Text("keeps nothing: ")
            line.append_text(exact_text(rule, "bold"))
        else:
            line = Text("keeps: ")
            line.append_text(exact_text(rule.describe(), "bold"))
        self._set_line("#error", "")  # a refusal shown on Enter is answered by the change
        self.query_one("#rule", Static).update(line)

    def _submit_edit(self) -> None:
        text = self.query_one("#editor", TextArea).text
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            self._set_line("#error", f"not valid JSON: {exc}; fix it, or Esc to go back")
            return
        except RecursionError:
            self._set_line("#error", "nested too deeply; fix it, or Esc to go back")
            return
        if not isinstance(value, dict):
            self._set_line("#error", "the arguments must be one JSON object {...}")
            return
        self._set_line("#error", "")

        # Nothing runs until the person has seen what changed and said yes (an armed y).
        def answered(run: bool | None) -> None:
            self._confirm = None
            if run and self._decision is None and self.is_attached:
                self._resolve(edit(text))

        self._confirm = ConfirmEdit(self.request.tool_name, self.request.canonical, text)
        self.app.push_screen(self._confirm, answered)

    def _resolve(self, decision: Decision) -> None:
        if self._decision is not None:
            return
        self._decision = decision
        self._mode = "decided"
        self._attention.done()
        if self._future is not None and not self._future.done():
            self._future.set_result(decision)
        self.post_message(self.Decided(self, decision))
        self.query(".-editor, #rule").remove()
        self._set_line("#error", "")
        hints = self.query_one(KeyHints)
        hints.show_below(0)
        hints.show_message(describe_decision(decision))
        self.disabled = True

    def on_folded_text_below(self, event: FoldedText.Below) -> None:
        event.stop()
        if self._mode != "decided":
            self.query_one(KeyHints).show_below(event.count)

    def _scroll(self, key: str) -> None:
        view = self.query_one(FoldedText)
        getattr(view, "scroll_" + key.replace("page", "page_"))(animate=False)

    def _set_line(self, selector: str, text: str) -> None:
        line = self.query_one(selector, Static)
        line.update(exact_text(text))
        line.set_class(not text, "-empty")

    def _refresh_hints(self) -> None:
        rule = self._session_rule
        pairs = key_pairs(
            self._mode,
            kept=rule if not isinstance(rule, RuleError) else None,
            prefix=self._prefix is not None,
            rest=self.request.position < self.request.total,
        )
        hints = self.query(KeyHints)
        if self._mode == "decided" or not hints:  # decided, or taken down
            return
        if self.request.confirm and self._mode == "choose":
            pairs = confirm_pairs(pairs)
        armed = self.armed
        self.set_class(not armed, "-arming")
        note = ""
        if self._attention.waiting:
            note = "keep typing — press Tab to answer, or pause 1 s"
        elif not self._attention.attended():
            note = "press Tab to answer"
        hints.first().show_keys(pairs, arming=not armed, note=note)


_RISK_COLOURS = {"read": "$success", "write": "$warning"}


def _title(request: ApprovalRequest) -> Content:
    """ "call 1 of 3  run_command  execute": the tool bold, the risk bold in its colour; a
    subagent's call says first which subagent asks, and for which task (the model's words)."""
    tool = Content.from_rich_text(exact_text(request.tool_name, "bold", one_line=True))
    risk = Content.from_rich_text(exact_text(request.risk, one_line=True))
    colour = _RISK_COLOURS.get(request.risk.lower(), "$error")
    position = f"call {request.position} of {request.total}  "
    title = Content.assemble(position, tool, "  ", risk.stylize(f"bold {colour}"))
    if not request.origin:
        return title
    origin = Content.from_rich_text(exact_text(request.origin, "bold", one_line=True))
    return Content.assemble(origin.stylize("$accent"), "\n", title)
