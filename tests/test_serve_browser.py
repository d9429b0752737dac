"""`tui-agent serve` in a real browser: the system's headless Chromium driven by Playwright.

The real command as a subprocess (isolated HOME and XDG folders, the offline demo model at pace
0, a workspace of its own, port 0); the screen is read from xterm.js's own buffer. A person
opens the printed URL, sees the first screen, asks the demo model to write a file, approves the
call by keypress (y typed on across the prompt's arrival decides nothing: the arming holds in
the browser too) and sees the result; the file is written; Ctrl+Y puts the answer in
the browser's clipboard. Without the token, or with a wrong one, the browser gets 403 and its
websocket is refused; the token is in no log or session file, and not in the app's argv or
environment. ``replay ID --serve`` plays a saved session; a link in it opens only after the
app's own confirmation (and the terminal's own link handling opens nothing).

Skipped, saying why, when Chromium or Playwright is missing (.ci/run installs Debian's
``chromium`` when it runs as root).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tui_agent.session import SessionStore
from tui_agent.session.records import AssistantRecord, RawEvent, UserRecord

from .replay_helpers import chunk
from .serve_helpers import (
    CHROMIUM_ARGS,
    TERMINAL_HOOK,
    Served,
    chromium,
    click_text,
    files_holding,
    screen_text,
    wait_for_screen,
)

CHROMIUM = chromium()
pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no chromium: the browser tests need Debian's chromium package "
        "(.ci/run installs it when run as root; or: apt-get install chromium)",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")

ARMING_S = 1.5  # the prompt takes focus after 1 s without a key, then arms in 0.4 s
SIZE = {"width": 1200, "height": 760}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _new_page(browser: Any, served: Served) -> tuple[Any, Any]:
    context = browser.new_context(viewport=SIZE)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served.origin)
    page = context.new_page()
    page.add_init_script(TERMINAL_HOOK)
    return context, page


_WEBSOCKET = """(url) => new Promise((resolve) => {
  const socket = new WebSocket(url);
  socket.onopen = () => { socket.close(); resolve("open"); };
  socket.onerror = () => resolve("refused");
})"""


def test_keys_typed_before_any_click_reach_the_app(browser: Any, tmp_path: Path) -> None:
    """The page focuses the terminal itself: no click is needed before typing."""
    (tmp_path / "ws").mkdir()
    with Served(tmp_path, "serve", "--workspace", str(tmp_path / "ws")) as served:
        context, page = _new_page(browser, served)
        assert page.goto(served.url).status == 200
        wait_for_screen(page, "offline demo model")
        page.keyboard.type("typed before any click")
        wait_for_screen(page, "typed before any click")
        context.close()


def test_the_app_in_a_browser(browser: Any, tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    with Served(tmp_path, "serve", "--workspace", str(tmp_path / "ws")) as served:
        context, page = _new_page(browser, served)
        # Without the token, or with a wrong one: 403, for the page and for the websocket.
        assert page.goto(served.origin + "/").status == 403
        wrong = served.token[::-1]
        assert page.goto(f"{served.origin}/{wrong}/").status == 403
        assert page.goto(served.url).status == 200
        ws = served.origin.replace("http", "ws", 1)
        assert page.evaluate(_WEBSOCKET, f"{ws}/ws") == "refused"
        assert page.evaluate(_WEBSOCKET, f"{ws}/{wrong}/ws") == "refused"

        wait_for_screen(page, "offline demo model")
        page.focus("textarea.xterm-helper-textarea")
        page.keyboard.type("write notes.txt saying hello")
        page.keyboard.press("Enter")
        # Typing on across the prompt's arrival (10 keys a second): the keys go into the message
        # box, the prompt waits; none of the y's decides anything.
        page.keyboard.type("y" * 30, delay=100)
        shown = wait_for_screen(page, "waiting for approval: write_file")
        assert "y" * 30 in shown, shown
        assert not (tmp_path / "ws" / "notes.txt").exists()
        time.sleep(ARMING_S)
        page.keyboard.press("y")
        shown = wait_for_screen(page, "Done: created notes.txt")
        assert "✓ done: write_file" in shown
        assert (tmp_path / "ws" / "notes.txt").read_text() == "hello\n"

        page.keyboard.press("Control+y")
        wait_for_screen(page, "last answer copied", 5.0)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() == "Done: created notes.txt: 6 bytes written."

        [app] = served.children()
        for part in ("cmdline", "environ"):
            assert served.token.encode() not in Path(f"/proc/{app}/{part}").read_bytes()
        context.close()
        time.sleep(0.5)
    assert served.stop() == []  # closing the tab ended its app; stopping left nothing
    assert list((tmp_path / "data" / "tui-agent" / "sessions").glob("*.jsonl"))
    assert list((tmp_path / "state").rglob("*.log"))
    assert files_holding(tmp_path, served.token) == []


GUIDE = "https://example.invalid/guide"
ANSWER = f"Read [the manual]({GUIDE}) first; the bare one is https://example.invalid/bare here."
MORE = " And more, ten minutes later."


def _session_with_links(root: Path) -> Path:
    """A saved answer with a link whose second delta comes 10 minutes after the first: replayed
    at speed 1, the answer is still streaming (a live Markdown widget, whose links can be
    clicked) while the test runs."""
    store = SessionStore(root / "data" / "tui-agent" / "sessions")
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace=str(root))
    events = [
        RawEvent(t=0.2, event="message", data=chunk({"role": "assistant", "content": ANSWER})),
        RawEvent(t=600.0, event="message", data=chunk({"content": MORE})),
        RawEvent(t=600.1, event="message", data=chunk({}, "stop")),
        RawEvent(t=600.2, event="message", data="[DONE]"),
    ]
    writer.append(UserRecord(ts=1000.0, text="where is the guide?"))
    writer.append(
        AssistantRecord(
            ts=1001.0,
            protocol="openai-chat",
            model="m",
            text=ANSWER + MORE,
            reasoning="",
            tool_calls=[],
            stop_reason="stop",
            usage=None,
            response_id="chatcmpl-w",
            raw=events,
        )
    )
    writer.close()
    return writer.path


def _wait_until_gone(page: Any, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while text in (shown := screen_text(page)):
        assert time.monotonic() < deadline, f"{text!r} still shown:\n{shown}"
        time.sleep(0.1)


def test_replay_in_a_browser_opens_links_only_after_confirmation(
    browser: Any, tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    session = _session_with_links(tmp_path)
    with Served(tmp_path, "replay", session.stem, "--serve") as served:
        context, page = _new_page(browser, served)
        assert page.goto(served.origin + "/").status == 403
        opened: list[tuple[str, str | None]] = []

        def fulfil(route: Any) -> None:  # nothing leaves the machine
            opened.append((route.request.url, route.request.headers.get("referer")))
            route.fulfill(body="opened", content_type="text/plain")

        context.route("https://example.invalid/**", fulfil)
        page.goto(served.url)
        wait_for_screen(page, "where is the guide?")
        wait_for_screen(page, "the manual")

        # A bare URL: the app asks (Textual's Markdown made it a link); xterm.js's own link
        # handling, which would open it on the click itself, opens nothing.
        click_text(page, "https://example.invalid/bare")
        shown = wait_for_screen(page, "Open this link? y/n")
        assert "https://example.invalid/bare" in shown.split("Link target:", 1)[1], shown
        time.sleep(0.5)
        assert opened == [] and len(context.pages) == 1
        page.keyboard.press("n")
        _wait_until_gone(page, "Open this link?")
        assert opened == [] and len(context.pages) == 1

        click_text(page, "the manual")
        wait_for_screen(page, "Open this link? y/n")
        assert GUIDE in screen_text(page).split("Link target:", 1)[1]
        time.sleep(0.5)
        assert opened == [] and len(context.pages) == 1
        with context.expect_page() as popup_info:
            page.keyboard.press("y")
        popup = popup_info.value
        popup.wait_for_load_state()
        assert popup.url == GUIDE
        assert opened == [(GUIDE, None)]  # no referrer: the token stays here
        assert popup.evaluate("window.opener") is None
        context.close()
    assert files_holding(tmp_path, served.token) == []
