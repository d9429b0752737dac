"""Images in the app (Pilot, the real app against the fake provider): a pasted or dropped image
file's path becomes a chip saying what is sent (type, pixels, bytes; never base64), Alt+V
attaches the clipboard's image or says why it cannot, and the message goes with the image."""

from __future__ import annotations

import dataclasses
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from textual import events

from tui_agent.images import prepare_image
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.attachment_chips import AttachmentChip
from tui_agent.ui.widgets.prompt_input import PromptInput

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .image_helpers import png
from .ui_app_helpers import (
    KEY,
    SIZE,
    AppEnv,
    answer,
    make_app,
    make_env,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    (tmp_path / "Pictures").mkdir()
    (tmp_path / "Pictures" / "shot one.png").write_bytes(png(16, 9))
    (env.workspace / "notes.txt").write_text("notes\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    return env


def _toasts(app: object) -> str:
    return "\n".join(str(n.message) for n in app._notifications)  # type: ignore[attr-defined]


async def test_a_dropped_image_path_is_a_chip_and_goes_with_the_message(env: AppEnv) -> None:
    shot = prepare_image(png(16, 9), "shot one.png")
    dropped = "'" + str(env.workspace.parent / "Pictures" / "shot one.png") + "'"
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "A red square."))
        async with running(server, env) as (app, pilot):
            prompt = app.query_one(PromptInput)
            prompt.focus()
            app.post_message(events.Paste(dropped))
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            assert prompt_text(app) == ""  # the path is not pasted as text
            label = f"@shot one.png (PNG 16x9, {len(shot.data)} B)"
            await wait_text(pilot, label)
            assert shot.base64()[:20] not in screen_text(app)
            # A path to a text file is only text.
            app.post_message(events.Paste(str(env.workspace / "notes.txt")))
            await wait_for(pilot, lambda: prompt_text(app) != "", "the pasted text")
            assert prompt_text(app) == str(env.workspace / "notes.txt")
            assert len(app.query(AttachmentChip)) == 1
            prompt.clear()
            prompt.insert("what is this?")
            await pilot.press("enter")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "A red square.")
            await wait_text(pilot, f"📎 attached {label}")
            content = server.requests[0].json["messages"][-1]["content"]
            assert content[2] == {"type": "image_url", "image_url": {"url": shot.data_url()}}
            session = app.host.writer.session_id if app.host else ""
        # Resumed: the chip is shown again and the image goes to the model with the history.
        server.script(answer(PROTOCOL, "Still red."))
        resumed = dataclasses.replace(make_app(server, env).options, resume=session)
        async with TuiAgentApp(resumed).run_test(size=SIZE) as pilot:
            app = pilot.app
            assert isinstance(app, TuiAgentApp)
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await wait_text(pilot, f"📎 attached {label}")
            app.query_one(PromptInput).insert("and now?")
            await pilot.press("enter")
            await wait_idle_agent(pilot)
            assert server.requests[1].body.decode().count(shot.base64()) == 1
            await pilot.press("ctrl+q")
        server.assert_all_consumed()


