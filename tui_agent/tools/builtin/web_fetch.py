"""web_fetch: one web page, fetched by the app itself (never by the sandbox), as readable text.

- http and https only; a URL with a user name or password in it, or with a control character
  or a blank, is refused when the call is validated (it is never shown for approval).
- A network tool: it asks as a command does, and runs only while the session's network is on
  (/network on: the same switch that lets confined commands reach the network).
- Nothing of the person's goes with the request: a fresh client per call, no cookie kept even
  between redirects, no proxy, .netrc or other setting from the environment, no provider key;
  only a User-Agent and an Accept header.
- A redirect is followed (at most ``MAX_REDIRECTS``) only to the same scheme, host and port (or
  from http to https on the same host). One to anywhere else is not followed: the model is told
  where it leads, and fetching that is a new call, asked again.
- At most ``MAX_BYTES`` of the (decompressed) body are read, within ``TIMEOUT_S`` in all;
  HTML becomes Markdown (``web_page.py``), other text is kept, a binary body is not shown.
"""

from __future__ import annotations

import asyncio
import codecs
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...session.redaction import Redactor
from ...text.sanitize import visible
from ..command_result import decode_output
from ..spec import Risk, ToolContext, ToolOutput, ToolSpec
from ..web_page import html_to_markdown, is_html, is_text

if TYPE_CHECKING:  # httpx is imported on the first fetch: the app's first screen needs none of it
    import httpx

MAX_BYTES = 2_000_000
MAX_CHARS = 100_000  # of the text given to the model
TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 10.0
MAX_REDIRECTS = 5
USER_AGENT = "tui-agent web_fetch"
ACCEPT = "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.8, */*;q=0.5"
_UNSAFE = re.compile(r"[\x00-\x20\x7f-\x9f]")
_CHARSET = re.compile(r"charset=[\"']?([\w.:-]+)", re.IGNORECASE)
NETWORK_OFF = (
    "web_fetch was not run: this session's network is off. The person can turn it on with "
    "/network on (it also lets confined commands reach the network)."
)


def checked_url(text: str) -> httpx.URL:
    """The URL ``text`` names, or ValueError saying why it is not fetched."""
    import httpx

    if _UNSAFE.search(text):
        raise ValueError("must not contain blanks or control characters")
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, ValueError) as exc:
        raise ValueError(f"is not a valid URL: {exc}") from None
    if url.scheme not in ("http", "https"):
        raise ValueError("must start with http:// or https://")
    if not url.host:
        raise ValueError("has no host")
    if url.userinfo:
        raise ValueError("must not carry a user name or password")
    return url


class WebFetchArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=4096,
        description="The http:// or https:// URL of the page to read.",
    )

    @field_validator("url")
    @classmethod
    def _valid(cls, url: str) -> str:
        checked_url(url)
        return url


@dataclass(frozen=True)
class Fetched:
    url: httpx.URL  # where the body came from (after same-host redirects)
    status: int
    reason: str
    content_type: str
    body: bytes
    cut: bool  # more than MAX_BYTES came
    elsewhere: httpx.URL | None = None  # a redirect to another host, not followed


def same_origin(current: httpx.URL, target: httpx.URL) -> bool:
    """A redirect that is followed: the same host and port and scheme, or http to https."""
    if target.host.lower() != current.host.lower():
        return False
    if target.scheme == current.scheme:
        return target.port == current.port
    return current.scheme == "http" and target.scheme == "https" and target.port in (None, 443)


