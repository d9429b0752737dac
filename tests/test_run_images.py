"""`tui-agent run` attaches files by `@path` in its prompt and by `--attach FILE` (text and
images alike); an image that cannot be sent stops the run before anything is sent, and a
resumed session sends its images again from the data folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tui_agent.images import prepare_image

from .fake_provider import FakeProvider, Reply
from .image_helpers import png
from .run_helpers import KEY, Home, final

pytestmark = pytest.mark.heavy


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "shot.png").write_bytes(png(16, 9))
    (made.workspace / "notes.txt").write_text("the notes\n", encoding="utf-8")
    return made


def test_run_attaches_at_paths_and_files_and_resume_sends_them_again(home: Home) -> None:
    shot = prepare_image(png(16, 9), "shot.png")
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final("anthropic", "A red square."), final("anthropic", "Still red."))
        done = home.run(server, "what is in @shot.png?", "--attach", "notes.txt")
        assert done.code == 0, done.stderr
        assert f"attached shot.png (PNG 16x9, {len(shot.data)} B)" in done.stderr
        assert "attached notes.txt (10 B)" in done.stderr
        content = server.requests[0].json["messages"][0]["content"]
        assert [block["type"] for block in content] == ["text", "text", "text", "image"]
        assert content[3]["source"] == {
            "type": "base64",
            "media_type": "image/png",
            "data": shot.base64(),
        }
        (session,) = home.sessions()
        assert shot.base64()[:60] not in session.read_text("utf-8")
        stored = home.data / "tui-agent" / "images" / f"{shot.digest}.png"
        assert stored.read_bytes() == shot.data and (stored.stat().st_mode & 0o777) == 0o600
        user = next(r for r in home.records(session) if r["type"] == "user")
        assert user["attachments"][1]["image"]["digest"] == shot.digest
        again = home.run(server, "and now?", "--session", str(session))
        assert again.code == 0, again.stderr
        assert json.dumps(server.requests[1].json).count(shot.base64()) == 1
    replayed = home.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "replay", str(session), "--headless"]
    )
    assert replayed.code == 0, replayed.stderr
    assert f"[attached] shot.png (PNG 16x9, {len(shot.data)} B)" in replayed.stdout
    assert shot.base64()[:40] not in replayed.stdout
    exported = home.run_argv([sys.executable, "-m", "tui_agent.cli", "export", str(session)])
    assert exported.code == 0, exported.stderr
    assert f"Attached image: ![shot.png]({stored.absolute().as_uri()})" in exported.stdout


def test_a_corrupt_image_stops_the_run_before_anything_is_sent(home: Home) -> None:
    (home.workspace / "bad.png").write_bytes(png(40, 40)[:70])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        done = home.run(server, "look", "--attach", "bad.png")
        assert done.code == 1
        assert "not attached, nothing sent: bad.png is a corrupt or truncated image" in done.stderr
        assert server.requests == []
    assert home.sessions() == []  # nothing was sent, so no session is kept


def test_an_at_word_that_is_no_file_is_only_text(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(final("openai-chat", "Hi."))
        done = home.run(server, "ask @someone, then @notes.txt.")
        assert done.code == 0, done.stderr
        content = server.requests[0].json["messages"][-1]["content"]
        assert content[0] == {"type": "text", "text": "ask @someone, then @notes.txt."}
        assert content[1]["text"].startswith('<attached_file path="notes.txt">')
        assert len(content) == 2


def test_run_json_names_a_tool_image_without_its_bytes(home: Home) -> None:
    from .run_helpers import read_call

    shot = prepare_image(png(16, 9), "shot.png")
    with FakeProvider("openai-responses", api_key=KEY) as server:
        server.script(
            Reply(read_call(args='{"path":"shot.png"}')), final("openai-responses", "Red.")
        )
        done = home.run(server, "read shot.png", "--json", approve="read-only")
        assert done.code == 0, done.stderr
        (finished,) = [e for e in done.events() if e["type"] == "tool_finished"]
        assert finished["images"] == [
            {
                "media_type": "image/png",
                "width": 16,
                "height": 9,
                "size": len(shot.data),
                "digest": shot.digest,
            }
        ]
        assert shot.base64()[:40] not in done.stdout
        output = server.requests[1].json["input"][-1]["output"]
        assert output[1] == {"type": "input_image", "image_url": shot.data_url(), "detail": "auto"}


def test_redaction_holds_beside_an_image(home: Home) -> None:
    """The provider key typed beside an image is redacted in the session file; the image's
    reference is not touched and the resumed session sends the image again."""
    shot = prepare_image(png(16, 9), "shot.png")
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(final("gemini", "Seen."), final("gemini", "Again."))
        done = home.run(server, f"my key is {KEY}, see @shot.png")
        assert done.code == 0, done.stderr
        (session,) = home.sessions()
        text = session.read_text("utf-8")
        assert KEY not in text and "[REDACTED]" in text and shot.digest in text
        again = home.run(server, "again", "--session", str(session))
        assert again.code == 0, again.stderr
        parts = server.requests[1].json["contents"][0]["parts"]
        assert {"inlineData": {"mimeType": "image/png", "data": shot.base64()}} in parts
