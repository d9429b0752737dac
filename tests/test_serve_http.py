"""`tui-agent serve` over HTTP, without a browser: who is refused, and no app outlives it.

The real command as a subprocess (isolated HOME and XDG folders, port 0). Without the token, with
a wrong one, with another name in the Host header (DNS rebinding), a websocket from another
origin or with no Origin: 403, before anything is started. The log file has each request line
with the token replaced, and the token nowhere.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import httpx
import pytest

from .serve_helpers import Served, files_holding


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with Served(tmp_path_factory.mktemp("serve-http"), "serve") as server:
        yield server


def _get(url: str, **headers: str) -> httpx.Response:
    return httpx.get(url, headers=headers, timeout=10, follow_redirects=False)


def test_the_page_needs_the_token(served: Served) -> None:
    page = _get(served.url)
    assert page.status_code == 200
    assert f"/{served.token}/ws" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "googleapis" not in page.text  # the page loads nothing from elsewhere
    wrong = served.token[:-1] + ("A" if served.token[-1] != "A" else "B")
    for url in (
        served.origin + "/",
        served.origin + "/index.html",
        f"{served.origin}/{wrong}/",
        f"{served.origin}/{served.token[:20]}/",
        f"{served.origin}/{served.token}x/",
        f"{served.origin}/?token={served.token}",
        f"{served.origin}/static/js/textual.js",
        f"{served.origin}/download/anything",
        f"{served.origin}/{wrong}/static/js/textual.js",
    ):
        refused = _get(url)
        assert refused.status_code == 403, url
        assert served.token not in refused.text
    assert _get(served.url + "static/js/textual.js").status_code == 200
    assert _get(served.url + "download/anything").status_code == 404
    assert _get(served.url.rstrip("/")).status_code == 302


def test_a_rebound_name_is_refused_even_with_the_token(served: Served) -> None:
    port = served.origin.rsplit(":", 1)[1]
    assert _get(served.url, Host=f"attacker.example:{port}").status_code == 403
    assert _get(served.url, Host=f"localhost:{port}").status_code == 200


# Hosts that name this machine but hold more than a name and a port; each was let through
# (its name looked fine) and echoed into the page's websocket address.
JUNK_HOSTS = (
    "localhost:{port}/@attacker.example",
    "localhost:{port}.attacker.example",
    "localhost:{port}#x",
    "localhost:{port} x",
    'localhost:{port}"><script>x</script>',
    "localhost:{port}?x",
    "localhost:",
    "local_host:{port}",
    "[::1%25eth0]:{port}",
    "127.0.0.1:{port}0",
)


def test_the_host_s_port_must_be_the_one_served(served: Served) -> None:
    port = int(served.origin.rsplit(":", 1)[1])
    for host in (f"localhost:{port + 1}", f"127.0.0.1:{port - 1}", "localhost", "127.0.0.1:80"):
        refused = _get(served.url, Host=host)
        assert refused.status_code == 403, host
        assert served.token not in refused.text


def test_a_host_with_more_than_a_name_and_port_is_refused_and_never_echoed(
    served: Served,
) -> None:
    port = served.origin.rsplit(":", 1)[1]
    for pattern in JUNK_HOSTS:
        host = pattern.format(port=port)
        refused = _get(served.url, Host=host)
        assert refused.status_code == 403, host
        assert host not in refused.text and served.token not in refused.text


def test_the_page_s_websocket_address_is_rebuilt_from_the_checked_host(served: Served) -> None:
    port = served.origin.rsplit(":", 1)[1]
    for host, shown in (
        (f"LOCALHOST:{port}", f"ws://localhost:{port}/"),
        (f"127.0.0.1:{port}", f"ws://127.0.0.1:{port}/"),
        (f"localhost.:{port}", f"ws://localhost.:{port}/"),
    ):
        page = _get(served.url, Host=host)
        assert page.status_code == 200, host
        assert f'"{shown}{served.token}/ws"' in page.text.replace("&quot;", '"'), host


async def _websocket_status(url: str, **headers: str) -> int:
    timeout = aiohttp.ClientWSTimeout(10)
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers, timeout=timeout):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def test_the_websocket_needs_the_token_and_the_page_s_origin(served: Served) -> None:
    ws = served.origin.replace("http", "ws", 1)
    port = served.origin.rsplit(":", 1)[1]
    assert await _websocket_status(f"{ws}/ws", Origin=served.origin) == 403
    assert await _websocket_status(f"{ws}/nottoken/ws", Origin=served.origin) == 403
    good = f"{ws}/{served.token}/ws"
    assert await _websocket_status(good, Origin="http://attacker.example") == 403
    assert await _websocket_status(good, Origin=f"http://localhost:{port}") == 403
    assert await _websocket_status(good) == 403  # no Origin at all: not a page of ours
    rebound = {"Host": f"attacker.example:{port}", "Origin": f"http://attacker.example:{port}"}
    assert await _websocket_status(good, **rebound) == 403
    other = int(port) + 1  # Host and Origin agree, on a port this server is not on
    moved = {"Host": f"localhost:{other}", "Origin": f"http://localhost:{other}"}
    assert await _websocket_status(good, **moved) == 403
    assert served.children() == []  # nothing was started for any of them


def test_the_log_has_request_lines_without_the_token(served: Served) -> None:
    _get(served.origin + "/")
    _get(served.url)
    logs = list((served.root / "state").rglob("*.log"))
    assert logs, "no log file"
    text = "".join(path.read_text() for path in logs)
    assert "GET /<token>/ 200" in text
    assert "GET / 403" in text
    assert files_holding(served.root, served.token) == []


def test_stopping_the_server_leaves_nothing(tmp_path: Path) -> None:
    server = Served(tmp_path, "serve")
    assert server.stop() == []
    assert server.process.returncode == 0


def _running(pid: int) -> bool:
    """Whether ``pid`` is alive (a zombie nobody reaped does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_an_app_quits_when_its_server_is_killed(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    server = Served(tmp_path, "serve", "--workspace", str(tmp_path / "ws"))
    try:
        url = f"{server.origin.replace('http', 'ws', 1)}/{server.token}/ws"
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(url, headers={"Origin": server.origin}),
        ):
            deadline = time.monotonic() + 20
            while not (apps := server.children()):
                assert time.monotonic() < deadline, "no app started"
                await asyncio.sleep(0.1)
            os.kill(server.process.pid, signal.SIGKILL)  # no chance to stop anything
            server.process.wait()
            deadline = time.monotonic() + 20
            while any(_running(pid) for pid in apps):  # its stdin ended: it quits by itself
                assert time.monotonic() < deadline, "the app outlived its server"
                await asyncio.sleep(0.1)
    finally:
        server.stop()


async def test_one_tab_more_than_max_tabs_is_told_to_close_one(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    server = Served(tmp_path, "serve", "--max-tabs", "1", "--workspace", str(tmp_path / "ws"))
    try:
        page = f"{server.origin}/{server.token}/"
        url = f"{page.replace('http', 'ws', 1)}ws"
        headers = {"Origin": server.origin}
        assert _get(page).status_code == 200
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url, headers=headers):
                deadline = time.monotonic() + 20
                while not server.children():
                    assert time.monotonic() < deadline, "no app started"
                    await asyncio.sleep(0.1)
                refused = _get(page)
                assert refused.status_code == 429
                assert "Close one of those tabs" in refused.text and "--max-tabs" in refused.text
                with pytest.raises(aiohttp.WSServerHandshakeError) as second:
                    await session.ws_connect(url, headers=headers)
                assert second.value.status == 429
                assert len(server.children()) == 1  # no second app was started
            deadline = time.monotonic() + 20  # the tab closed: its app ends, a new tab fits
            while _get(page).status_code != 200:
                assert time.monotonic() < deadline, "the closed tab's app still counts"
                await asyncio.sleep(0.1)
    finally:
        server.stop()
