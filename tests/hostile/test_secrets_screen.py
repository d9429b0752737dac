"""Secrets on the screen: a screenshot and the clipboard hold no key, nor any 16 characters of
one, however the screen shows it: split over styled runs (bold, code, emphasis), folded across
lines by the transcript's wrapping, cut off at the edge of a line that does not wrap, a configured
key with no known shape among them. The real app under Pilot, with the fake provider.

Before the screen was redacted as a whole, each SVG text run was redacted alone: the part of a
key after a style change, and every line of a folded key after its first, were written as they
were; and Ctrl+Y / Ctrl+K copied keys as they were.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from ..fake_provider import FakeProvider
from ..ui_app_helpers import (
    KEY_ENV,
    AppEnv,
    answer,
    make_env,
    running,
    send,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "anthropic"
# A configured key without a known shape (the provider's key, from the environment).
CONFIGURED = "cfgkey-Q7w2E9r4T6y1U3i5O8p0A2s4D6f8G1h3J5k7L9z2X4c6V8b"
SK = "sk-ant-api03-" + "".join(f"{n:02d}Kq" for n in range(60)) + "-AA"  # 255 characters
AIZA = "AIzaSyB" + "x7Y2" * 8
SHORT_SK = "sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef"
KEYS = (CONFIGURED, SK, AIZA, SHORT_SK)
_SVG_TEXT = re.compile(r"<text\b[^>]*>([^<]*)</text>")

ANSWER = (
    "Here they are.\n\n"
    # Split over styled runs.
    f"Styled: **{SK[:20]}**{SK[20:40]}`{SK[40:60]}`*{SK[60:90]}* done.\n\n"
    f"Google: *{AIZA[:10]}*{AIZA[10:]} and yours: `{CONFIGURED[:12]}`**{CONFIGURED[12:]}**\n\n"
    # Folded across lines: each is longer than the transcript is wide.
    f"Wrapped: {SK}\n\n"
    f"Configured, wrapped: {CONFIGURED * 3}\n\n"
    # A line that does not wrap, cut at the screen's edge inside a key.
    f"```\n{'x' * 96} {SHORT_SK} tail\n{SK}\n```\n\n"
    "The end."
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    monkeypatch.setenv(KEY_ENV, CONFIGURED)
    return env


def _visible(svg: str) -> str:
    """Every character the SVG shows, in order, without what could stand between the parts of
    a key (spaces, borders, padding, line ends): a folded key is whole again here."""
    shown = "".join(html.unescape(run) for run in _SVG_TEXT.findall(svg))
    return re.sub(r"[^A-Za-z0-9_-]", "", shown)


def _runs(text: str) -> list[str]:
    """The 16-character runs of any key found in ``text``."""
    return [
        key[at : at + 16]
        for key in KEYS
        for at in range(len(key) - 15)
        if key[at : at + 16] in text
    ]


@pytest.mark.heavy
async def test_a_screenshot_holds_no_run_of_a_key_split_over_styles_folded_or_cut(
    env: AppEnv, tmp_path: Path
) -> None:
    with FakeProvider(PROTOCOL, api_key=CONFIGURED) as server:
        server.script(answer(PROTOCOL, ANSWER))
        async with running(server, env) as (app, pilot):
            await send(pilot, "show me the keys")
            await wait_text(pilot, "The end.")
            await wait_idle_agent(pilot)
            path = Path(app.save_screenshot("keys.svg", str(tmp_path)))
            svg = path.read_text("utf-8")
    assert "Styled" in svg and "Wrapped" in svg and "The&#160;end." in svg  # the answer is there
    assert "[REDACTED]" in svg
    visible = _visible(svg)
    assert _runs(visible) == [], _runs(visible)
    assert _runs(svg) == []


@pytest.mark.heavy
async def test_the_clipboard_holds_no_key(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=CONFIGURED) as server:
        server.script(answer(PROTOCOL, ANSWER))
        async with running(server, env) as (app, pilot):
            await send(pilot, "show me the keys")
            await wait_text(pilot, "The end.")
            await wait_idle_agent(pilot)
            await pilot.press("ctrl+y")
            copied_answer = app.clipboard
            await pilot.press("ctrl+k")
            copied_code = app.clipboard
    assert copied_answer.startswith("Here they are.") and "The end." in copied_answer
    assert copied_code.startswith("x" * 96)
    for copied in (copied_answer, copied_code):
        assert _runs(copied) == [], _runs(copied)
        assert _runs(re.sub(r"[^A-Za-z0-9_-]", "", copied)) == []
