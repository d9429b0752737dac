"""The offline demo's own workspace: a folder of the app's data directory with sample files that
make every example of the README's demo section work ("read notes.md", "search TODO", "list
the files", "do both in parallel"...).

It is used when the profile is the demo model and the person named no workspace (neither
``--workspace`` nor ``[settings] workspace``). Each start writes the samples that are missing,
and never replaces a file that exists: what the person (or the demo's tools) changed is kept; a
sample they deleted comes back.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..session.paths import data_dir, demo_workspace_dir, ensure_private_dir

README = """\
# The demo workspace

tui-agent's offline demo model works in this folder when you name no workspace of your own
(`--workspace DIR`, or `workspace` under `[settings]` in config.toml). The files are samples to
try the tools on:

- `notes.md`: a few notes (try "read notes.md")
- `src/greet.py`: a small program with a to-do comment to search for (try "list src/")

Change or delete anything. At each start the demo writes back a sample that is missing; a file
that exists is never replaced.
"""

NOTES = """\
# Notes

- Every tool call waits for your approval: y runs it, n denies it, e edits its arguments.
- The demo model is offline: nothing you type here leaves this machine.
- TODO: write a file ("write notes.txt saying hello"), then edit it
  ("edit notes.txt: hello -> bye").
"""

GREET = '''\
"""A small program for the demo to read and search."""


def greet(name: str) -> str:
    # TODO: greet in more languages
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''

SAMPLES: dict[str, str] = {"README.md": README, "notes.md": NOTES, "src/greet.py": GREET}


def open_demo_workspace(folder: Path | None = None) -> Path:
    """The demo workspace (``demo_workspace_dir()`` unless ``folder``), made and seeded with
    the samples that are missing. Raises OSError when the folder cannot be made."""
    if folder is None:
        ensure_private_dir(data_dir())
        folder = demo_workspace_dir()
    ensure_private_dir(folder)
    seed(folder)
    return folder.resolve()


def seed(folder: Path) -> list[str]:
    """Write each sample that is missing (never over a file, folder or link already there);
    the names written. A sample that cannot be written is left out."""
    written = []
    for name, text in SAMPLES.items():
        path = folder / name
        if path.parent != folder and path.parent.is_symlink():
            continue  # written through a link it would land elsewhere
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(path, flags, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            written.append(name)
    return written


def demo_workspace_notice(folder: Path) -> str:
    """Where the demo works, said at start."""
    return (
        f"the demo works in its own folder {folder} (sample files: notes.md, README.md, src/); "
        "--workspace DIR works elsewhere"
    )
