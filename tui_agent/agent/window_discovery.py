"""The model's window, asked of its server in the background once a session is open (the first
screen and the first turn never wait for it)."""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from ..config import ResolvedProfile
from .loop import Agent


def discover_window(
    agent: Agent, profile: ResolvedProfile, client: httpx.AsyncClient
) -> asyncio.Task[bool] | None:
    """A task that asks the server and adopts its answer (True when the window changed); None
    when the profile sets the window, or there is no server to ask."""
    if profile.context_window or profile.base_url is None or profile.is_demo:
        return None

    async def ask() -> bool:
        from ..context.discovery import Found, discover

        found: Found | None = None
        with contextlib.suppress(Exception):  # asking is a courtesy; never a failure
            found = await discover(
                client, profile.protocol, profile.base_url or "", profile.model, profile.api_key
            )
        if found is None:
            return False
        return agent.context.adopt_window(found.size, "server", found.where)

    return asyncio.ensure_future(ask())
