"""The hooks as /hooks and ``doctor`` list them: moment, name, matcher, command, timeout,
sandbox, and where each was declared (and so whether its "allow" counts)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ..text.sanitize import visible_line
from .config import MATCHED_EVENTS, TOOL_EVENTS
from .runner import DeclaredHook


def hook_line(hook: DeclaredHook) -> str:
    """One line for one hook (every part made visible: it came from a file)."""
    config = hook.config
    parts = [f"{config.event} {config.label}"]
    if config.event in MATCHED_EVENTS:
        every = "every tool" if config.event in TOOL_EVENTS else "every agent"
        parts.append(f"matcher {config.matcher}" if config.matcher else every)
    parts.append(shlex.join(config.command))
    parts.append(f"timeout {config.timeout:g} s")
    parts.append("UNCONFINED" if config.unconfined else "sandboxed")
    trust = "yours" if hook.source == "config" else "workspace, trusted; cannot allow"
    parts.append(f"from {hook.origin} ({trust})")
    return visible_line(" · ".join(parts))


def hooks_report(declared: Sequence[DeclaredHook]) -> str:
    """Every hook, one line each; says so when there is none."""
    if not declared:
        return "no hooks: add [[hooks]] tables to config.toml (docs/configuration.md, Hooks)"
    lines = [f"{len(declared)} hook{'s' if len(declared) != 1 else ''}:"]
    lines += [f"  {hook_line(hook)}" for hook in declared]
    unconfined = sum(hook.config.unconfined for hook in declared)
    if unconfined:
        lines.append(f"  {unconfined} run outside the command sandbox (unconfined = true)")
    return "\n".join(lines)
