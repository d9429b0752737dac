"""FakeProvider: a real HTTP server on 127.0.0.1, in its own thread, answering from a script."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

from ..wire import BUILDERS, Op
from . import checks
from .http import BadRequest, Connection, Request
from .steps import ExpectToolResults, Plan, Reply, Status, error_body, normalize, plan

SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


class FakeProvider:
    """Speaks one of the five protocols; see the package docstring for the whole API."""

    def __init__(
        self,
        protocol: str,
        *,
        api_key: str | None = None,
        require_tools: bool = True,
        framing: str = "chunked",
        hold_timeout_s: float = 30.0,
        check_on_exit: bool = True,
    ) -> None:
        if protocol not in BUILDERS:
            raise ValueError(f"unknown protocol {protocol!r}")
        self.protocol = protocol
        self.api_key = api_key
        self.require_tools = require_tools
        self.framing = framing
        self.hold_timeout_s = hold_timeout_s
        self.check_on_exit = check_on_exit
        self.port = 0
        self.requests: list[Request] = []
        # Model information (GET /v1/models, llama.cpp's GET /props, Ollama's POST /api/show,
        # Gemini's GET /v1beta/models/M): path -> JSON answer, else 404. These questions are kept
        # apart in ``info_requests``: they never take a scripted step nor count in ``requests``.
        self.info: dict[str, Any] = {}
        # Requests the script does not answer (Claude Code's token counts and its small
        # non-streamed side requests): given each POST first, a (status, JSON) to answer it
        # with, or None to leave it to the script. Answered ones land in ``info_requests``.
        self.aside: Callable[[Request], tuple[int, Any] | None] | None = None
        self.info_requests: list[Request] = []
        self.failures: list[str] = []
        self.connections_open = 0
        self._steps: list[Plan] = []
        self._lock = threading.Lock()
        self._stalled = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._start_error: BaseException | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._connections: set[Connection] = set()
        self._releases: asyncio.Semaphore | None = None
        self._server: asyncio.AbstractServer | None = None

    # -- life cycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """What a client is configured with: ".../v1" for openai-*, the bare origin otherwise."""
        origin = f"http://127.0.0.1:{self.port}"
        return f"{origin}/v1" if self.protocol.startswith("openai") else origin

    def start(self) -> FakeProvider:
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="fake-provider", daemon=True)
        self._thread.start()
        if not self._ready.wait(5.0):
            raise RuntimeError("fake provider did not start within 5 s")
        if self._start_error is not None:
            raise RuntimeError("fake provider failed to start") from self._start_error
        return self

    def stop(self) -> None:
        """Close every connection and the listener; always returns within a few seconds."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(5.0)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(loop.stop)
        thread.join(5.0)

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if kind is None and self.check_on_exit:
            self.assert_ok()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._releases = asyncio.Semaphore(0)
            server = loop.run_until_complete(
                asyncio.start_server(self._serve, "127.0.0.1", 0, limit=1 << 20)
            )
            self.port = server.sockets[0].getsockname()[1]
        except BaseException as exc:
            self._start_error = exc
            self._ready.set()
            loop.close()
            return
        self._server = server
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)

    # -- script and results ------------------------------------------------------------------

    def script(self, *steps: Reply | Status | bytes | Sequence[Op]) -> FakeProvider:
        """Append steps; each answers the next request, in order. Rendered now, so errors
        in a step show up here, in the test."""
        plans = [plan(self.protocol, normalize(step)) for step in steps]
        with self._lock:
            self._steps += plans
        return self

    @property
    def steps_left(self) -> int:
        with self._lock:
            return len(self._steps)

    def take_failures(self) -> list[str]:
        """The recorded failures, and forget them (for tests that provoke failures)."""
        with self._lock:
            out, self.failures = self.failures, []
        return out

    def assert_ok(self) -> None:
        """Raise if any request broke a check or expectation."""
        if self.failures:
            raise AssertionError("fake provider: " + "; ".join(self.failures))

    def assert_all_consumed(self) -> None:
        """Raise, as assert_ok does, and also if scripted steps were never requested."""
        self.assert_ok()
        if self.steps_left:
            raise AssertionError(f"fake provider: {self.steps_left} scripted step(s) unused")

    def release(self) -> None:
        """Let one stream held by StallBeforeTerminal or Hold (now or later) send the rest."""
        self._stalled.clear()
        if self._loop is not None and self._releases is not None:
            with contextlib.suppress(RuntimeError):  # the server already stopped
                self._loop.call_soon_threadsafe(self._releases.release)

    def wait_stalled(self, timeout: float = 5.0) -> bool:
        """Block until a stream is parked before its terminal event; False on timeout."""
        return self._stalled.wait(timeout)

    async def wait_stalled_async(self, timeout: float = 5.0) -> bool:
        return await asyncio.to_thread(self._stalled.wait, timeout)

    def wait_connections(self, count: int = 0, timeout: float = 5.0) -> bool:
        """Wait until at most ``count`` connections are open; False on timeout."""
        deadline = time.monotonic() + timeout
        while self.connections_open > count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    # -- serving -----------------------------------------------------------------------------

    def _fail(self, request: Request | None, problem: str) -> None:
        where = f"request {len(self.requests)} {request.method} {request.path}" if request else ""
        with self._lock:
            self.failures.append(f"{where}: {problem}" if where else problem)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        connection = Connection(reader, writer)
        self._tasks.add(task)
        self._connections.add(connection)
        self.connections_open += 1
        try:
            while True:
                request = await connection.read_request()
                if request is None or not await self._answer(connection, request):
                    break
        except BadRequest as exc:
            self._fail(None, f"unreadable request: {exc}")
            with contextlib.suppress(ConnectionError):
                await connection.send_whole(400, {"connection": "close"}, error_body(str(exc), 400))
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception as exc:  # a bug here must fail the test, not vanish in a thread
            self._fail(None, f"fake provider error: {exc!r}")
        finally:
            connection.close()
            self._connections.discard(connection)
            self._tasks.discard(task)
            self.connections_open -= 1

    def _check(self, request: Request, step: Plan | None) -> tuple[int, list[str]]:
        """Status to answer with (200 if fine) and the problems found."""
        route = checks.route_problem(self.protocol, request)
        if route:
            return 404, [route]
        auth = checks.auth_problems(self.protocol, request, self.api_key)
        if auth:
            return 401, auth
        problems = checks.body_problems(self.protocol, request, self.require_tools)
        if problems:
            return 400, problems
        try:
            checks.tool_results(self.protocol, request.json)
            for expectation in step.expect if step else []:
                if isinstance(expectation, ExpectToolResults):
                    want = dict(expectation.results)
                    checks.expect_tool_results(self.protocol, request.json, want)
                else:
                    expectation(request.json)
        except AssertionError as exc:
            return 400, [str(exc) or "expectation failed"]
        except Exception as exc:
            return 400, [f"malformed request ({type(exc).__name__}: {exc})"]
        return 200, []

    async def _answer(self, connection: Connection, request: Request) -> bool:
        """Answer one request; False when the connection must close."""
        if request.method == "GET" or request.path == "/api/show":
            with self._lock:
                self.info_requests.append(request)
            answer = self.info.get(request.path)
            code, body = (200, answer) if answer is not None else (404, {"error": "not found"})
            headers = {"content-type": "application/json"}
            await connection.send_whole(code, headers, json.dumps(body).encode())
            return True
        answered = self.aside(request) if self.aside is not None else None
        if answered is not None:
            with self._lock:
                self.info_requests.append(request)
            code, body = answered
            headers = {"content-type": "application/json"}
            await connection.send_whole(code, headers, json.dumps(body).encode())
            return True
        with self._lock:
            self.requests.append(request)
            step = self._steps.pop(0) if self._steps else None
        code, problems = self._check(request, step)
        if not problems and step is None:
            code, problems = 500, ["fake provider: no scripted step left"]
        if problems:
            for problem in problems:
                self._fail(request, problem)
            message = "fake provider: " + "; ".join(problems)
            await connection.send_whole(
                code, {"content-type": "application/json"}, error_body(message, code)
            )
            return True
        assert step is not None
        return await self._stream(connection, step)

    async def _stream(self, connection: Connection, step: Plan) -> bool:
        if step.reset_before_head:
            connection.reset()
            return False
        if step.status is not None:
            status = step.status
            body = status.body
            if body is None:
                body = error_body(f"fake provider: status {status.code}", status.code)
            headers = {"content-type": "application/json", **status.headers, **step.headers}
            await connection.send_whole(status.code, headers, body)
            return True
        chunked = (step.framing or self.framing) == "chunked"
        framing = {"transfer-encoding": "chunked"} if chunked else {"connection": "close"}
        await connection.send_head(200, {**SSE_HEADERS, **framing, **step.headers})
        connection.watch()
        try:
            sent = 0
            for offset, action in step.cuts:
                await self._send(connection, step, step.body[sent:offset], chunked)
                sent = offset
                if action == "hold":
                    await connection.wait_gone(self.hold_timeout_s)
                    return False
                if action == "abort":
                    connection.reset()
                    return False
                if not await self._wait_release(connection):
                    return False
            await self._send(connection, step, step.body[sent:], chunked)
            if chunked:
                await connection.write(b"0\r\n\r\n")
            return chunked
        finally:
            await connection.unwatch()

    async def _send(self, connection: Connection, step: Plan, data: bytes, chunked: bool) -> None:
        size = step.drip.bytes_per_chunk if step.drip else 64 * 1024
        for i in range(0, len(data), size):
            if i and step.drip and await connection.wait_gone(step.drip.interval_s):
                raise ConnectionResetError("the client went away")
            piece = data[i : i + size]
            await connection.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)

    async def _wait_release(self, connection: Connection) -> bool:
        """Park until release() or the client leaves; True if released."""
        assert self._releases is not None
        self._stalled.set()
        acquire = asyncio.ensure_future(self._releases.acquire())
        gone = asyncio.ensure_future(connection.gone.wait())
        try:
            await asyncio.wait(
                [acquire, gone], timeout=self.hold_timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            self._stalled.clear()
            gone.cancel()
            if not acquire.done():
                acquire.cancel()
        return acquire.done() and not acquire.cancelled()
