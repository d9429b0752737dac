"""Run one hook: its argv (no shell) with one JSON object on stdin, in the command sandbox by
default, stopped at its timeout with its whole process group, and its answer read the way
Claude Code reads it.

- exit 0: go on; stdout may be a JSON answer (``decision``, ``continue``,
  ``hookSpecificOutput.permissionDecision`` / ``additionalContext``), else plain text that adds
  context for the model (UserPromptSubmit and SessionStart only);
- exit 2: block; stderr is the reason (told to the model);
- any other exit, a program that cannot start, a timeout: the hook failed; what it guarded goes
  on, and the person is shown why.

Everything a hook prints is untrusted: decoded leniently, cut to a cap, and every control or
hidden character made visible (``text/sanitize.py``) before it is shown, recorded or told to the
model. Nothing here blocks the event loop: the process is an asyncio subprocess.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..sandbox import confinement
from ..sandbox.detect import Capabilities
from ..sandbox.policy import SandboxPolicy
from ..text.sanitize import visible
from ..tools.environment import scrubbed_environment
from ..tools.process import stop_process_group
from ..tools.process_limits import ended as group_ended
from ..tools.process_limits import started as group_started
from .config import HookConfig, HookEvent, HookSource

# "ok": nothing to say; "block": exit 2 or {"decision": "block"}; "deny" / "ask" / "allow":
# hookSpecificOutput.permissionDecision; "timed out" and "failed" never block.
Verdict = Literal["ok", "block", "deny", "ask", "allow", "timed out", "failed"]
DEFAULT_OUTPUT_CAP = 16 * 1024  # bytes of a hook's stdout (and of its stderr) kept
EXIT_LINGER_S = 0.5  # how long a child the hook left behind may hold its output open
GRACE_S = 1.0  # SIGTERM to SIGKILL, when a hook is stopped
_READ_CHUNK = 65536
# Events whose plain stdout (exit 0) is added context for the model, as in Claude Code.
_CONTEXT_EVENTS = frozenset({HookEvent.USER_PROMPT_SUBMIT, HookEvent.SESSION_START})


@dataclass(frozen=True, slots=True)
class DeclaredHook:
    """A hook and where it came from: ``origin`` names the file, for /hooks and doctor."""

    config: HookConfig
    source: HookSource = "config"
    origin: str = "config.toml"

    @property
    def label(self) -> str:
        return self.config.label


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """How one hook ran. ``reason`` and ``context`` are already sanitized and capped."""

    hook: str
    event: HookEvent
    source: HookSource
    verdict: Verdict
    reason: str = ""
    context: str = ""  # for the model: added context, or PostToolUse's exit-2 stderr
    seconds: float = 0.0

    @property
    def blocks(self) -> bool:
        return self.verdict in ("block", "deny")

    def describe(self) -> str:
        """One line for the person: ``NAME: verdict (reason)``."""
        text = f"{self.hook}: {self.verdict}"
        return f"{text} ({first_line(self.reason)})" if self.reason else text


@dataclass(frozen=True)
class HookPlace:
    """Where and how hooks run: the session's workspace and command sandbox, the folders the
    sandbox denies, the secrets no hook's environment may hold."""

    workspace: Path
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    protected: tuple[Path, ...] = ()
    unprotected: tuple[Path, ...] = ()
    capabilities: Capabilities | None = None
    secret_values: tuple[str, ...] = field(default=(), repr=False)
    output_cap: int = DEFAULT_OUTPUT_CAP


def first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def clean(read: tuple[bytes, int]) -> str:
    """Untrusted bytes as safe text: lenient UTF-8, controls visible, the cut said."""
    kept, dropped = read
    text = kept.decode("utf-8", "replace")
    if dropped:
        text += f"\n[hook output cut: {dropped} more bytes]"
    return visible(text).strip()


async def run_hook(hook: DeclaredHook, payload: Mapping[str, Any], place: HookPlace) -> HookOutcome:
    """Run ``hook`` with ``payload`` on stdin and read its answer; never raises but
    ``CancelledError`` (its process group is ended first)."""
    config = hook.config
    started = time.monotonic()
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    policy = place.sandbox.unconfined() if config.unconfined else place.sandbox
    env = scrubbed_environment(secret_values=place.secret_values)
    workspace = str(place.workspace)
    env.update({"TUI_AGENT_PROJECT_DIR": workspace, "CLAUDE_PROJECT_DIR": workspace})
    cap = place.output_cap

    def outcome(verdict: Verdict, reason: str = "", context: str = "") -> HookOutcome:
        seconds = round(time.monotonic() - started, 3)
        return HookOutcome(
            config.label, config.event, hook.source, verdict, reason, context, seconds
        )

    readable = (*place.unprotected, *program_folders(config.command))
    try:
        with confinement(
            policy, place.workspace, place.protected, place.capabilities, readable
        ) as launch:
            ran = await _run(
                config, data, place.workspace, {**env, **launch.env}, launch.preexec, cap
            )
    except OSError as exc:  # the program could not start, or the sandbox could not be set up
        return outcome("failed", f"cannot start {config.command[0]!r}: {exc.strerror or exc}")
    if ran.timed_out:
        return outcome("timed out", f"stopped after {config.timeout:g} s")
    verdict, reason, context = interpret(
        config.event, ran.returncode, clean(ran.stdout), clean(ran.stderr)
    )
    return outcome(verdict, reason, context)


