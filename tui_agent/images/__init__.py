"""Images a person attaches or a tool returns: checked, decoded and scaled down to what every
provider takes (prepare.py, with Pillow), and kept by content hash in the data folder (store.py)
so that a session file refers to them and never holds them."""

from .prepare import (
    MAX_BYTES,
    MAX_INPUT_BYTES,
    MAX_SIDE,
    ImageError,
    image_type,
    prepare_image,
    read_image,
    sniffed_image,
)

__all__ = [
    "MAX_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_SIDE",
    "ImageError",
    "image_type",
    "prepare_image",
    "read_image",
    "sniffed_image",
]
