"""What the session commands share: one-line errors and safe output.

- An error is one line on stderr, ``tui-agent <command>: <what went wrong>``, and exit 1.
- Text bound for a terminal has every control, format and invisible character made visible
  (``text.sanitize``, the one sanitizer), so a hostile title cannot drive the terminal.
- What is exported goes through ``export/redactor.py`` (below both front ends).
"""

from __future__ import annotations

import contextlib
import os
import sys

from .exit_status import EXIT_USAGE


def fail(command: str, message: str) -> int:
    """Print ``message`` as one line on stderr; returns the usage exit status."""
    from ..text.sanitize import visible_line

    line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    print(f"tui-agent {command}: {visible_line(line)}", file=sys.stderr)
    return EXIT_USAGE


def write_stdout(text: str) -> bool:
    """Write ``text`` to stdout as UTF-8; False when the reader went away (a closed pipe)."""
    try:
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        # Nothing more can be written; keep Python from complaining again at exit.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return False
    return True


def started_as(argv0: str | None = None) -> str:
    """The command as the person started it, for hints such as ``tui-agent -r ID``: the bare
    name when that is what PATH finds, else the path given (``.venv/bin/tui-agent``), or the
    interpreter's ``-m`` form."""
    import shlex
    import shutil
    from pathlib import Path

    given = sys.argv[0] if argv0 is None else argv0
    if Path(given).name != "tui-agent":  # python -m tui_agent (argv[0] is the module's file)
        return f"{shlex.quote(sys.executable)} -m tui_agent"
    on_path = shutil.which("tui-agent")
    with contextlib.suppress(OSError):
        if on_path is not None and Path(on_path).resolve() == Path(given).resolve():
            return "tui-agent"
    if given == "tui-agent" and on_path is not None:
        return "tui-agent"
    return shlex.quote(given)
