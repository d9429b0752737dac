"""Images are checked, decoded and scaled down before anything is sent, and kept by content
hash in the data folder (0600, written once), so a session refers to them and never holds them."""

from __future__ import annotations

import hashlib
import io
import os
import stat
from pathlib import Path

import pytest
from PIL import Image

from tui_agent.conversation import Attachment, UserMessage
from tui_agent.images import MAX_BYTES, MAX_SIDE, ImageError, image_type, prepare_image
from tui_agent.images.records import attached_file, attachment, keep_images, result_images
from tui_agent.images.store import image_file, restored, save_image, stored
from tui_agent.session.records import StoredImage

from .image_helpers import noise, png


def test_a_small_image_is_sent_byte_for_byte() -> None:
    data = png(40, 30)
    image = prepare_image(data, "shot.png")
    assert image.data == data and image.media_type == "image/png"
    assert (image.width, image.height, image.scaled) == (40, 30, False)
    assert image.digest == hashlib.sha256(data).hexdigest()
    assert image.describe() == f"PNG 40x30, {len(data)} B"


def test_a_huge_image_is_scaled_down_to_the_long_side_limit() -> None:
    image = prepare_image(png(6000, 3000), "wide.png")
    assert image.scaled and max(image.width, image.height) == MAX_SIDE
    assert (image.width, image.height) == (MAX_SIDE, MAX_SIDE // 2)
    assert image.media_type == "image/jpeg"  # no transparency: JPEG is smaller
    with Image.open(io.BytesIO(image.data)) as decoded:
        assert decoded.size == (image.width, image.height)


def test_a_large_jpeg_is_decoded_small_and_scaled_to_the_limit() -> None:
    image = prepare_image(noise(4000, 2000, "JPEG"), "photo.jpg")
    assert (image.width, image.height) == (MAX_SIDE, MAX_SIDE // 2) and image.scaled


def test_an_image_over_the_byte_limit_is_made_smaller() -> None:
    data = noise(1500, 1500)
    assert len(data) > MAX_BYTES
    image = prepare_image(data, "noise.png")
    assert image.scaled and len(image.data) <= MAX_BYTES
    assert max(image.width, image.height) <= MAX_SIDE


def test_transparency_is_kept_as_png_when_scaled() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (3000, 100), (0, 0, 0, 0)).save(out, "PNG")
    image = prepare_image(out.getvalue(), "clear.png")
    assert image.media_type == "image/png" and image.width == MAX_SIDE


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "shot.png is not an image that can be read"),
        (png(300, 300)[:200], "shot.png is a corrupt or truncated image"),
        (b"hello, not an image", "shot.png is not an image that can be read"),
    ],
)
def test_a_corrupt_image_is_refused_clearly(data: bytes, said: str) -> None:
    with pytest.raises(ImageError) as caught:
        prepare_image(data, "shot.png")
    assert str(caught.value).startswith(said)


def test_other_formats_are_refused_by_name() -> None:
    out = io.BytesIO()
    Image.new("RGB", (4, 4)).save(out, "BMP")
    with pytest.raises(ImageError, match=r"a\.bmp is a BMP image; only PNG, JPEG, GIF and WebP"):
        prepare_image(out.getvalue(), "a.bmp")


def test_the_media_type_is_sniffed_from_the_first_bytes() -> None:
    assert image_type(png()) == "image/png"
    assert image_type(noise(4, 4, "JPEG")) == "image/jpeg"
    assert image_type(b"GIF89a....") == "image/gif"
    assert image_type(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert image_type(b"%PDF-1.7") is None


def test_the_store_writes_each_image_once_0600(tmp_path: Path) -> None:
    image = prepare_image(png(), "a.png")
    path = save_image(image, tmp_path / "images")
    assert path.name == f"{image.digest}.png" and path.read_bytes() == image.data
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    mtime = path.stat().st_mtime_ns
    assert save_image(image, tmp_path / "images") == path and path.stat().st_mtime_ns == mtime
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_record_names_the_image_and_reads_it_back(tmp_path: Path) -> None:
    root = tmp_path / "images"
    image = prepare_image(png(12, 9), "a.png")
    assert keep_images([image], root) is None
    record = attached_file(Attachment("pics/a.png", "", image=image))
    assert record.image is not None and record.text == ""
    assert "base64" not in record.model_dump_json() and len(record.model_dump_json()) < 300
    back = attachment(record, root)
    assert back.image == image and back.path == "pics/a.png"
    assert result_images([stored(image)], root) == ((image,), [])


def test_an_image_gone_from_the_store_becomes_a_note(tmp_path: Path) -> None:
    image = prepare_image(png(), "a.png")
    record = attached_file(Attachment("a.png", "", image=image))
    back = attachment(record, tmp_path / "empty")
    assert back.image is None and "no longer in tui-agent's data folder" in back.text
    images, notes = result_images([stored(image)], tmp_path / "empty")
    assert images == () and len(notes) == 1


def test_a_changed_or_hostile_reference_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "images"
    image = prepare_image(png(), "a.png")
    path = save_image(image, root)
    path.write_bytes(b"tampered")
    assert restored(stored(image), root) is None
    hostile = StoredImage(
        digest="../../etc/passwd", media_type="image/png", width=1, height=1, size=1
    )
    assert image_file(hostile.digest, hostile.media_type, root) is None
    assert restored(hostile, root) is None


def test_a_message_sends_each_image_after_its_block() -> None:
    image = prepare_image(png(), "a.png")
    message = UserMessage("look", (Attachment("a.png", "", image=image), Attachment("b.txt", "hi")))
    parts = message.parts()
    assert parts[0] == "look" and parts[2] is image
    assert parts[1] == '<attached_image path="a.png" media_type="image/png" width="8" height="6"/>'
    assert message.blocks() == [p for p in parts if isinstance(p, str)]
    assert message.images == (image,)


def test_keep_images_says_when_the_disk_refuses(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    warning = keep_images([prepare_image(png(), "a.png")], blocked / "images")
    assert warning is not None and "could not be saved" in warning
    assert os.listdir(tmp_path) == ["file"]


def test_a_session_with_images_is_rebuilt_from_its_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.agent.history import messages_from_records
    from tui_agent.conversation import ToolResultMessage
    from tui_agent.images.store import images_dir
    from tui_agent.session.codec import decode_line, encode_line
    from tui_agent.session.records import (
        AssistantRecord,
        ToolCallRecord,
        ToolResultRecord,
        UserRecord,
    )

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    shot, chart = prepare_image(png(8, 6), "shot.png"), prepare_image(png(3, 3), "chart.png")
    assert keep_images([shot, chart]) is None
    assert images_dir() == tmp_path / "data" / "tui-agent" / "images"
    call = ToolCallRecord(id="c1", name="read_file", arguments='{"path":"chart.png"}')
    records = [
        UserRecord(
            text="look", attachments=[attached_file(Attachment("shot.png", "", image=shot))]
        ),
        AssistantRecord(
            protocol="anthropic",
            model="m",
            text="",
            reasoning="",
            tool_calls=[call],
            stop_reason=None,
            usage=None,
            response_id=None,
            raw=[],
        ),
        ToolResultRecord(call_id="c1", name="read_file", output="ok", images=[stored(chart)]),
    ]
    lines = [encode_line(r) for r in records]
    assert all(shot.base64()[:40].encode() not in line for line in lines)
    messages, repairs = messages_from_records(decode_line(line.strip())[0] for line in lines)
    assert repairs == []
    assert isinstance(messages[0], UserMessage) and messages[0].images == (shot,)
    assert isinstance(messages[2], ToolResultMessage) and messages[2].images == (chart,)
