"""The ``tui-agent`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import BinaryIO

EXIT_COMPLETE = 0
EXIT_UNUSABLE = 1
EXIT_TRUNCATED = 2
_READ_SIZE = 65536


def _parser() -> argparse.ArgumentParser:
    from .providers import PROTOCOLS

    parser = argparse.ArgumentParser(
        prog="tui-agent",
        description="A terminal chat UI for tool-using LLM agents.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
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
        "--protocol", required=True, metavar="P", help="one of: " + ", ".join(PROTOCOLS)
    )
    parse.add_argument("file", nargs="?", metavar="FILE", help="the body (default: stdin)")
    return parser


def _run_parse(protocol: str, path: str | None) -> int:
    from .providers import UnknownProtocolError
    from .turn_reader import TurnReader

    try:
        reader = TurnReader(protocol)
    except UnknownProtocolError as exc:
        print(f"tui-agent parse: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        stream: BinaryIO = open(path, "rb") if path else sys.stdin.buffer  # noqa: SIM115
    except OSError as exc:
        print(f"tui-agent parse: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        read = getattr(stream, "read1", stream.read)
        while chunk := read(_READ_SIZE):
            reader.feed(chunk)
    except OSError as exc:
        print(f"tui-agent parse: cannot read input: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    finally:
        if path:
            stream.close()
    result = reader.close()
    _print_json(result.to_dict())
    return EXIT_COMPLETE if result.outcome == "complete" else EXIT_TRUNCATED


def _print_json(obj: object) -> None:
    try:
        out = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from the provider: escape it instead
        out = json.dumps(obj).encode("ascii")
    sys.stdout.buffer.write(out + b"\n")
    sys.stdout.buffer.flush()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "parse":
        return _run_parse(args.protocol, args.file)
    _parser().print_help()
    return EXIT_COMPLETE


if __name__ == "__main__":
    sys.exit(main())
