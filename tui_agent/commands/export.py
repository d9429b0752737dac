"""`tui-agent export ID --format markdown|json [-o FILE] [--force]`.

The session is only read, so ID may be an id, a unique prefix of one, or the path of any
session file. Markdown is for a person (``export_markdown``); JSON is the full record:
``{"header": ..., "records": [...], "problems": [...]}``, every record as stored, raw provider
events included, so it loads back into the same records. Both pass through the export redactor
once more. With ``-o FILE`` the file is written 0600 and an existing file is kept unless
``--force``; otherwise the export goes to stdout. Lines of the session file that had to be
skipped are in the export and counted in one warning on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..session import (
    LoadedSession,
    Redactor,
    SessionError,
    SessionStore,
    redact_record,
    redact_session,
)
from .exit_status import EXIT_OK, EXIT_USAGE
from .output import export_redactor, fail, write_stdout

COMMAND = "export"


def main(args: argparse.Namespace) -> int:
    try:
        loaded = SessionStore().load(args.session)
    except SessionError as exc:
        return fail(COMMAND, str(exc))
    redactor = export_redactor()
    if args.format == "json":
        text = export_json(loaded, redactor)
    else:
        from .export_markdown import render_markdown

        # Redacted before it is rendered too: rendering may reshape text a key hides in.
        text = redactor.redact(render_markdown(redact_session(loaded, redactor)))
    if loaded.problems:
        count = len(loaded.problems)
        print(
            f"tui-agent export: warning: {count} problem{'s' if count != 1 else ''} reading "
            "the session file (listed in the export)",
            file=sys.stderr,
        )
    if args.output is None or args.output == "-":
        return EXIT_OK if write_stdout(text) else EXIT_USAGE
    try:
        write_private(Path(args.output).expanduser(), text, force=args.force)
    except FileExistsError:
        return fail(COMMAND, f"{args.output} exists; pass --force to overwrite it")
    except OSError as exc:
        return fail(COMMAND, f"cannot write {args.output}: {exc.strerror or exc}")
    from ..text.sanitize import visible_line

    shown = visible_line(str(args.output))
    print(
        f"tui-agent export: wrote {len(text.encode('utf-8', 'backslashreplace')):,} bytes "
        f"({args.format}) to {shown}",
        file=sys.stderr,
    )
    return EXIT_OK


def export_json(loaded: LoadedSession, redactor: Redactor) -> str:
    """The full record as one line of JSON (ASCII: nothing in it can act on a terminal)."""
    document: dict[str, Any] = {
        "header": redact_record(loaded.header, redactor).model_dump(mode="json"),
        "records": [redact_record(r, redactor).model_dump(mode="json") for r in loaded.records],
        "problems": [redactor.redact(problem) for problem in loaded.problems],
    }
    return json.dumps(document, ensure_ascii=True, separators=(",", ":")) + "\n"


def write_private(path: Path, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` as a 0600 file.

    Without ``force`` an existing file (or a dangling symlink) raises FileExistsError and is
    left alone; with it, the file is replaced whole (a temporary file renamed over it).
    """
    data = text.encode("utf-8", "backslashreplace")
    if path.is_dir():
        raise IsADirectoryError(21, "it is a folder", str(path))
    if not force:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, data)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        os.close(fd)
        return
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")  # 0600
    try:
        _write_all(fd, data)
        os.close(fd)
        fd = -1
        os.replace(temp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