async def test_alt_v_attaches_the_clipboard_image_or_says_why_not(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            await pilot.press("alt+v")
            await wait_for(pilot, lambda: "no clipboard tool found" in _toasts(app), "notice")
            assert not app.query(AttachmentChip)
            image = env.workspace.parent / "Pictures" / "shot one.png"
            tool = env.workspace.parent / "bin" / "wl-paste"
            tool.write_text(
                '#!/bin/sh\nif [ "$1" = "--list-types" ]; then echo image/png; exit 0; fi\n'
                f'cat "{image}"\n'
            )
            tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
            monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
            await pilot.press("alt+v")
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            (chip,) = app.query(AttachmentChip)
            digest = prepare_image(image.read_bytes(), "x").digest
            assert chip.attachment.path == f"clipboard-{digest[:8]}.png"
            await wait_text(pilot, f"@clipboard-{digest[:8]}.png (PNG 16x9, ")
        assert server.requests == []


async def test_an_at_mention_of_an_image_is_an_image_chip(env: AppEnv) -> None:
    from tui_agent.ui.widgets.completion_list import CompletionList

    (env.workspace / "pics").mkdir()
    (env.workspace / "pics" / "shot.png").write_bytes(png(16, 9))
    shot = prepare_image(png(16, 9), "shot.png")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            for key in ("at", "s", "h", "o", "t"):
                await pilot.press(key)
            await wait_for(pilot, lambda: app.query_one(CompletionList).open, "the file list")
            await pilot.press("tab")
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            (chip,) = app.query(AttachmentChip)
            assert chip.attachment.image == shot
            await wait_text(pilot, f"@pics/shot.png (PNG 16x9, {len(shot.data)} B)")


def _photo(path: Path) -> None:
    """A 4000x3000 JPEG (a photo's size: scaled down before it is sent)."""
    from PIL import Image

    gradient = Image.linear_gradient("L").resize((4000, 3000))
    Image.merge("RGB", (gradient, gradient.rotate(90), gradient)).save(path, "JPEG")


def _gated(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Preparing an attached image waits (in its worker thread) until the event is set."""
    from tui_agent.prompting import attachments

    gate = threading.Event()
    real = attachments.prepare_image

    def prepare(data: bytes, name: str) -> Any:
        assert threading.current_thread() is not threading.main_thread()
        gate.wait(timeout=30)
        return real(data, name)

    monkeypatch.setattr(attachments, "prepare_image", prepare)
    return gate


def _chip_text(app: TuiAgentApp) -> str:
    return " ".join(str(chip.render()) for chip in app.query(AttachmentChip))


async def test_a_large_photo_is_prepared_off_the_loop_and_the_message_waits_for_it(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    photo = env.workspace / "photo.jpg"
    _photo(photo)
    gate = _gated(monkeypatch)
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "A gradient."), answer(PROTOCOL, "Green and purple."))
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            app.post_message(events.Paste(str(photo)))
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            await wait_text(pilot, "@photo.jpg (preparing…)")
            # The app answers keys while the photo is prepared.
            for key in "what is it?":
                await pilot.press("space" if key == " " else key)
            assert prompt_text(app) == "what is it?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.held_send == "what is it?", "the held message")
            assert "sent once photo.jpg is prepared" in _toasts(app)
            assert server.requests == []  # never without its image
            assert "(preparing…)" in _chip_text(app)
            await send(pilot, "and the colours?")  # queued after the held message
            assert app.queue.items == ["and the colours?"]
            gate.set()
            await wait_for(pilot, lambda: len(server.requests) == 2, "both requests")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "A gradient.")
            await wait_text(pilot, "Green and purple.")
            assert server.requests[1].json["messages"][-1]["content"] == "and the colours?"
            content = server.requests[0].json["messages"][-1]["content"]
            assert content[0]["text"] == "what is it?"
            assert (
                'path="photo.jpg" media_type="image/jpeg" width="1568" height="1176"'
                in (content[1]["text"])
            )
            assert content[2]["image_url"]["url"].startswith("data:image/jpeg;base64,")
            await wait_text(pilot, "📎 attached @photo.jpg (JPEG 1568x1176, ")
            assert app.held_send is None
            assert not app.query(AttachmentChip)
        server.assert_all_consumed()


async def test_an_image_that_fails_to_prepare_sends_nothing_and_gives_the_message_back(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = env.workspace / "broken.png"
    broken.write_bytes(png(64, 64)[:80])  # a PNG cut short
    gate = _gated(monkeypatch)
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            app.post_message(events.Paste(str(broken)))
            await wait_text(pilot, "@broken.png (preparing…)")
            await send(pilot, "look")
            await wait_for(pilot, lambda: app.held_send == "look", "the held message")
            app.query_one(PromptInput).insert("and more")  # typed meanwhile
            gate.set()
            await wait_for(pilot, lambda: app.held_send is None, "the image to fail")
            await wait_for(pilot, lambda: not app.query(AttachmentChip), "the chip to go")
            assert prompt_text(app) == "look\nand more"
            assert "broken.png is a corrupt or truncated image" in _toasts(app)
            assert "not sent: broken.png could not be attached" in _toasts(app)
        assert server.requests == []
