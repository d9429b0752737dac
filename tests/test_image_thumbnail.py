"""Images drawn in the terminal: which environments get a half-block thumbnail and which keep
only the chip (the fallback chain, decided from the setting and the environment, never by asking
the terminal), what a thumbnail is made of, and the app drawing an attached image and a tool's
image (Pilot, the fake provider) or not drawing them where it should not."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual import events

from tui_agent.images import prepare_image
from tui_agent.ui.widgets.attachment_chips import AttachmentChip, AttachmentView
from tui_agent.ui.widgets.image_thumbnail import (
    ImageThumbnail,
    draw_blocks,
    inline_renderer,
    thumbnail_size,
)
from tui_agent.ui.widgets.prompt_input import PromptInput

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply
from .image_helpers import png
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    make_env,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
RED = (200, 30, 30)


@pytest.mark.parametrize(
    ("setting", "environ", "expected"),
    [
        ("auto", {"TERM": "xterm-256color"}, "blocks"),
        ("auto", {"TERM": "xterm", "COLORTERM": "truecolor"}, "blocks"),
        ("auto", {"TERM": "xterm", "COLORTERM": "24bit"}, "blocks"),
        ("auto", {"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}, "blocks"),
        ("auto", {"TERM": "xterm", "TERM_PROGRAM": "iTerm.app"}, "blocks"),
        ("auto", {"TERM": "xterm", "TERM_PROGRAM": "WezTerm"}, "blocks"),
        ("auto", {"TERM": "xterm-ghostty"}, "blocks"),
        ("auto", {"TERM": "xterm", "WT_SESSION": "x"}, "blocks"),  # Windows Terminal
        ("auto", {"TERM": "tmux-256color"}, "blocks"),  # tmux: text and colours pass
        ("auto", {"TERM": "screen-256color"}, "blocks"),
        ("auto", {"TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual"}, "blocks"),
        ("auto", {"TEXTUAL_COLOR_SYSTEM": "standard", "TERM": "xterm-256color"}, None),
        ("auto", {"TERM": "xterm"}, None),  # 8 or 16 colours: no picture in them
        ("auto", {"TERM": "linux"}, None),
        ("auto", {"TERM": "dumb", "COLORTERM": "truecolor"}, None),
        ("auto", {}, None),  # nothing known of the terminal
        ("auto", {"TERM": "xterm-256color", "NO_COLOR": "1"}, None),
        ("off", {"TERM": "xterm-kitty", "COLORTERM": "truecolor"}, None),
        ("blocks", {"TERM": "xterm"}, "blocks"),  # asked for: drawn anyway
    ],
)
def test_which_terminals_get_a_thumbnail(
    setting: str, environ: dict[str, str], expected: str | None
) -> None:
    assert inline_renderer(setting, environ) == expected


def test_a_thumbnail_is_bounded_and_keeps_the_aspect() -> None:
    assert thumbnail_size(1568, 1176) == (32, 12)  # 4:3, two pixels a line
    assert thumbnail_size(1568, 200) == (48, 3)  # wide: the width bounds it
    assert thumbnail_size(100, 4000) == (1, 12)  # tall: at least one column
    assert thumbnail_size(16, 9) == (16, 4)  # never larger than the image
    assert thumbnail_size(1, 1) == (1, 1)


def test_a_thumbnail_is_half_blocks_in_the_images_colours() -> None:
    from PIL import Image

    top_red = Image.new("RGB", (4, 4), RED)
    top_red.paste((10, 20, 250), (0, 2, 4, 4))  # the lower half blue
    import io

    out = io.BytesIO()
    top_red.save(out, "PNG")
    image = prepare_image(out.getvalue(), "x.png")
    text = draw_blocks(image, *thumbnail_size(4, 4))
    assert text.plain == "▀▀▀▀\n▀▀▀▀"
    styles = {str(span.style) for span in text.spans}
    assert str(Style(color="#c81e1e", bgcolor="#c81e1e")) in styles  # top line: red on red
    assert str(Style(color="#0a14fa", bgcolor="#0a14fa")) in styles  # bottom line: blue
    # A transparent pixel is drawn on a dark matte, never as raw bytes.
    clear = io.BytesIO()
    Image.new("RGBA", (2, 2), (0, 0, 0, 0)).save(clear, "PNG")
    drawn = draw_blocks(prepare_image(clear.getvalue(), "c.png"), 2, 1)
    assert drawn.plain == "▀▀"
    assert "\x1b" not in drawn.plain


@pytest.fixture
def env(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    env = make_env(tmp_path, monkeypatch)
    (env.workspace / "red.png").write_bytes(png(64, 48, RED))
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM", "KITTY_WINDOW_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    return env


def _settings(env: AppEnv, text: str) -> None:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f"[settings]\n{text}\n")


def _red_blocks(thumbnail: ImageThumbnail) -> None:
    drawn = thumbnail.snapshot().drawn
    assert drawn is not None
    lines = drawn.plain.split("\n")
    assert (thumbnail.cols, thumbnail.rows) == (32, 12)
    assert lines == ["▀" * 32] * 12
    assert {str(span.style) for span in drawn.spans} == {
        str(Style(color="#c81e1e", bgcolor="#c81e1e"))
    }


async def test_an_attached_image_is_drawn_under_its_message(env: AppEnv) -> None:
    shot = prepare_image(png(64, 48, RED), "red.png")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Red."))
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            app.post_message(events.Paste(str(env.workspace / "red.png")))
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            await wait_text(pilot, "@red.png (PNG 64x48")
            # The chip's view (Enter on it) draws it too.
            app.query_one(AttachmentChip).focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, AttachmentView), "the view")
            await wait_for(
                pilot, lambda: app.screen.query_one(ImageThumbnail).drawn, "its thumbnail"
            )
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, AttachmentView), "closed")
            await send(pilot, "what colour?")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "📎 attached @red.png (PNG 64x48")  # the chip stays
            await wait_for(
                pilot,
                lambda: any(t.drawn for t in app.query(ImageThumbnail)),
                "the thumbnail",
            )
            (thumbnail,) = app.query(ImageThumbnail)
            _red_blocks(thumbnail)
            assert "▀" * 32 in screen_text(app)
            assert shot.base64()[:16] not in screen_text(app)
        server.assert_all_consumed()


async def test_a_tool_image_is_drawn_under_its_call(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(
            Reply(call_ops(("call_A", "read_file", {"path": "red.png"}), text="Looking.")),
            answer(PROTOCOL, "It is red."),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "look at red.png")
            prompt = await armed_prompt(pilot)
            assert prompt is not None
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "It is red.")
            await wait_for(
                pilot,
                lambda: any(t.drawn for t in app.query(ImageThumbnail)),
                "the thumbnail",
            )
            (thumbnail,) = app.query(ImageThumbnail)
            _red_blocks(thumbnail)
            await wait_text(pilot, "🖼 read_file returned PNG 64x48")
        server.assert_all_consumed()


@pytest.mark.parametrize("where", ["setting off", "TERM=dumb"])
async def test_where_images_are_not_drawn_the_chip_is_all(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "setting off":
        _settings(env, 'images_inline = "off"')
    else:
        monkeypatch.setenv("TERM", "dumb")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Red."))
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).focus()
            app.post_message(events.Paste(str(env.workspace / "red.png")))
            await wait_for(pilot, lambda: bool(app.query(AttachmentChip)), "the chip")
            await wait_text(pilot, "@red.png (PNG 64x48")
            await send(pilot, "what colour?")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "📎 attached @red.png (PNG 64x48")
            await wait_text(pilot, "Red.")
            assert not app.query(ImageThumbnail)
            assert "▀" not in screen_text(app)
        server.assert_all_consumed()
