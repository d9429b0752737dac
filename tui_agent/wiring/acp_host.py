"""What an ACP agent's session needs besides its screen (``--agent NAME``): config, workspace,
the session file (tui-agent's own format: listed, exported, replayed like any other), the
checkpoints, and the agent itself (acp_client/). ``run --agent`` and the app open one here."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from ..acp_client.session import SESSION_NOTE, AcpError, AcpSession
from ..acp_client.updates import PROTOCOL
from ..agent.events import Notice
from ..agent.history import messages_from_records
from ..approval.approver import Approver
from ..approval.policy import ApprovalMode, ApprovalPolicy
from ..checkpoints import Checkpointer
from ..config import Config, ConfigError, load_config, resolve_workspace
from ..config.secrets import key_values
from ..conversation import Message
from ..logs import add_log_secret
from ..session import Redactor, SessionStore, SessionWriter
from ..session.paths import protected_dirs, sessions_dir
from ..session.records import HeaderRecord, NoteRecord
from .host_options import HostOptions
from .sandbox_choice import session_policy
from .setup import approval_policy

AGENT_PROFILE = "agent:"  # a session's profile is "agent:NAME": which [agents.NAME] it talked to


@dataclass
class AcpHost:
    config: Config
    name: str
    workspace: Path
    policy: ApprovalPolicy
    session: AcpSession
    writer: SessionWriter
    store: SessionStore
    redactor: Redactor
    notices: list[Notice] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)  # a resumed session's, to show
    created: bool = True
    closed: bool = False

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            await self.session.close()
        with contextlib.suppress(Exception):
            self.writer.close()
        if self.created and not self.session.sent_anything:
            with contextlib.suppress(Exception):  # nothing said: no session to list
                self.store.delete(self.writer.session_id)


def agent_of(header: HeaderRecord | None) -> str | None:
    """The [agents.NAME] a saved session talked to (None: tui-agent's own loop)."""
    if header is None or header.protocol != PROTOCOL:
        return None
    return header.profile.removeprefix(AGENT_PROFILE) or header.model


async def open_acp_host(
    options: HostOptions,
    name: str,
    approver: Approver,
    *,
    mode: ApprovalMode | None = None,
) -> AcpHost:
    """Start agent ``name`` of config.toml in the workspace and open (or resume) its session.
    ConfigError, SessionError or AcpError say why not."""
    config = load_config()
    agent = config.agents.get(name)
    if agent is None:
        known = ", ".join(sorted(config.agents)) or "none"
        raise ConfigError(f"no agent named {name!r} in config.toml ([agents.*]: {known})")
    secrets = [key for key in key_values(config) if key]
    for secret in secrets:
        add_log_secret(secret)
    redactor = Redactor(secrets)
    store = SessionStore(sessions_dir(), redactor)
    notices: list[Notice] = []
    resume_id: str | None = None
    history: list[Message] = []
    workspace_name = options.workspace
    if options.resume is not None:
        loaded, writer = store.resume(options.resume)
        header = loaded.header
        if agent_of(header) != name:
            writer.close()
            raise ConfigError(
                f"session {loaded.id} was not a session of agent {name!r}; resume it without "
                "--agent, or with the agent it talked to"
            )
        notes = [r for r in loaded.records if isinstance(r, NoteRecord) and r.kind == SESSION_NOTE]
        resume_id = notes[-1].text if notes else None
        history, _ = messages_from_records(loaded.records)
        if workspace_name is None and header is not None and Path(header.workspace).is_dir():
            workspace_name = header.workspace
        created = False
    workspace = resolve_workspace(config, workspace_name)
    if options.resume is None:
        writer = store.create(
            profile=AGENT_PROFILE + name, protocol=PROTOCOL, model=name, workspace=str(workspace)
        )
        created = True
    policy = approval_policy(config, mode)
    limits = config.settings.checkpoint_limits()
    session = AcpSession(
        name,
        list(agent.command),
        dict(agent.env),
        workspace=workspace,
        approver=approver,
        policy=policy,
        writer=writer,
        protected=protected_dirs(),
        checkpointer=Checkpointer(workspace, limits=limits),
        resume=resume_id,
        sandbox=session_policy(config),
        secrets=tuple(secrets),
    )
    host = AcpHost(
        config=config,
        name=name,
        workspace=workspace,
        policy=policy,
        session=session,
        writer=writer,
        store=store,
        redactor=redactor,
        notices=notices,
        history=history,
        created=created,
    )
    try:
        notices += await session.start()
    except BaseException:
        await host.close()
        raise
    notices.append(Notice(f"agent {session.agent_title} ({name}) in {workspace}"))
    return host


__all__ = ["AGENT_PROFILE", "AcpError", "AcpHost", "agent_of", "open_acp_host"]
