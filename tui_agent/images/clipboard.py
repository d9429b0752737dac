"""The system clipboard's image, through the clipboard tool the desktop has: ``wl-paste``
(Wayland, wl-clipboard), ``xclip`` (X11), ``pngpaste`` (macOS). A terminal cannot paste an
image itself; without one of these the person is told which to install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from .prepare import MAX_INPUT_BYTES

TIMEOUT_S = 5.0
_PREFERRED = ("image/png", "image/jpeg", "image/webp", "image/gif")


class ClipboardError(Exception):
    """Why no image came from the clipboard (one line, saying what to do)."""


def _run(argv: list[str]) -> bytes:
    name = os.path.basename(argv[0])
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ClipboardError(f"{name} did not answer within {TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ClipboardError(f"{name} could not be run: {exc.strerror or exc}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ClipboardError(f"{name} failed: {said[-1] if said else done.returncode}")
    if len(done.stdout) > MAX_INPUT_BYTES:
        raise ClipboardError(f"the clipboard's image is larger than {MAX_INPUT_BYTES:,} bytes")
    return done.stdout


def _pick(types: bytes) -> str:
    offered = types.decode("utf-8", "replace").split()
    for kind in _PREFERRED:
        if kind in offered:
            return kind
    raise ClipboardError("the clipboard holds no image (copy one, or take a screenshot to it)")


def read_clipboard_image() -> bytes:
    """The clipboard's image bytes; ClipboardError when there is none or no tool to read it."""
    if os.environ.get("WAYLAND_DISPLAY") and (tool := shutil.which("wl-paste")):
        kind = _pick(_run([tool, "--list-types"]))
        return _run([tool, "--no-newline", "--type", kind])
    if os.environ.get("DISPLAY") and (tool := shutil.which("xclip")):
        kind = _pick(_run([tool, "-selection", "clipboard", "-target", "TARGETS", "-out"]))
        return _run([tool, "-selection", "clipboard", "-target", kind, "-out"])
    if sys.platform == "darwin" and (tool := shutil.which("pngpaste")):
        return _run([tool, "-"])
    raise ClipboardError(
        "no clipboard tool found: install wl-clipboard (wl-paste) on Wayland, xclip on X11, "
        "or pngpaste on macOS; or paste the image file's path instead"
    )
