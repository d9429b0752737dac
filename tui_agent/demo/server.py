"""DemoServer: the offline demo model behind a real HTTP/1.1 server on 127.0.0.1.

It runs in the caller's event loop (the app's, or ``asyncio.run`` of ``tui-agent run``), on a
free port of the loopback interface only, and speaks Chat Completions streaming: POST
``/v1/chat/completions`` answers with ``text/event-stream`` chunks from the brain's script;
anything else gets a 404 (or 405, 400) JSON error. No key is needed; Authorization is ignored.

    async with DemoServer() as server:
        profile = dataclasses.replace(profile, base_url=server.base_url)
        ...  # talk to it like any openai-chat provider

Pacing: a response waits FIRST_DELAY_S before its first chunk, TEXT_DELAY_S before each text
piece and ARGS_DELAY_S before each argument fragment, all multiplied by ``pace`` (default: the
environment variable TUI_AGENT_DEMO_PACE, else 1; 0 sends everything at once, for tests).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from types import TracebackType

from .brain import respond
from .http import (
    LAST_CHUNK,
    MAX_HEAD,
    BadRequest,
    Request,
    chunk,
    error_payload,
    head,
    json_response,
    read_request,
)
from .wire import Frame, FrameKind, render

HOST = "127.0.0.1"  # never anything else: the demo is for this machine only
ROUTE = "/v1/chat/completions"
PACE_ENV = "TUI_AGENT_DEMO_PACE"
FIRST_DELAY_S = 0.25
TEXT_DELAY_S = 0.015
ARGS_DELAY_S = 0.04
SSE_HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "transfer-encoding": "chunked",
}


def pace_from_env(environ: Mapping[str, str] = os.environ) -> float:
    """TUI_AGENT_DEMO_PACE as a non-negative multiplier; 1 when unset or not a number."""
    try:
        pace = float(environ.get(PACE_ENV, "1"))
    except ValueError:
        return 1.0
    return pace if pace >= 0 and pace == pace else 1.0  # NaN and negatives: the default


class DemoServer:
    """The demo model on ``base_url`` ("http://127.0.0.1:PORT/v1") while started."""

    def __init__(self, *, pace: float | None = None) -> None:
        self.pace = pace_from_env() if pace is None else max(0.0, pace)
        self.port = 0
        self.responses = 0  # streamed responses so far; numbers the chunk ids
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the demo server is not running")
        return f"http://{HOST}:{self.port}/v1"

    async def start(self) -> DemoServer:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, HOST, 0, limit=MAX_HEAD)
            self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Stop listening and end every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        await server.wait_closed()

    async def __aenter__(self) -> DemoServer:
        return await self.start()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            while True:
                try:
                    request = await read_request(reader)
                except BadRequest as exc:
                    payload = error_payload(str(exc), "invalid_request_error")
                    writer.write(json_response(400, payload, close=True))
                    await writer.drain()
                    break
                if request is None or not await self._answer(request, reader, writer):
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client left, or the server is stopping: either way this connection ends
        finally:
            writer.close()
            if task is not None:
                self._tasks.discard(task)

    async def _answer(
        self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; False when the connection must close afterwards."""
        if request.path.rstrip("/") != ROUTE:
            message = f"no route {request.method} {request.path}: the demo model answers {ROUTE}"
            return await self._error(writer, request, 404, message, "not_found")
        if request.method != "POST":
            message = f"{request.method} is not allowed on {ROUTE}; use POST"
            return await self._error(writer, request, 405, message, "method_not_allowed")
        try:
            body = json.loads(request.body)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return await self._error(writer, request, 400, "the body is not a JSON object", None)
        self.responses += 1
        try:
            script = respond(body)
            frames = render(script, self.responses, prompt_tokens=len(request.body) // 4)
        except Exception as exc:  # a bug in the demo must reach the user as an answer
            message = f"the demo model failed: {type(exc).__name__}: {exc}"
            return await self._error(writer, request, 500, message, None)
        writer.write(head(200, SSE_HEADERS))
        await self._pause(FIRST_DELAY_S)
        for frame in frames:
            await self._pause(_delay(frame))
            if reader.at_eof():
                return False  # the client went away (cancelled): stop talking to nobody
            writer.write(chunk(frame.encode()))
            await writer.drain()
        if script.cut:
            return False  # close without the last chunk: the client sees a dropped stream
        writer.write(LAST_CHUNK)
        await writer.drain()
        return request.keep_alive

    async def _error(
        self,
        writer: asyncio.StreamWriter,
        request: Request,
        status: int,
        message: str,
        code: str | None,
    ) -> bool:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        writer.write(json_response(status, error_payload(message, kind, code)))
        await writer.drain()
        return request.keep_alive

    async def _pause(self, seconds: float) -> None:
        if seconds and self.pace:
            await asyncio.sleep(seconds * self.pace)


_DELAYS: dict[FrameKind, float] = {"meta": 0.0, "text": TEXT_DELAY_S, "args": ARGS_DELAY_S}


def _delay(frame: Frame) -> float:
    return _DELAYS[frame.kind]


__all__ = ["HOST", "PACE_ENV", "DemoServer", "pace_from_env"]
