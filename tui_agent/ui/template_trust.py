"""Trust this workspace's prompt templates (``.tui-agent/commands/*.md``)? Each template's name
and first lines, then one key: t trusts exactly these (an edited or added file is asked about
again), n or Esc does not. Asked by /trust-templates; a key decides only once armed."""

from __future__ import annotations

from typing import Any

from ..prompting.templates import PromptTemplate, trust
from .screens.trust_question import TrustQuestion

PREVIEW_LINES = 4


class TemplateTrustScreen(TrustQuestion):
    DEFAULT_CSS = """
    TemplateTrustScreen > Vertical { max-height: 90%; }
    TemplateTrustScreen VerticalScroll { height: auto; max-height: 20; }
    """
    scrolls = True

    def __init__(self, templates: list[PromptTemplate]) -> None:
        super().__init__(
            "This workspace's .tui-agent/commands/ holds prompt templates. They become "
            "/commands only once you trust them:",
            preview(templates),
            "t: trust these templates for this workspace · n or Esc: not now",
        )
        self.templates = templates


def preview(templates: list[PromptTemplate]) -> list[str]:
    """Each template's name and description, then its first lines."""
    lines: list[str] = []
    for template in templates:
        lines.append(f"/{template.name} — {template.description}")
        body = template.body.splitlines()
        lines += [f"    {line}" for line in body[:PREVIEW_LINES]]
        if len(body) > PREVIEW_LINES:
            lines.append(f"    … ({len(body) - PREVIEW_LINES} more lines)")
    return lines


def ask_trust(app: Any) -> None:
    from .slash_commands import templates_of

    if app.host is None:
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
