"""Trust this workspace's prompt templates (``.tui-agent/commands/*.md``)? Each template whole
(its name, description and every line), then one key: t trusts exactly these (an edited or added
file is asked about again), n or Esc does not. Asked by /trust-templates; a key decides only once
armed and everything was scrolled through."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..prompting.templates import PromptTemplate, describe_templates, trust
from .screens.trust_question import TrustQuestion

if TYPE_CHECKING:
    from .shell import Shell


class TemplateTrustScreen(TrustQuestion):
    def __init__(self, templates: list[PromptTemplate]) -> None:
        super().__init__(
            "This workspace's .tui-agent/commands/ holds prompt templates. They become "
            "/commands only once you trust them:",
            describe_templates(templates),
            "t: trust these templates for this workspace · n or Esc: not now",
        )
        self.templates = templates


def ask_trust(app: Shell) -> None:
    from .slash_commands import templates_of

    if app.host is None:
        return
    from ..prompting.templates import available_templates

    refused = available_templates(app.host.workspace).refused
    if refused is not None:
        app.notify(
            f"{refused} leads outside the workspace (a symlink): its templates are refused",
            severity="warning",
            markup=False,
        )
        return
    _, untrusted = templates_of(app)
    if not untrusted:
        app.notify("no untrusted prompt templates in this workspace")
        return
    workspace = app.host.workspace

    def answered(yes: bool | None) -> None:
        if yes:
            trust(workspace, untrusted)
            names = ", ".join(f"/{t.name}" for t in untrusted)
            app.notify(f"trusted: {names}", markup=False)

    app.push_screen(TemplateTrustScreen(untrusted), answered)
