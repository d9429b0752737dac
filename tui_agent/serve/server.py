"""The web server of ``tui-agent serve``: textual-serve's app bridge behind our own guard.

textual-serve runs the app as a child process per browser connection (Textual's web driver:
the screen goes out and the keys come in as framed packets on the child's stdout and stdin) and
its page is xterm.js over a websocket. From it we take that bridge (``AppService``) and its
static files (textual.js, xterm.css). The aiohttp application, the page and the websocket
handler are ours, because every request must first pass the guard:

- the Host header names this server and its port (DNS rebinding), then the token is the first
  path segment (``/TOKEN/``, ``/TOKEN/ws``, ``/TOKEN/static/...``); anything else is 403 before
  routing; the page's websocket address is rebuilt from the checked Host, never copied;
- the websocket's Origin is the page's own origin;
- file downloads (textual-serve's ``/download``) are not served: the app delivers none.

The child is started with an argv list (no shell) and never learns the token. Request lines are
logged with the token replaced (``Guard.shown_path``), and the token is a log secret too.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import html
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.abc import AbstractAccessLogger
from textual_serve.app_service import AppService

from .guard import Guard, netloc

log = logging.getLogger("tui_agent.serve")

STOP_TIMEOUT_S = 10.0
CHILD_DRIVER = "tui_agent.ui.serve_driver:ChildWebDriver"  # a name, not an import: it is UI
_FORBIDDEN = "403: Forbidden. This server needs the URL that `tui-agent serve` printed.\n"
_TOO_MANY = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>$title</title></head>'
    '<body style="font-family: monospace; padding: 2em"><p>This server already runs $count '
    "apps, one for each open tab (at most $count: <code>--max-tabs</code>). Close one of those "
    "tabs, then reload this one.</p></body></html>"
)
_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'unsafe-inline'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
}


def textual_serve_static() -> Path:
    """The folder of textual-serve's static files (textual.js with xterm.js, xterm.css)."""
    import textual_serve

    return Path(textual_serve.__file__).resolve().parent / "static"


@dataclass(frozen=True)
class ServeConfig:
    """What to serve: the app's argv, where, and its guard."""

    argv: list[str]
    host: str
    port: int
    guard: Guard
    title: str = "tui-agent"
    max_tabs: int = 8  # apps (browser tabs) at once; one more is refused with a page saying so


