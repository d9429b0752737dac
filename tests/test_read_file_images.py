"""read_file of an image returns the image (checked, scaled down) under read_file's own rules;
a corrupt one is an error result that sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.images import MAX_SIDE
from tui_agent.tools.builtin.read_file import ReadFileArgs, read_file
from tui_agent.tools.sandbox import SandboxError
from tui_agent.tools.spec import ToolContext, ToolFailure

from .image_helpers import png


def _read(tmp_path: Path, name: str) -> tuple[str, bool, int]:
    output = read_file(ReadFileArgs(path=name), ToolContext(workspace=tmp_path.resolve()))
    return output.text, output.is_error, len(output.images)


def test_a_huge_image_is_scaled_before_it_is_returned(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(png(5000, 2500))
    ctx = ToolContext(workspace=tmp_path.resolve())
    output = read_file(ReadFileArgs(path="big.png"), ctx)
    (image,) = output.images
    assert (image.width, image.height) == (MAX_SIDE, MAX_SIDE // 2) and image.scaled
    assert "scaled down to fit" in output.text and not output.is_error


def test_a_corrupt_image_is_an_error_and_sends_nothing(tmp_path: Path) -> None:
    (tmp_path / "bad.png").write_bytes(png(50, 50)[:60])
    text, is_error, images = _read(tmp_path, "bad.png")
    assert is_error and images == 0
    assert text.startswith("bad.png is a corrupt or truncated image")
    assert text.endswith("; read_file sent nothing of it")


def test_other_binary_files_are_still_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2" * 100)
    text, is_error, images = _read(tmp_path, "blob.bin")
    assert is_error and images == 0 and "looks like a binary file" in text


def test_an_image_outside_the_workspace_is_refused_by_the_same_rules(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.png").write_bytes(png())
    (workspace / "link.png").symlink_to(tmp_path / "secret.png")
    for name in ("../secret.png", "link.png"):
        with pytest.raises((SandboxError, ToolFailure)):
            _read(workspace, name)
