"""Trust this workspace? The one question the app asks when a folder brings its own content
(``wiring/workspace_content.py``: its AGENTS.md, prompt templates, .mcp.json servers) that is not
trusted as it is now: every part whole, then one key. t trusts exactly what was shown (sends the
instructions from the next request on, offers the templates, starts the servers), n or Esc uses
none of it. A key decides only once armed and everything was scrolled through
(``TrustQuestion``). Asked when the app opens, and again by /trust-workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .screens.trust_question import TrustQuestion
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..mcp.workspace_file import VariablePolicy
    from ..wiring.host import SessionHost
    from ..wiring.workspace_content import WorkspaceContent
    from .shell import Shell


class WorkspaceTrustScreen(TrustQuestion):
    DEFAULT_CSS = """
    WorkspaceTrustScreen #lines { color: $text; }
    """

    def __init__(self, content: WorkspaceContent, policy: VariablePolicy) -> None:
        until = []
        if content.instructions is not None:
            until.append(f"{content.instructions.path.name} is not sent to the model")
        if content.templates:
            until.append("its templates are not offered")
        if content.servers is not None:
            until.append("its MCP servers do not start")
        if content.skills:
            until.append("its skills are not offered")
        super().__init__(
            "This workspace brings its own "
            + ", ".join(content.names())
            + ". Until you trust it, "
            + ", ".join(until)
            + ":",
            content.describe(policy),
            "t: trust all of this for this workspace · n or Esc: not now "
            "(asked again next time; changed content is asked again)",
        )
        self.content = content


def ask_workspace_trust(app: Shell, host: SessionHost, *, when_none: str | None = None) -> None:
    """Ask about what ``host``'s workspace brings that is not trusted yet (nothing to ask: say
    ``when_none``, if given)."""
    from ..config.secrets import workspace_variable_policy

    pending = host.untrusted_content()
    if pending.empty:
        if when_none is not None:
            app.notify(when_none, markup=False)
        return
    policy = workspace_variable_policy(host.config, host.profile.api_key_env)

    def answered(yes: bool | None) -> None:
        transcript = app.query_one(Transcript)
        if not yes:
            text = (
                "not trusted, so not used: " + ", ".join(pending.names()) + " (/trust-workspace "
                "asks again)"
            )
            transcript.add_notice(text, "info")
            return
        host.trust_content(pending)
        transcript.add_notice("trusted: " + ", ".join(pending.names()), "info")
        if pending.servers is not None:
            from .mcp_view import start_workspace_servers

            start_workspace_servers(app, host, pending.servers)

    app.push_screen(WorkspaceTrustScreen(pending, policy), answered)
