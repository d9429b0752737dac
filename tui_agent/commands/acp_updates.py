"""What `tui-agent acp` tells its client: the agent's events as ACP session updates.

Text and reasoning stream as message and thought chunks, each through a StreamRedactor of its
own (as `run` prints them). A call is a ``tool_call`` the moment it is announced (its name only:
arguments are never shown while they stream), then ``tool_call_update``s: the validated
arguments (``rawInput``, title, locations) once the complete turn's call was validated, running,
and its one result (completed or failed, with the output and, for a file written or edited, a
diff). A call of a truncated turn is failed, never run. ``replayed``: a loaded session's
conversation, as updates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UserMessageChunk,
)

from ..agent.events import (
    AgentEvent,
    CallDecided,
    LoopEnded,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from ..conversation import AssistantMessage, Message, ToolResultMessage, UserMessage
from ..session import Redactor
from ..session.stream_redaction import StreamRedactor, redact_value
from ..stream.events import ReasoningDelta, TextDelta
from ..stream.progress import ToolCallAnnounced
from ..tools.spec import ToolSpec
from ..tools.validation import ValidatedCall

Update = AgentMessageChunk | AgentThoughtChunk | UserMessageChunk | ToolCallStart | ToolCallProgress
ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

# The built-in tools' kinds; any other tool's follows from its risk.
_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "load_skill": "read",
    "search_text": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "run_command": "execute",
}
_RISK_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "write": "edit",
    "execute": "execute",
    "network": "fetch",
}
# What a title shows of a call besides its name: the first of these its arguments have.
_TITLE_ARGUMENTS = ("command", "path", "pattern", "name")
MAX_TITLE = 120
MAX_DIFF_BYTES = 256 * 1024  # a bigger file's edit is shown as its output only


@dataclass(frozen=True)
class CallView:
    """How the client is shown one validated call (every string already redacted)."""

    title: str
    kind: ToolKind
    raw_input: dict[str, Any]
    locations: tuple[ToolCallLocation, ...]
    diff: FileEditToolCallContent | None = None  # what a successful write or edit changes

    def update(self, call_id: str) -> ToolCallProgress:
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call_id,
            title=self.title,
            kind=self.kind,
            raw_input=self.raw_input,
            locations=list(self.locations) or None,
        )


class CallViews:
    """The session's validated calls, as the client is shown them (the CallRunner's
    ``on_validated``: told each valid call before it is decided, so before anything runs)."""

    def __init__(
        self, workspace: Path, spec_of: Callable[[str], ToolSpec | None], redactor: Redactor
    ) -> None:
        self.workspace = workspace
        self.spec_of = spec_of
        self.redactor = redactor
        self.views: dict[str, CallView] = {}
        self._told: set[str] = set()  # calls whose view the client has been sent

    def told(self, call_id: str, prefix: str = "") -> ToolCallProgress | None:
        """The update that shows the call as validated, the first time it is asked for;
        ``prefix`` says whose call it is (a subagent's)."""
        view = self.views.get(call_id)
        if view is None or call_id in self._told:
            return None
        self._told.add(call_id)
        update = view.update(self.redactor.redact(call_id))
        update.title = self.redactor.redact(prefix) + (update.title or "")
        return update

    def finished(self, call_id: str) -> CallView | None:
        self._told.discard(call_id)
        return self.views.pop(call_id, None)

    def kind(self, name: str) -> ToolKind:
        if name in _KINDS:
            return _KINDS[name]
        spec = self.spec_of(name)
        return _RISK_KINDS.get(str(spec.risk), "other") if spec is not None else "other"

    def validated(self, call: ValidatedCall) -> None:
        arguments = call.arguments
        name = call.spec.name
        self.views[call.call.id] = CallView(
            title=self.redactor.redact(title(name, arguments)),
            kind=self.kind(name),
            raw_input=redact_value(arguments, self.redactor),
            locations=self._locations(arguments),
            diff=self._diff(name, arguments),
        )

    def _absolute(self, path: str) -> str:
        return self.redactor.redact(os.path.normpath(self.workspace / path))

    def _locations(self, arguments: Mapping[str, Any]) -> tuple[ToolCallLocation, ...]:
        path = arguments.get("path")
        if not isinstance(path, str) or not path or "\0" in path:
            return ()
        return (ToolCallLocation(path=self._absolute(path)),)

    def _diff(self, name: str, arguments: Mapping[str, Any]) -> FileEditToolCallContent | None:
        """The change a write or an edit makes, read now (before it runs); None when it cannot
        be told cheaply (a big or unreadable file, an edit whose text is not found once)."""
        path = arguments.get("path")
        if name not in ("write_file", "edit_file") or not isinstance(path, str) or not path:
            return None
        try:
            before = self._read(path)
        except ValueError:
            return None
        if name == "write_file":
            content = arguments.get("content")
            return self._diff_content(path, before, content) if isinstance(content, str) else None
        old, new = arguments.get("old"), arguments.get("new")
        if not isinstance(before, str) or not isinstance(old, str) or not isinstance(new, str):
            return None
        if not old or before.count(old) != 1:
            return None
        return self._diff_content(path, before, before.replace(old, new, 1))

    def _diff_content(self, path: str, before: str | None, after: str) -> FileEditToolCallContent:
        redact = self.redactor.redact
        old = redact(before) if before is not None else None
        return tool_diff_content(self._absolute(path), redact(after), old)

    def _read(self, path: str) -> str | None:
        """The file's text; None when there is none yet; ValueError when it is not for showing
        (too big, not UTF-8 text, unreadable)."""
        if "\0" in path:
            raise ValueError(path)
        target = self.workspace / path
        try:
            if target.stat().st_size > MAX_DIFF_BYTES:
                raise ValueError(path)
            return target.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(path) from exc


def title(name: str, arguments: Mapping[str, Any]) -> str:
    """``name: what it works on`` (its command, path, pattern), on one line and short."""
    for key in _TITLE_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            shown = " ".join(value.split())
            text = f"{name}: {shown}"
            return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1] + "…"
    return name


