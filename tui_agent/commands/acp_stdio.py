"""stdin and stdout for `tui-agent acp`'s protocol alone.

The protocol gets its own copies of the two; fd 0 then reads /dev/null and fd 1 writes to
stderr, so no tool, hook, library or stray print can read the client's bytes or write into the
protocol's.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import BinaryIO

from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's own copies of stdin and stdout; fd 0 becomes /dev/null, fd 1 stderr."""
    sys.stdout.flush()
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    return protocol_in, protocol_out


async def stdio_streams(
    protocol_in: BinaryIO, protocol_out: BinaryIO
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The SDK's connection reads and writes these (as its own stdio helper makes them)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), protocol_in)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, protocol_out
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
