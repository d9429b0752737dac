"""web_fetch against a loopback HTTP server (this machine has no other network): URL checks,
HTML as Markdown, redirects (same host followed, another host not), size and binary limits,
no cookie or key sent, and the session's network switch."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import SandboxPolicy
from tui_agent.tools import ToolContext, builtin_registry
from tui_agent.tools.builtin import web_fetch as web_fetch_module
from tui_agent.tools.web_page import html_to_markdown

from .tools_helpers import call, invalid, make_context

REGISTRY = builtin_registry()
KEY = "sk-test-provider-key-0123456789"

PAGE = b"""<!doctype html><html><head><title>The Page</title><style>p{}</style>
<script>steal()</script></head><body><h1>Welcome</h1><p>Read <a href="/docs">the docs</a>
and <b>this</b>.</p><!-- hidden comment --><ul><li>one</li><li>two</li></ul>
<noscript>enable js</noscript><p>key: sk-test-provider-key-0123456789</p></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []  # noqa: RUF012 - the server's record of requests
    other = ""  # the base URL of the second server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        type(self).seen.append({"path": self.path, **dict(self.headers.items())})
        if self.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/latin1":
            body = '<html><head><meta charset="iso-8859-1"></head><body>café</body></html>'
            self._send(200, body.encode("latin-1"), "text/html")
        elif self.path == "/hop":
            self._send(302, b"", "text/plain", Location="/page", Set_Cookie="session=abc")
        elif self.path == "/away":
            self._send(301, b"", "text/plain", Location=f"{type(self).other}/page")
        elif self.path == "/loop":
            self._send(302, b"", "text/plain", Location="/loop")
        elif self.path == "/big":
            self._send(200, b"x" * (web_fetch_module.MAX_BYTES + 10), "text/plain")
        elif self.path == "/bomb":
            body = gzip.compress(b"y" * (web_fetch_module.MAX_BYTES * 3))
            self._send(200, body, "text/plain", Content_Encoding="gzip")
        elif self.path == "/png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + b"\0" * 50, "image/png")
        elif self.path == "/json":
            self._send(200, b'{"a": 1}\n', "application/json")
        else:
            self._send(404, b"no such page\n", "text/plain")


def _serve() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def site() -> Iterator[str]:
    first, base = _serve()
    second, other = _serve()
    Handler.seen = []
    Handler.other = other.replace("127.0.0.1", "localhost")
    try:
        yield base
    finally:
        first.shutdown()
        second.shutdown()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    online = replace(SandboxPolicy(), network=True)
    return make_context(tmp_path, sandbox=online, secret_values=(KEY,))


async def fetch(ctx: ToolContext, url: str) -> tuple[str, bool]:
    output = await call(REGISTRY, ctx, "web_fetch", json.dumps({"url": url}))
    return output.text, output.is_error


async def test_html_becomes_markdown_without_scripts_and_the_key(
    ctx: ToolContext, site: str
) -> None:
    text, failed = await fetch(ctx, f"{site}/page")
    assert not failed
    assert text.startswith("[HTTP 200 OK, text/html; charset=utf-8, ")
    assert "as Markdown]" in text.splitlines()[0]
    assert "Title: The Page" in text and "# Welcome" in text
    assert "[the docs](/docs)" in text and "**this**" in text and "- one\n- two" in text
    for hidden in ("steal()", "p{}", "hidden comment", "enable js", KEY):
        assert hidden not in text
    [request] = Handler.seen
    assert request["User-Agent"] == web_fetch_module.USER_AGENT
    assert "Authorization" not in request and "Cookie" not in request


async def test_same_host_redirects_are_followed_without_cookies(
    ctx: ToolContext, site: str
) -> None:
    text, failed = await fetch(ctx, f"{site}/hop")
    assert not failed and "# Welcome" in text
    assert f"after redirects: {site}/page" in text
    assert [r["path"] for r in Handler.seen] == ["/hop", "/page"]
    assert "Cookie" not in Handler.seen[1]


async def test_another_host_is_not_followed(ctx: ToolContext, site: str) -> None:
    text, failed = await fetch(ctx, f"{site}/away")
    assert failed
    assert f"to another host or scheme: {Handler.other}/page" in text
    assert "call web_fetch with that URL" in text
    assert [r["path"] for r in Handler.seen] == ["/away"]


async def test_limits_redirect_loops_and_bodies(ctx: ToolContext, site: str) -> None:
    text, failed = await fetch(ctx, f"{site}/loop")
    assert failed and "TooManyRedirects" in text
    text, _ = await fetch(ctx, f"{site}/big")
    assert "only its start was read" in text and "[cut at 100,000" in text
    text, _ = await fetch(ctx, f"{site}/bomb")
    assert "only its start was read" in text
    text, _ = await fetch(ctx, f"{site}/png")
    assert "(a binary body is not shown)" in text and "image/png" in text
    text, failed = await fetch(ctx, f"{site}/json")
    assert not failed and text.endswith('{"a": 1}')
    text, failed = await fetch(ctx, f"{site}/missing")
    assert failed and text.startswith("[HTTP 404 Not Found") and "no such page" in text


async def test_the_page_charset_is_read(ctx: ToolContext, site: str) -> None:
    text, _ = await fetch(ctx, f"{site}/latin1")
    assert "café" in text


async def test_the_network_switch_is_honoured(tmp_path: Path, site: str) -> None:
    offline = make_context(tmp_path)
    text, failed = await fetch(offline, f"{site}/page")
    assert failed and "/network on" in text
    assert Handler.seen == []


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", "http:// or https://"),
        ("ftp://host/x", "http:// or https://"),
        ("http://user:pw@host/", "user name or password"),
        ("http://host/a b", "blanks or control"),
        ("http:///nohost", "no host"),
        ("http://host/\x1b[2J", "blanks or control"),
    ],
)
def test_bad_urls_are_refused_before_approval(url: str, why: str) -> None:
    assert why in invalid(REGISTRY, "web_fetch", json.dumps({"url": url}))


def test_markdown_conversion_squeezes_blank_lines() -> None:
    text = html_to_markdown("<p>a</p><br><br><br><p>b</p><div></div><div></div><p>c</p>")
    assert "\n\n\n" not in text
    assert text.split() == ["a", "b", "c"]


def test_always_allow_keeps_the_host_not_every_url(tmp_path: Path) -> None:
    from tui_agent.approval.rules import AllowFetchHost, RuleError, rule_for_call
    from tui_agent.config import remember_rule
    from tui_agent.config.load import parse_config

    rule = rule_for_call("web_fetch", {"url": "https://Docs.Example:8443/a?b=1"})
    assert rule == AllowFetchHost("docs.example")
    assert rule.describe() == "always allow web_fetch from the host docs.example"
    assert rule.matches("web_fetch", {"url": "http://docs.example/other"})
    assert not rule.matches("web_fetch", {"url": "https://docs.example.evil.example/"})
    assert not rule.matches("web_fetch", {"url": "https://evil.example/?docs.example"})
    assert not rule.matches("read_file", {"url": "https://docs.example/"})
    with pytest.raises(RuleError):
        AllowFetchHost("Docs.Example")
    config = tmp_path / "config.toml"
    config.write_text('[approval]\nmode = "ask"\n', encoding="utf-8")
    remember_rule(config, rule)
    text = config.read_text(encoding="utf-8")
    assert 'allowed_fetch_hosts = [\n    "docs.example",\n]' in text
    assert AllowFetchHost("docs.example") in parse_config(text, config).approval.rules()