# The events that end a stream of deltas (as `run` has them): a key is never assumed to end at
# any other event.
_STREAM_ENDS = (TurnStarted, TurnCompleted, TurnTruncated, LoopEnded)


class TurnUpdates:
    """One prompt's events as session updates, in order."""

    def __init__(self, views: CallViews, subagent: str = "") -> None:
        self.views = views
        self.prefix = f"{subagent}: " if subagent else ""  # whose calls these are
        self._text = StreamRedactor(views.redactor)
        self._reasoning = StreamRedactor(views.redactor)
        self._started: dict[int, str] = {}  # position in the turn -> the call id shown
        self._open: set[str] = set()  # calls shown whose result is not told yet
        self._subagents: dict[str, TurnUpdates] = {}  # task call id -> its subagent's

    def of(self, event: AgentEvent) -> list[Update]:
        if isinstance(event, SubagentEvent):
            # A subagent's calls are shown as calls of their own, titled with its name; its
            # text is its own (the task's result carries its answer), so it is not streamed.
            inner = self._subagents.get(event.call_id)
            if inner is None:
                inner = self._subagents[event.call_id] = TurnUpdates(self.views, event.agent)
            return inner.of(event.event)
        if isinstance(event, TextDelta):
            return [] if self.prefix else _message(self._text.push(event.text))
        if isinstance(event, ReasoningDelta):
            return [] if self.prefix else _thought(self._reasoning.push(event.text))
        updates = self.flush() if isinstance(event, _STREAM_ENDS) else []
        if isinstance(event, TurnStarted):
            self._started.clear()
        elif isinstance(event, ToolCallAnnounced):
            updates += self._announced(event)
        elif isinstance(event, TurnCompleted):
            updates += self._completed(event)
        elif isinstance(event, TurnTruncated):
            why = f"not run: {event.message}"
            updates += [self._failed(call_id, why) for call_id in sorted(self._open)]
        elif isinstance(event, CallDecided):
            told = self.views.told(event.call_id, self.prefix)
            updates += [told] if told is not None else []
        elif isinstance(event, ToolStarted):
            updates.append(_status(self._id(event.call_id), "in_progress"))
        elif isinstance(event, ToolFinished):
            updates += self._finished(event)
        return updates

    def flush(self) -> list[Update]:
        return [*_thought(self._reasoning.flush()), *_message(self._text.flush())]

    def _announced(self, event: ToolCallAnnounced) -> list[Update]:
        if not event.call_id or self._started.get(event.position) == event.call_id:
            return []
        self._started[event.position] = event.call_id
        return [self._start(event.call_id, event.name)]

    def _start(self, call_id: str, name: str) -> ToolCallStart:
        self._open.add(call_id)
        return ToolCallStart(
            session_update="tool_call",
            tool_call_id=self._id(call_id),
            title=self.views.redactor.redact(self.prefix + name),
            kind=self.views.kind(name),
            status="pending",
        )

    def _completed(self, event: TurnCompleted) -> list[Update]:
        calls = {call.id: call for call in event.turn.tool_calls}
        updates: list[Update] = []
        for call_id in sorted(self._open - set(calls)):  # announced, but not in the turn
            updates.append(self._failed(call_id, "not part of the model's complete answer"))
        for call in event.turn.tool_calls:
            if call.id not in self._open:
                updates.append(self._start(call.id, call.name))
        return updates

    def _finished(self, event: ToolFinished) -> list[Update]:
        self._open.discard(event.call_id)
        view = self.views.finished(event.call_id)
        output = self.views.redactor.redact(event.output)
        content: list[ToolContent] = []
        if event.status == "done" and view is not None and view.diff is not None:
            content.append(view.diff)
        content.append(tool_content(text_block(output)))
        done = ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=self._id(event.call_id),
            status="completed" if event.status == "done" else "failed",
            content=content,
            raw_output={"status": event.status, "is_error": event.is_error},
        )
        return [done]

    def _id(self, call_id: str) -> str:
        return self.views.redactor.redact(call_id)

    def _failed(self, call_id: str, why: str) -> ToolCallProgress:
        self._open.discard(call_id)
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=self._id(call_id),
            status="failed",
            content=[tool_content(text_block(why))],
        )


def _message(text: str) -> list[Update]:
    return [update_agent_message_text(text)] if text else []


def _thought(text: str) -> list[Update]:
    return [update_agent_thought_text(text)] if text else []


def _status(call_id: str, status: Any) -> ToolCallProgress:
    return ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id, status=status)


def replayed(history: list[Message], views: CallViews) -> list[Update]:
    """session/load: the conversation so far, as the client shows it: the messages, and each
    call with its result (its arguments as the model sent them are not shown)."""
    redact = views.redactor.redact
    updates: list[Update] = []
    for message in history:
        if isinstance(message, UserMessage):
            updates.append(update_user_message_text(redact(message.text)))
        elif isinstance(message, AssistantMessage):
            updates += _thought(redact(message.reasoning)) + _message(redact(message.text))
            updates += [
                start_tool_call(redact(call.id), redact(call.name), kind=views.kind(call.name))
                for call in message.tool_calls
            ]
        elif isinstance(message, ToolResultMessage):
            updates.append(
                update_tool_call(
                    redact(message.call_id),
                    status="failed" if message.is_error else "completed",
                    content=[tool_content(text_block(redact(message.output)))],
                )
            )
    return updates
