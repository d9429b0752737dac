"""The clipboard's image comes through the desktop's clipboard tool (wl-paste on Wayland, xclip
on X11), the image type picked from what the clipboard offers; without a tool, or without an
image in the clipboard, the person is told what to do."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tui_agent.images.clipboard import ClipboardError, read_clipboard_image

from .image_helpers import png


def _tool(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    (tmp_path / "image.png").write_bytes(png(5, 4))
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    return folder


def test_wl_paste_is_asked_for_the_image_type_it_offers(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = bin_dir.parent / "image.png"
    _tool(
        bin_dir,
        "wl-paste",
        'if [ "$1" = "--list-types" ]; then printf "text/plain\\nimage/png\\n"; exit 0; fi\n'
        f'[ "$2 $3" = "--type image/png" ] && cat "{image}"\n',
    )
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert read_clipboard_image() == image.read_bytes()


def test_xclip_is_used_on_x11(bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image = bin_dir.parent / "image.png"
    _tool(
        bin_dir,
        "xclip",
        'case "$*" in *TARGETS*) printf "TARGETS\\nimage/jpeg\\nimage/png\\n";; '
        f'*image/png*) cat "{image}";; *) exit 1;; esac\n',
    )
    monkeypatch.setenv("DISPLAY", ":0")
    assert read_clipboard_image() == image.read_bytes()


def test_a_clipboard_without_an_image_says_so(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tool(bin_dir, "wl-paste", 'printf "text/plain\\n"\n')
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    with pytest.raises(ClipboardError, match="the clipboard holds no image"):
        read_clipboard_image()


def test_no_clipboard_tool_names_the_tools_to_install(bin_dir: Path) -> None:
    with pytest.raises(ClipboardError, match=r"no clipboard tool found: install wl-clipboard"):
        read_clipboard_image()
