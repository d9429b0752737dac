"""``tui-agent parse --protocol P [FILE]``: decode a recorded provider stream and print the turn
it makes, as one JSON object (the turn the app would act on)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, BinaryIO

from .exit_status import EXIT_OK, EXIT_TRUNCATED, EXIT_USAGE

_READ_SIZE = 65536


# The protocols' names for the help text: the parser is built on every launch, the app's too,
# and tui_agent.providers is not needed before the first frame (tests/test_cli_parse.py keeps
# this the registry's list).
PROTOCOL_NAMES = (
    "openai-responses",
    "openai-chat",
    "anthropic",
    "gemini-interactions",
    "gemini",
)


def add_parse_command(commands: Any) -> None:
    """Add ``parse`` to ``commands`` (the root parser's subparsers)."""
    parse = commands.add_parser(
        "parse",
        help="decode a recorded provider stream and print the turn it makes",
        description=(
            "Read a recorded SSE response body from FILE (or standard input) as its bytes "
            "arrive, and print one JSON object: the turn the app would act on. Exit status: "
            "0 complete, 2 truncated, 1 unreadable input or unknown protocol."
        ),
    )
    parse.add_argument(
        "--protocol", required=True, metavar="P", help="one of: " + ", ".join(PROTOCOL_NAMES)
    )
    parse.add_argument("file", nargs="?", metavar="FILE", help="the body (default: stdin)")


def main(args: argparse.Namespace) -> int:
    from ..providers import UnknownProtocolError
    from ..turn_reader import TurnReader

    protocol: str = args.protocol
    path: str | None = args.file
    try:
        reader = TurnReader(protocol)
    except UnknownProtocolError as exc:
        print(f"tui-agent parse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        stream: BinaryIO = open(path, "rb") if path else sys.stdin.buffer  # noqa: SIM115
    except OSError as exc:
        print(f"tui-agent parse: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        read = getattr(stream, "read1", stream.read)
        while chunk := read(_READ_SIZE):
            reader.feed(chunk)
    except OSError as exc:
        print(f"tui-agent parse: cannot read input: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if path:
            stream.close()
    result = reader.close()
    _print_json(result.to_dict())
    return EXIT_OK if result.outcome == "complete" else EXIT_TRUNCATED


def _print_json(obj: object) -> None:
    try:
        out = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the provider: escape it instead
        out = json.dumps(obj).encode("ascii")
    sys.stdout.buffer.write(out + b"\n")
    sys.stdout.buffer.flush()
