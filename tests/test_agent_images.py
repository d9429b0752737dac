"""Images through the real loop, on every protocol: an attached image is sent and kept by
reference, a server that refuses it gets a clear error and loses nothing, read_file of an image
returns it to the model, and the session file gives the same conversation back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import LoopEnded, TurnTruncated
from tui_agent.approval import approve
from tui_agent.conversation import Attachment, ToolResultMessage, UserMessage
from tui_agent.images import prepare_image
from tui_agent.images.store import images_dir
from tui_agent.session.records import ToolResultRecord, UserRecord

from .agent_helpers import (
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    count_text,
    finished,
    of_type,
)
from .fake_provider import Reply, Status
from .image_helpers import png

REFUSAL = b'{"error": {"message": "this model does not support image input"}}'


@pytest.fixture(autouse=True)
def _data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_refused_image_is_a_clear_error_and_the_message_stays(
    protocol: str, tmp_path: Path
) -> None:
    shot = prepare_image(png(20, 10), "shot.png")
    attached = (Attachment("shot.png", "", image=shot),)
    async with agent_over(protocol, tmp_path, Status(400, body=REFUSAL), answer(protocol)) as h:
        events = await h.collect(h.agent.send("what is this?", attached))
        [truncated] = of_type(events, TurnTruncated)
        assert "does not support image input" in truncated.message
        assert "the request held 1 image: this model or server may not take images" in (
            truncated.message
        )
        assert events[-1] == LoopEnded("truncated", truncated.message)
        assert h.agent.messages == [UserMessage("what is this?", attached)]
        # The image went out, in base64, once; the session file names it and holds no base64.
        assert count_text(h.server.requests[0].json, shot.base64()) == 1
        (user,) = of_type(h.records(), UserRecord)
        assert user.attachments[0].image is not None
        assert user.attachments[0].image.digest == shot.digest
        session_file = h.writer.path.read_bytes()
        assert shot.base64()[:60].encode() not in session_file
        assert (images_dir() / f"{shot.digest}.png").read_bytes() == shot.data
        events = await h.retry()
        assert events[-1] == LoopEnded("complete")
        assert count_text(h.server.requests[-1].json, shot.base64()) == 1
        h.assert_session_valid()  # resumed, the conversation holds the same image


async def test_a_server_without_vision_is_not_retried_and_says_why(tmp_path: Path) -> None:
    """llama.cpp without its projector (mmproj) answers HTTP 500 to an image: the same request
    would fail the same way, so it is not retried, and the error says images were the cause."""
    body = (
        b'{"error": {"code": 500, "message": "image input is not supported - hint: if this is '
        b'unexpected, you may need to provide the mmproj", "type": "server_error"}}'
    )
    shot = prepare_image(png(20, 10), "shot.png")
    attached = (Attachment("shot.png", "", image=shot),)
    async with agent_over("openai-chat", tmp_path, Status(500, body=body)) as h:
        events = await h.collect(h.agent.send("what is this?", attached))
        [truncated] = of_type(events, TurnTruncated)
        assert "image input is not supported" in truncated.message
        assert "may not take images" in truncated.message
        assert len(h.server.requests) == 1
        assert h.agent.pending_user_message() == "what is this?"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_read_file_of_an_image_returns_it_to_the_model(protocol: str, tmp_path: Path) -> None:
    data = png(30, 20, (0, 128, 0))
    read = ("call_R", "read_file", {"path": "pic.png"})
    steps = (Reply(call_ops(read)), answer(protocol))
    async with agent_over(protocol, tmp_path, *steps, approver=ScriptedApprover(approve())) as h:
        (h.workspace / "pic.png").write_bytes(data)
        events = await h.send("look at pic.png")
        assert events[-1] == LoopEnded("complete")
        result = finished(events)["call_R"]
        assert not result.is_error and result.images[0].data == data
        assert (
            result.output
            == f"[read_file: pic.png is an image (PNG 30x20, {len(data)} B); it is attached]"
        )
        image = result.images[0]
        assert count_text(h.server.requests[1].json, image.base64()) == 1
        (record,) = of_type(h.records(), ToolResultRecord)
        assert [ref.digest for ref in record.images] == [image.digest]
        h.assert_session_valid()
        tool_results = [m for m in h.agent.messages if isinstance(m, ToolResultMessage)]
        assert tool_results[0].images == (image,)


async def test_fork_export_and_replay_keep_the_images(tmp_path: Path) -> None:
    from tui_agent.agent.fork import fork_session
    from tui_agent.agent.history import messages_from_records
    from tui_agent.export.markdown import render_markdown
    from tui_agent.replay import ReplayScript
    from tui_agent.replay.text_transcript import transcript_lines

    protocol = "anthropic"
    shot = prepare_image(png(12, 8), "shot.png")
    data = png(30, 20, (0, 128, 0))
    read = ("call_R", "read_file", {"path": "pic.png"})
    steps = (Reply(call_ops(read)), answer(protocol))
    async with agent_over(protocol, tmp_path, *steps, approver=ScriptedApprover(approve())) as h:
        (h.workspace / "pic.png").write_bytes(data)
        await h.collect(h.agent.send("look", (Attachment("shot.png", "", image=shot),)))
        session = h.writer.session_id
        loaded = h.store.load(session)
        markdown = render_markdown(loaded)
        link = (images_dir() / f"{shot.digest}.png").absolute().as_uri()
        assert f"Attached image: ![shot.png]({link}) (image/png, 12x8, " in markdown
        assert "Returned image: ![image](file://" in markdown
        assert shot.base64()[:40] not in markdown
        lines = transcript_lines(ReplayScript.from_records(loaded.records))
        assert f"  [attached] shot.png (PNG 12x8, {len(shot.data)} B)" in lines
        _fork, forked = fork_session(h.store, session, at=1)
        messages, _ = messages_from_records(forked.records)
        assert messages[0] == UserMessage("look", (Attachment("shot.png", "", image=shot),))
