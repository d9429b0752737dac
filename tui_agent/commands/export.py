"""`tui-agent export ID --format markdown|json [-o FILE] [--force]`.

The session is only read, so ID may be an id, a unique prefix of one, or the path of any
session file. Markdown is for a person (``export/markdown.py``); JSON is the full record:
``{"header": ..., "records": [...], "problems": [...]}``, every record as stored, raw provider
events included, so it loads back into the same records. Both pass through the export redactor
once more. With ``-o FILE`` the file is written 0600 and an existing file is kept unless
``--force``; otherwise the export goes to stdout. Lines of the session file that had to be
skipped are in the export and counted in one warning on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..export.files import write_private
from ..export.redactor import export_redactor
from ..session import (
    LoadedSession,
    Redactor,
    SessionError,
    SessionStore,
    redact_record,
    redact_session,
)
from .exit_status import EXIT_OK, EXIT_USAGE
from .output import fail, write_stdout

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
        from ..export.markdown import render_markdown

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