class _ChildService(AppService):
    """textual-serve's bridge, starting the child from an argv list (no shell), on a web driver
    that quits the app when the server is gone (``ui.serve_driver``)."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        super().__init__(argv[0], **kwargs)
        self.argv = argv

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        environment["TEXTUAL_DRIVER"] = CHILD_DRIVER  # quits when the server is gone
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the app to quit; if it has not ended in time, terminate it (then kill it)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(super().stop(), STOP_TIMEOUT_S)
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()  # the app's SIGTERM handler ends its tools first
        try:
            await asyncio.wait_for(process.wait(), 3.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


class RequestLog(AbstractAccessLogger):
    """One line per request, the token replaced (never the query string)."""

    guard: Guard | None = None

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        guard = type(self).guard
        path = guard.shown_path(request.raw_path) if guard else "?"
        self.logger.info(
            "%s %s %s %s (%.0f ms)",
            request.remote,
            request.method,
            path,
            response.status,
            time * 1e3,
        )


class WebApp:
    """The aiohttp application of one ``serve``: guard, page, static files and websockets."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.services: set[_ChildService] = set()
        self._page = Template(files(__package__).joinpath("page.html").read_text("utf-8"))

    def make_app(self) -> web.Application:
        token = self.config.guard.token
        app = web.Application(middlewares=[self._guard])
        app.add_routes(
            [
                web.get(f"/{token}", self._to_page),
                web.get(f"/{token}/", self._index),
                web.get(f"/{token}/ws", self._websocket),
                web.static(f"/{token}/static", textual_serve_static(), show_index=False),
            ]
        )
        app.on_response_prepare.append(_add_headers)
        return app

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        guard = self.config.guard
        if not guard.host_ok(request.headers.get("Host")):
            log.warning("refused %s: Host header not this server", guard.shown_path(request.path))
            return _forbidden()
        if not guard.token_ok(guard.token_of_path(request.raw_path)):
            log.warning(
                "refused %s from %s: no token", guard.shown_path(request.path), request.remote
            )
            return _forbidden()
        return await handler(request)

    async def _to_page(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self.config.guard.token}/")

    def _full(self) -> web.Response | None:
        """The page that says no more tabs fit, when that is so."""
        if len(self.services) < self.config.max_tabs:
            return None
        log.warning("refused a tab: %d apps already run (--max-tabs)", len(self.services))
        text = Template(_TOO_MANY).substitute(
            title=html.escape(self.config.title), count=self.config.max_tabs
        )
        return web.Response(status=429, text=text, content_type="text/html")

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if (full := self._full()) is not None:
            return full
        font_size = _int(request.query.get("fontsize"), 16, 6, 64)
        scheme = "wss" if request.secure else "ws"
        # Rebuilt from the checked name and port, never the header as it came.
        host = self.config.guard.checked_host(request.headers.get("Host"))
        if host is None:
            return _forbidden()
        address = f"{scheme}://{netloc(*host)}/{self.config.guard.token}/ws"
        values = {
            "title": html.escape(self.config.title),
            "websocket_url": html.escape(address),
            "font_size": str(font_size),
        }
        return web.Response(text=self._page.substitute(values), content_type="text/html")

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        guard = self.config.guard
        if not guard.origin_ok(request.headers.get("Origin"), request.headers.get("Host")):
            log.warning("refused a websocket from another origin")
            return _forbidden()
        if (full := self._full()) is not None:
            return full  # (a page loaded while another tab opened; it shows as ended)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=1 << 20)
        width = _int(request.query.get("width"), 80, 10, 1000)
        height = _int(request.query.get("height"), 24, 5, 1000)
        await websocket.prepare(request)
        service = _ChildService(
            self.config.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=_NoDownloads(),
        )  # no debug=True: it would make Textual write textual.log into the workspace
        self.services.add(service)
        try:
            await service.start(width, height)
            await _pump(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        finally:
            self.services.discard(service)
            await service.stop()
        return websocket

    async def stop_all(self) -> None:
        """Ask every app to quit (each ends its tools), and wait for them."""
        await asyncio.gather(*(service.stop() for service in list(self.services)))


class _NoDownloads:
    """The app delivers no files; textual-serve's bridge only asks to cancel them."""

    async def cancel_app_downloads(self, app_service_id: str) -> None:
        return None


async def _pump(websocket: web.WebSocketResponse, service: AppService) -> None:
    """The browser's messages to the app: keys and mouse, size, focus; pings answered."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
            kind, data = (envelope[0], envelope[1] if len(envelope) > 1 else None)
        except (ValueError, TypeError, IndexError, KeyError):
            continue
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width = _int(str(data.get("width")), 80, 10, 1000)
            height = _int(str(data.get("height")), 24, 5, 1000)
            await service.set_terminal_size(width, height)
        elif kind == "ping":
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


def _int(text: str | None, default: int, low: int, high: int) -> int:
    try:
        value = int(text) if text is not None else default
    except ValueError:
        return default
    return max(low, min(high, value))


def _forbidden() -> web.Response:
    return web.Response(status=403, text=_FORBIDDEN)


async def _add_headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)


async def run_server(config: ServeConfig, ready: Callable[[str, int], None]) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP; ``ready(host, port)`` once listening."""
    import signal

    web_app = WebApp(config)
    RequestLog.guard = config.guard
    runner = web.AppRunner(
        web_app.make_app(),
        handle_signals=False,
        access_log_class=RequestLog,
        access_log=log,
        shutdown_timeout=STOP_TIMEOUT_S,
    )
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        site = web.TCPSite(runner, config.host, config.port)
        await site.start()
        port = config.port
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            port = sockets[0].getsockname()[1]
        # No await since start: no request was read before the guard knows its port.
        web_app.config = dataclasses.replace(config, guard=config.guard.on_port(port))
        RequestLog.guard = web_app.config.guard
        ready(config.host, port)
        await stop.wait()
        await web_app.stop_all()
    finally:
        await runner.cleanup()
