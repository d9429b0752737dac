"""Tell the person they are needed: an approval is waiting, or the agent is done.

Only while the terminal window is not focused (terminal focus reporting: Textual turns it on
and keeps ``app.app_focus``; a terminal that never reports focus is always focused, and
nothing is sent). ``[settings] notify``: ``"desktop"`` (the default) rings the bell and sends a
desktop notification, ``"bell"`` only rings, ``"off"`` sends nothing.

The desktop notification is OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty, Ghostty...), or
OSC 777 ``notify`` where that is the terminal's form (VTE terminals such as GNOME Terminal,
foot, urxvt). Inside tmux ($TMUX set) it is wrapped in tmux's DCS passthrough (every ESC
doubled), which tmux passes on with ``set -g allow-passthrough on``; the bell goes as it is.

The text is ours, never the model's: a fixed phrase and at most a tool's name, reduced to
printable ASCII without ``;`` and capped, so it can neither end the sequence nor carry an
argument value.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from ..agent.call_hooks import run_hooks
from ..hooks import HookEvent
from .sanitize import visible_line

if TYPE_CHECKING:
    from ..wiring.host import SessionHost

NotifySetting = Literal["off", "bell", "desktop"]
BEL = "\x07"
ESC = "\x1b"
TITLE = "tui-agent"
MAX_TEXT = 80
_UNSAFE = re.compile(r"[^\x20-\x7e]|;")


def clean(text: str) -> str:
    """``text`` as printable ASCII without ``;`` (escapes made visible first), capped."""
    text = _UNSAFE.sub("?", visible_line(text))
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def desktop_form(environ: Mapping[str, str]) -> Literal["9", "777"]:
    """Which notification escape the terminal understands, from its environment."""
    term = environ.get("TERM", "")
    if environ.get("VTE_VERSION") or term.startswith(("foot", "rxvt")):
        return "777"
    return "9"


def desktop_sequence(text: str, environ: Mapping[str, str]) -> str:
    """The desktop notification escape for ``text`` (cleaned), wrapped for tmux if inside it."""
    body = clean(text)
    if desktop_form(environ) == "777":
        sequence = f"{ESC}]777;notify;{TITLE};{body}{BEL}"
    else:
        sequence = f"{ESC}]9;{TITLE}: {body}{BEL}"
    if environ.get("TMUX"):
        sequence = f"{ESC}Ptmux;{sequence.replace(ESC, ESC + ESC)}{ESC}\\"
    return sequence


def attention_bytes(
    text: str, setting: NotifySetting, environ: Mapping[str, str] | None = None
) -> str:
    """What is written to the terminal for ``text`` under ``setting`` ("" for nothing)."""
    if setting == "off":
        return ""
    if setting == "bell":
        return BEL
    return BEL + desktop_sequence(text, os.environ if environ is None else environ)


class Attended(Protocol):
    """What the person is told through: a Textual app (the live one has a ``host``)."""

    @property
    def app_focus(self) -> bool: ...

    @property
    def is_headless(self) -> bool: ...


def notify_person(app: Attended, text: str) -> None:
    """Ring and/or notify (per the settings) if the terminal is not focused."""
    driver = getattr(app, "_driver", None)  # Textual's, to write to the terminal
    if app.app_focus or app.is_headless or driver is None:
        return
    host = getattr(app, "host", None)
    if host is not None:
        notification_hooks(host, text)
    setting: NotifySetting = host.config.settings.notify if host is not None else "desktop"
    data = attention_bytes(text, setting)
    if data:
        driver.write(data)


_hooks_running: set[asyncio.Task[object]] = set()


def notification_hooks(host: SessionHost, text: str) -> None:
    """The person's Notification hooks (their own notifier: whatever ``notify`` says), run in
    the background: the screen never waits for them. Their verdicts are recorded; nobody is
    looking at the screen to be shown them."""
    calls = host.agent.calls
    hooks = calls.hooks
    if not hooks or not hooks.matching(HookEvent.NOTIFICATION):
        return
    fields = {"message": text, "notification_type": "needed"}
    running = run_hooks(
        hooks, calls.context, calls.recorder, lambda _: None, HookEvent.NOTIFICATION, fields
    )
    task: asyncio.Task[object] = asyncio.ensure_future(running)
    _hooks_running.add(task)
    task.add_done_callback(_hooks_running.discard)