async def fetch(url: httpx.URL, *, max_bytes: int = MAX_BYTES) -> Fetched:
    """GET ``url`` as this module says; raises httpx.HTTPError or TimeoutError."""
    import httpx

    timeout = httpx.Timeout(TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    async with httpx.AsyncClient(trust_env=False, timeout=timeout) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            client.cookies.clear()  # none is ever sent: not even one set by a redirect
            request = httpx.Request("GET", current, headers=headers)
            response = await client.send(request, stream=True, follow_redirects=False)
            try:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    target = current.join(location)
                    if target.scheme not in ("http", "https") or not same_origin(current, target):
                        return Fetched(current, response.status_code, "", "", b"", False, target)
                    current = target
                    continue
                body, cut = await _read(response, max_bytes)
                kind = response.headers.get("content-type", "")
                status, reason = response.status_code, response.reason_phrase
                return Fetched(current, status, reason, kind, body, cut)
            finally:
                await response.aclose()
    raise httpx.TooManyRedirects(f"more than {MAX_REDIRECTS} redirects", request=request)


async def _read(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    kept = bytearray()
    async for chunk in response.aiter_bytes():
        kept += chunk
        if len(kept) > max_bytes:
            return bytes(kept[:max_bytes]), True
    return bytes(kept), False


async def web_fetch(args: WebFetchArgs, ctx: ToolContext) -> ToolOutput:
    import httpx

    if not ctx.sandbox.network:
        return ToolOutput(NETWORK_OFF, is_error=True)
    url = checked_url(args.url)
    try:
        async with asyncio.timeout(TIMEOUT_S):
            fetched = await fetch(url)
    except TimeoutError:
        return ToolOutput(f"{url} did not answer within {TIMEOUT_S:g} s", is_error=True)
    except httpx.HTTPError as exc:
        return ToolOutput(f"fetching {url} failed: {type(exc).__name__}: {exc}", is_error=True)
    if fetched.elsewhere is not None:
        return ToolOutput(
            f"{url} redirects (HTTP {fetched.status}) to another host or scheme: "
            f"{fetched.elsewhere}\nIt was not followed; call web_fetch with that URL to read "
            "it (it is asked again).",
            is_error=True,
        )
    text, how = await asyncio.to_thread(_as_text, fetched)
    shown = visible(Redactor(ctx.secret_values).redact(text))
    notes = []
    if fetched.cut:
        notes.append(f"[the page is larger than {MAX_BYTES:,} bytes: only its start was read]")
    if len(shown) > MAX_CHARS:
        notes.append(f"[cut at {MAX_CHARS:,} of {len(shown):,} characters]")
        shown = shown[:MAX_CHARS]
    where = f" (after redirects: {fetched.url})" if fetched.url != url else ""
    head = (
        f"[HTTP {fetched.status} {fetched.reason}{where}, "
        f"{fetched.content_type or 'no content type'}, {len(fetched.body):,} bytes, {how}]"
    )
    failed = fetched.status >= 400
    return ToolOutput("\n".join([head, shown.rstrip("\n"), *notes]), is_error=failed)


def _as_text(fetched: Fetched) -> tuple[str, str]:
    """The body as text and how it was made (a thread: a large page takes a while to parse)."""
    if is_html(fetched.content_type, fetched.body):
        # Without a charset in the header the parser reads the page's own <meta charset>.
        page = _decoded(fetched) if _charset(fetched) else fetched.body
        return html_to_markdown(page), "as Markdown"
    if not is_text(fetched.content_type):
        return "(a binary body is not shown)", "not shown"
    return _decoded(fetched), "as text"


def _charset(fetched: Fetched) -> str | None:
    match = _CHARSET.search(fetched.content_type)
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1)).name
    except LookupError:
        return None


def _decoded(fetched: Fetched) -> str:
    charset = _charset(fetched)
    if charset is None:
        return decode_output(fetched.body)
    return fetched.body.decode(charset, "replace").replace("\0", "")


WEB_FETCH = ToolSpec(
    name="web_fetch",
    description=(
        "Fetch one http(s) URL and return the page as Markdown (HTML) or text. Asked like a "
        "command; runs only while the session's network is on. Redirects to another host "
        "are not followed: their target is returned, to fetch with a new call."
    ),
    args_model=WebFetchArgs,
    risk=Risk.NETWORK,
    run=web_fetch,
)
