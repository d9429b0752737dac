"""Who may use a served app: the token, the Host header and the websocket's Origin.

Pure functions and one small class, no web framework: ``server`` asks them about every request.

- The token is fresh for every start (``secrets.token_urlsafe(32)``: 256 bits) and is the first
  segment of every path; it is compared in constant time (``hmac.compare_digest``).
- The Host header must name this machine the way the person typed it: the host served, a
  loopback name, or an IP address literal. A page on some other name that was made to resolve to
  this machine (DNS rebinding) sends its own name as Host and is refused before the token is
  even looked at.
- A websocket must come from a page of the same origin (its Origin header names the same host
  and port as its Host header): a page elsewhere cannot drive the app even with the token.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})


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


def host_name(host_header: str) -> str:
    """The name in a Host header (or an Origin's netloc), without the port, lower case."""
    value = host_header.strip().lower()
    if value.startswith("["):  # [::1]:8000
        end = value.find("]")
        return value[1:end] if end > 0 else ""
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


@dataclass(frozen=True)
class Guard:
    """The checks for one served app: its token and the names it may be reached by."""

    token: str
    names: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def for_host(cls, host: str, token: str, *extra_names: str) -> Guard:
        names = {host.strip("[]").lower()}
        names.update(name.lower() for name in extra_names if name)
        return cls(token=token, names=frozenset(names | LOOPBACK_NAMES))

    def token_ok(self, candidate: str | None) -> bool:
        """Whether ``candidate`` is the token (constant time in the candidate's content)."""
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8"), self.token.encode("utf-8"))

    def host_ok(self, host_header: str | None) -> bool:
        """Whether a request's Host header names this server (not a rebound name)."""
        if not host_header:
            return False
        name = host_name(host_header)
        return bool(name) and (name in self.names or _is_ip_literal(name))

    def origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a websocket's Origin is the page's own origin (same host and port as Host)."""
        if not origin or not host_header or not self.host_ok(host_header):
            return False
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path not in ("", "/"):
            return False
        return parts.netloc.lower() == host_header.strip().lower()

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
