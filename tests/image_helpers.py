"""Small images made with Pillow for the image tests."""

from __future__ import annotations

import io

from PIL import Image


def png(width: int = 8, height: int = 6, color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, "PNG")
    return out.getvalue()


def noise(width: int, height: int, kind: str = "PNG") -> bytes:
    """An image that does not compress well (random noise), to test the size limit."""
    import random

    rng = random.Random(7)
    image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    out = io.BytesIO()
    image.save(out, kind)
    return out.getvalue()
