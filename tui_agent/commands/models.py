"""``tui-agent models``: the models of a profile, as ``/model`` lists them in the app."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from .exit_status import EXIT_OK, EXIT_USAGE


def main(args: argparse.Namespace) -> int:
    from ..config import ConfigError, load_config, resolve_profile

    try:
        config = load_config()
        profile = resolve_profile(
            config,
            profile=args.profile,
            protocol=args.protocol,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
        )
    except ConfigError as exc:
        print(f"tui-agent models: {exc}", file=sys.stderr)
        return EXIT_USAGE
    offered: tuple[str, ...] = ()
    if profile.base_url is not None and not profile.is_demo:
        asked = _ask(profile.protocol, profile.base_url, profile.model, profile.api_key)
        offered = asyncio.run(asked)
    from ..context.discovery import model_choices

    configured = {name: (p.protocol, p.model) for name, p in config.profiles.items()}
    choices = model_choices(profile.model, profile.protocol, configured, offered)
    if args.json:
        rows = [{"id": model, "source": _source(what), "what": what} for model, what in choices]
        report = {
            "profile": profile.name,
            "protocol": profile.protocol,
            "model": profile.model,
            "server_listed": bool(offered),
            "models": rows,
        }
        print(json.dumps(report, ensure_ascii=False))
        return EXIT_OK
    width = max(len(model) for model, _ in choices)
    for model, what in choices:
        print(f"{model:<{width}}  {what}")
    if not offered and not profile.is_demo:
        print(f"(the server at {profile.base_url} listed no models)", file=sys.stderr)
    return EXIT_OK


def _source(what: str) -> str:
    if what.startswith("in use"):
        return "current"
    return "server" if what == "offered by the server" else "profile"


async def _ask(protocol: str, base_url: str, model: str, api_key: str | None) -> tuple[str, ...]:
    import httpx

    from ..context.discovery import discover_models

    async with httpx.AsyncClient() as client:
        found = await discover_models(client, protocol, base_url, model, api_key)
    return found.models
