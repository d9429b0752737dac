"""The model's window and the models its server offers, asked of the server in the background
once a session is open (the first screen and the first turn never wait for it)."""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from ..config import ResolvedProfile
from .loop import Agent

# (protocol, base_url) -> the models that server offered, kept for the session's life
ModelCache = dict[tuple[str, str], tuple[str, ...]]


def discover_window(
    agent: Agent,
    profile: ResolvedProfile,
    client: httpx.AsyncClient,
    models: ModelCache | None = None,
) -> asyncio.Task[bool] | None:
    """A task that asks the server once: it adopts the window it reports (True when the window
    changed; never when the profile sets one) and keeps the models it offers in ``models``.
    None when there is no server to ask."""
    if profile.base_url is None or profile.is_demo:
        return None
    base_url = profile.base_url

    async def ask() -> bool:
        from ..context.discovery import ServerModels, discover_models

        found: ServerModels | None = None
        with contextlib.suppress(Exception):  # asking is a courtesy; never a failure
            found = await discover_models(
                client, profile.protocol, base_url, profile.model, profile.api_key
            )
        if found is None:
            return False
        if models is not None and found.models:
            models[(profile.protocol, base_url)] = found.models
        if found.window is None or profile.context_window:
            return False
        return agent.context.adopt_window(found.window.size, "server", found.window.where)

    return asyncio.ensure_future(ask())
