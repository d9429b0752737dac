"""``tui-agent doctor``: which protections the command sandbox gives on this machine, and why
one is missing."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .exit_status import EXIT_OK, EXIT_UNPROTECTED, EXIT_USAGE

# The command line's parser adds this command on every launch, the app's included: what the
# report needs (the config model and pydantic, the sandbox probes) is imported when it runs.

HELP = "say which protections the command sandbox has on this machine (and why one is missing)"


def add_doctor_command(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor",
        help=HELP,
        description=HELP + ". Exit status: 0 every protection the configured mode needs is "
        "active, 2 one is missing, 1 the configuration cannot be read.",
    )
    doctor.add_argument(
        "--profile", metavar="NAME", default=None, help="a profile's network switch"
    )


def report_text(profile: str | None = None) -> tuple[str, bool]:
    """The report and whether every protection is active (for the palette too)."""
    from ..config import load_config
    from ..hooks import DeclaredHook, hooks_report
    from ..sandbox.detect import detect
    from ..sandbox.protections import missing, report
    from ..wiring.sandbox_choice import session_policy

    config = load_config()
    policy = session_policy(config, profile)
    caps = detect()
    text = report(policy, caps)
    if config.hooks:  # the person's own; a workspace's are listed by /hooks once trusted
        declared = [DeclaredHook(hook, "config", "config.toml") for hook in config.hooks]
        text += "\n\nHooks (config.toml):\n" + hooks_report(declared)
    return text, not missing(policy, caps)


def main(args: argparse.Namespace) -> int:
    from ..config import ConfigError

    try:
        text, complete = report_text(getattr(args, "profile", None))
    except ConfigError as exc:
        print(f"tui-agent doctor: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(text)
    return EXIT_OK if complete else EXIT_UNPROTECTED
