"""The built-in offline demo model: a deterministic "model" behind a real loopback server.

``brain.respond`` turns a Chat Completions request body into a ``Script`` (its rules are in
brain.py's docstring); ``wire.render`` cuts a script into real stream chunks; ``DemoServer``
serves them on 127.0.0.1 inside the caller's event loop, so the whole client path (httpx,
httpx-sse, decoder, assembler) is exercised. No Textual here: the app and ``tui-agent run``
both use it.
"""

from .brain import respond
from .script import Script
from .server import DemoServer, pace_from_env
from .texts import DEMO_NOTICE

__all__ = [
    "DEMO_NOTICE",
    "DemoServer",
    "Script",
    "pace_from_env",
    "respond",
]
