"""Who may use a served app: the token, the Host header and the websocket's Origin.

Pure functions and one small class, no web framework: ``server`` asks them about every request.

- The token is fresh for every start (``secrets.token_urlsafe(32)``: 256 bits) and is the first
  segment of every path; it is compared in constant time (``hmac.compare_digest``).
- The Host header must name this machine the way the person typed it: the host served, a
  loopback name, or an IP address literal, and the port it listens on (80 when none is written).
  A page on some other name that was made to resolve to this machine (DNS rebinding) sends its
  own name as Host and is refused before the token is even looked at. The header is parsed
  whole and strictly (a name of letters, digits, dots and dashes, or an IP literal, then at
  most a port of digits): anything else is refused, and what the page echoes (its websocket's
  address) is rebuilt from the parsed parts, never copied from the header.
- A websocket must come from a page of the same origin (its Origin header names the same host
  and port as its Host header): a page elsewhere cannot drive the app even with the token.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_PORT = re.compile(r"[0-9]{1,5}")
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def new_token() -> str:
    """A fresh random token: 32 bytes (256 bits) from the OS, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as given to --host) only listens on this machine."""
    name = host.strip("[]").lower()
    if name in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def parse_host(value: str, default_port: int = 80) -> tuple[str, int] | None:
    """A Host header (or an Origin's netloc) as its name, lower case, and port; None unless it
    is exactly a DNS name, an IPv4 address or a bracketed IPv6 address, then at most ``:port``."""
    value = value.lower()
    if not value or len(value) > 260 or not value.isascii():
        return None
    if value.startswith("["):  # [::1]:8000
        end = value.find("]")
        name, rest = value[1:end], value[end + 1 :]
        if end < 0 or "%" in name:
            return None
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return None
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
        if not _NAME.fullmatch(name):
            return None
    if not rest:
        return name, default_port
    if not rest.startswith(":") or not _PORT.fullmatch(rest[1:]):
        return None
    number = int(rest[1:])
    return (name, number) if 0 < number < 65536 else None


def netloc(name: str, port: int) -> str:
    """``name:port`` for a URL, an IPv6 address in brackets."""
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


@dataclass(frozen=True)
class Guard:
    """The checks for one served app: its token and the names it may be reached by."""

    token: str
    names: frozenset[str] = field(default_factory=frozenset)
    port: int | None = None  # the port listened on, once bound (None: not checked)

    @classmethod
    def for_host(cls, host: str, token: str, *extra_names: str, port: int | None = None) -> Guard:
        names = {host.strip("[]").lower()}
        names.update(name.lower() for name in extra_names if name)
        return cls(token=token, names=frozenset(names | LOOPBACK_NAMES), port=port)

    def on_port(self, port: int) -> Guard:
        """This guard for the port the server was bound to."""
        return Guard(token=self.token, names=self.names, port=port)

    def token_ok(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is the token (constant time in the candidate's content)."""
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self.token.encode("utf-8"))

    def host_ok(self, host_header: str | None) -> bool:
        """Whether a request's Host header names this server (not a rebound name) and its port."""
        return self.checked_host(host_header) is not None

    def checked_host(self, host_header: str | None) -> tuple[str, int] | None:
        """The name and port of a Host header that names this server, or None."""
        parsed = parse_host(host_header or "")
        if parsed is None:
            return None
        name, port = parsed
        if name not in self.names and not _is_ip_literal(name):
            return None
        if self.port is not None and port != self.port:
            return None
        return parsed

    def origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a websocket's Origin is the page's own origin (same host and port as Host)."""
        host = self.checked_host(host_header)
        if not origin or host is None:
            return False
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path not in ("", "/"):
            return False
        if parts.query or parts.fragment or "@" in parts.netloc:
            return False
        return parse_host(parts.netloc, _DEFAULT_PORTS[parts.scheme]) == host

    def token_of_path(self, raw_path: str) -> str:
        """The first segment of a request path: where the token is."""
        return raw_path.lstrip("/").split("/", 1)[0]

    def shown_path(self, raw_path: str) -> str:
        """A request path fit for a log line: the token (or a wrong guess at it) replaced."""
        path = raw_path.split("?", 1)[0]
        first, _, rest = path.lstrip("/").partition("/")
        if not first and not rest:
            return "/"
        label = "<token>" if self.token_ok(first) else "<no token>"
        return f"/{label}/{rest}" if rest or path.endswith("/") else f"/{label}"
