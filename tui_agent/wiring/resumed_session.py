"""A resumed session: what it goes on with (its own workspace, profile and model, unless the
command line names others), what its records bring back (the conversation, the tokens and cost
spent, its compactions and subagents) and what it says first. ``host.py`` opens it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.events import Notice
from ..agent.history import messages_from_records
from ..config import Config, ResolvedProfile
from ..config.model import DEMO_PROFILE
from ..config.resolve import AD_HOC_PROFILE
from ..context.resume import ResumedContext, resumed_context
from ..context.summary import detached
from ..conversation import Message
from ..providers import tokens_used
from ..session import LoadedSession, SessionStore, SessionWriter
from ..session.errors import SessionError
from ..session.paths import demo_workspace_dir, sessions_dir
from ..session.records import (
    AssistantRecord,
    CompactionRecord,
    NoteRecord,
    SubagentRecord,
    UserRecord,
)
from ..session.summary import read_header
from .host_options import HostOptions

_PROVIDER_FLAGS = ("profile", "protocol", "model", "base_url", "api_key_env")


@dataclass
class Resumed:
    """What a session's records bring back (nothing, for a new session)."""

    history: list[Message] = field(default_factory=list)
    tokens: int = 0  # spent by its complete turns
    turns: list[AssistantRecord] = field(default_factory=list)  # complete ones: their cost counts
    context: ResumedContext = field(default_factory=ResumedContext)
    compactions: list[CompactionRecord] = field(default_factory=list)
    # Compactions answered but not applied: billed all the same (their notes keep the usage).
    failed_compactions: list[NoteRecord] = field(default_factory=list)
    subagents: list[SubagentRecord] = field(default_factory=list)

    def kept(self) -> list[Message]:
        """What the agent holds of the conversation: after a compaction, what follows its
        summary (the summary goes on as the context's)."""
        if not self.context.summary:
            return self.history
        return detached(self.history[self.context.replaced :])


def resumed_records(
    loaded: LoadedSession,
    writer: SessionWriter,
    workspace: Path,
    profile: ResolvedProfile,
    notices: list[Notice],
) -> Resumed:
    """What ``loaded`` brings back; the repairs its conversation needed are written with
    ``writer``, and what it says first added to ``notices``."""
    history, repairs = messages_from_records(loaded.records)
    turns = [r for r in loaded.records if isinstance(r, AssistantRecord)]
    resumed = Resumed(
        history=history,
        tokens=sum(tokens_used(r.protocol, r.usage) for r in turns),
        turns=turns,
        context=resumed_context(loaded.records, history),
        compactions=[r for r in loaded.records if isinstance(r, CompactionRecord)],
        failed_compactions=[
            r for r in loaded.records if isinstance(r, NoteRecord) and r.kind == "compaction_failed"
        ],
        subagents=[r for r in loaded.records if isinstance(r, SubagentRecord)],
    )
    for record in repairs:
        writer.append(record, sync=True)
    notices += [Notice(f"session file: {p}", "warning") for p in loaded.problems]
    notices += resume_notices(loaded)
    notices.append(Notice(f"continuing in {workspace} with {_model_line(profile)}"))
    return resumed


def _model_line(profile: ResolvedProfile) -> str:
    if profile.is_demo:
        return "the offline demo model"
    shown = "" if profile.name == AD_HOC_PROFILE else f" (profile {profile.name})"
    return f"{profile.model}{shown}"


def as_recorded(config: Config, options: HostOptions, notices: list[Notice]) -> HostOptions:
    """A resumed session goes on in its own workspace, with its own profile and model, unless
    the command line names others (a provider flag names a profile of its own, so all of the
    recorded ones give way to any of them)."""
    if options.resume is None:
        return options
    try:
        path = SessionStore(sessions_dir()).resolve(options.resume)
    except SessionError:
        return options  # opening it says why, as before
    header = read_header(path)
    if header is None:
        return options
    changes: dict[str, Any] = {}
    if header.profile and all(getattr(options, flag) is None for flag in _PROVIDER_FLAGS):
        if header.profile == AD_HOC_PROFILE:
            changes.update(
                protocol=header.protocol or None,
                model=header.model or None,
                base_url=header.base_url,
                api_key_env=header.api_key_env,
            )
        elif header.profile == DEMO_PROFILE:
            changes["profile"] = DEMO_PROFILE
        elif header.profile in config.profiles:
            changes["profile"] = header.profile
            if header.model and header.model != config.profiles[header.profile].model:
                changes["model"] = header.model
        else:
            notices.append(
                Notice(
                    f"the session's profile {header.profile!r} is no longer in config.toml: "
                    "it continues with the default profile",
                    "warning",
                )
            )
    recorded = header.workspace
    if options.workspace is None and recorded:
        demo_folder = str(demo_workspace_dir().resolve())
        if Path(recorded).is_dir():
            if recorded != demo_folder:  # the demo's own folder is found as the demo finds it
                changes["workspace"] = recorded
        else:
            notices.append(
                Notice(f"the session's workspace {recorded} is gone: it continues here", "warning")
            )
    return dataclasses.replace(options, **changes) if changes else options


def resume_notices(loaded: LoadedSession) -> list[Notice]:
    """What a resumed session says first: which one it is, and where a fork came from."""
    messages = sum(isinstance(r, UserRecord | AssistantRecord) for r in loaded.records)
    shown = [Notice(f"resumed session {loaded.id}: {loaded.title} ({messages} messages)")]
    shown += [
        Notice(record.text)
        for record in loaded.records
        if isinstance(record, NoteRecord) and record.kind == "fork"
    ]
    return shown