def expanded(argv: Sequence[str]) -> list[str]:
    """``argv`` with a leading ``~/`` of each part made the home folder (there is no shell)."""
    return [str(Path(p).expanduser()) if p == "~" or p.startswith("~/") else p for p in argv]


def program_folders(argv: Sequence[str]) -> tuple[Path, ...]:
    """The folders of the files a hook's argv names by absolute path (its script, say
    ``~/.config/tui-agent/hooks/guard.py``): readable in the sandbox, which otherwise hides the
    temporary folders and refuses the app's own config folder."""
    folders: list[Path] = []
    for part in expanded(argv):
        path = Path(part)
        if path.is_absolute() and path.is_file():
            folder = path.resolve().parent
            if folder not in folders:
                folders.append(folder)
    return tuple(folders)


def interpret(
    event: HookEvent, returncode: int | None, stdout: str, stderr: str
) -> tuple[Verdict, str, str]:
    """The verdict, its reason and the context for the model, from how the hook ended."""
    if returncode == 2:
        reason = stderr or "blocked (exit code 2)"
        return "block", reason, stderr if event == HookEvent.POST_TOOL_USE else ""
    if returncode != 0:
        how = (
            f"exit code {returncode}"
            if returncode is not None and returncode >= 0
            else (f"ended by signal {-(returncode or 0)}")
        )
        return "failed", f"{how}: {stderr}" if stderr else how, ""
    answer = _json_answer(stdout)
    if answer is None:
        return "ok", "", stdout if event in _CONTEXT_EVENTS else ""
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    context = _text(specific.get("additionalContext"))
    if answer.get("continue") is False:
        return "block", _text(answer.get("stopReason")) or "the hook said not to continue", context
    if answer.get("decision") == "block":
        return "block", _text(answer.get("reason")) or "blocked by the hook", context
    decision = specific.get("permissionDecision")
    if event == HookEvent.PRE_TOOL_USE and decision in ("deny", "ask", "allow"):
        reason = _text(specific.get("permissionDecisionReason"))
        verdict: Verdict = decision
        return verdict, reason, context
    if event == HookEvent.PRE_TOOL_USE and answer.get("decision") == "approve":  # older form
        return "allow", _text(answer.get("reason")), context
    return "ok", "", context


def _json_answer(stdout: str) -> dict[str, Any] | None:
    if not stdout.startswith("{"):
        return None
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str:
    # Already sanitized as part of stdout; JSON escapes (\u001b) come back as controls here.
    return visible(value).strip() if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class _Ran:
    returncode: int | None
    stdout: tuple[bytes, int]  # kept, dropped
    stderr: tuple[bytes, int]
    timed_out: bool


async def _run(
    config: HookConfig,
    data: bytes,
    cwd: Path,
    env: Mapping[str, str],
    preexec: Callable[[], None] | None,
    cap: int,
) -> _Ran:
    proc = await asyncio.create_subprocess_exec(
        *expanded(config.command),
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        preexec_fn=preexec,
    )
    group_started(proc.pid)  # killed with the app if it still runs then
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = asyncio.ensure_future(_read_capped(proc.stdout, cap))
    err = asyncio.ensure_future(_read_capped(proc.stderr, cap))
    feed = asyncio.ensure_future(_feed(proc.stdin, data))
    timed_out = False
    try:
        try:
            async with asyncio.timeout(config.timeout):
                await proc.wait()
        except TimeoutError:
            timed_out = True
        if not timed_out:
            await asyncio.wait({out, err}, timeout=EXIT_LINGER_S)
        await _stop(proc)  # the hook at its timeout; else whatever it left running
        await asyncio.wait({out, err}, timeout=EXIT_LINGER_S)
    except asyncio.CancelledError:
        # A second cancel must not cut the kill short: the group is gone before we go on.
        stopping = asyncio.ensure_future(_stop(proc))
        while not stopping.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(stopping)
        raise
    finally:
        for task in (out, err, feed):
            task.cancel()
    stdout = out.result() if out.done() and not out.cancelled() else (b"", 0)
    stderr = err.result() if err.done() and not err.cancelled() else (b"", 0)
    return _Ran(None if timed_out else proc.returncode, stdout, stderr, timed_out)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    try:
        await stop_process_group(proc.pid, GRACE_S)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), GRACE_S)
    finally:
        group_ended(proc.pid)


async def _feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
        stdin.close()


async def _read_capped(stream: asyncio.StreamReader, cap: int) -> tuple[bytes, int]:
    """The first ``cap`` bytes of ``stream`` and how many more it gave (read and dropped, so a
    hook blocked on a full pipe still finishes)."""
    kept = bytearray()
    dropped = 0
    while chunk := await stream.read(_READ_CHUNK):
        take = chunk[: max(0, cap - len(kept))]
        kept += take
        dropped += len(chunk) - len(take)
    return bytes(kept), dropped
