"""The command-line arguments of `tui-agent models` (argparse only: cheap to build)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_models_command(
    commands: Any, add_profile_flags: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add ``models`` to the root parser's subparsers."""
    models = commands.add_parser(
        "models",
        help="list the models of a profile: the configured ones and those its server offers",
        description="Ask the profile's server which models it offers (the OpenAI-style "
        "/models list, Anthropic's and Gemini's model lists, Ollama's /api/tags) and print "
        "them after the model in use and the configured ones of the same protocol: the list "
        "/model shows in the app. Exit status: 0 done (also when the server listed nothing), "
        "1 a usage or configuration error.",
    )
    add_profile_flags(models)
    models.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: profile, protocol, model, server_listed (true/false), "
        "models [{id, source (current, profile, server), what}]",
    )
