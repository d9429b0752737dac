"""git as the app itself runs it (the @ file index, checkpoints, rewind): the one way in.

A workspace is not trusted: a command the agent ran, or whoever made the folder, can write its
``.git/config``, ``.git/hooks`` and ``.gitattributes``. git reads all three and several of their
settings name a program git then runs (``core.fsmonitor`` on every ``ls-files``, hooks, filter
drivers, textconv, pagers, editors, credential helpers, ssh commands...). The app's git runs
outside the sandbox, so the rule for every git command the app starts is:

- **The program**: ``git`` found on the absolute ``PATH`` entries that are not inside the
  workspace (a relative entry or the workspace's own ``bin`` would let it plant ``git``).
- **The environment**: built from nothing: ``PATH`` (those entries), ``HOME``, the locale, and
  only the ``GIT_*`` variables the caller passes; no API key, no ``GIT_CONFIG_*`` or
  ``GIT_EXEC_PATH`` of the person's shell. ``GIT_CONFIG_NOSYSTEM=1`` and
  ``GIT_CONFIG_GLOBAL=/dev/null`` leave out the system and the person's config (so nothing
  there names a program either); ``GIT_ATTR_NOSYSTEM=1`` the system attributes;
  ``GIT_NO_LAZY_FETCH=1``, ``GIT_TERMINAL_PROMPT=0``; ``GIT_PAGER``/``GIT_EDITOR`` inert.
- **The repository's own config** cannot be left out by any git option, so every setting of it
  that can run a program is overridden on the command line (``-c`` is read last and wins over
  every file, whatever ``include.path``/``includeIf`` pulls in): ``core.fsmonitor``,
  ``core.hooksPath=/dev/null`` (no hook can exist in it), ``core.sshCommand``,
  ``protocol.allow=never`` (no transport at all, so no ssh, proxy, askpass, credential helper or
  remote helper), ``core.pager``/``--no-pager``, ``core.editor``/``sequence.editor``,
  ``credential.helper``, ``gpg.program`` family, ``submodule.recurse``, ``gc.auto=0`` and
  ``maintenance.auto`` (no background gc); ``safe.bareRepository=explicit`` (a workspace laid
  out as a bare repository is not taken for one: only ``GIT_DIR`` names a bare repository).
  The settings whose name holds a driver's name (``filter.<x>.clean/smudge/process``,
  ``diff.<x>.textconv``, ``merge.<x>.driver``) cannot be overridden one by one: the app never
  runs a command that uses them on the workspace's repository (only ``ls-files`` and
  ``config --file``, which read no content), and its own shadow repository has no such setting
  and sets every attribute that would select one off (``SHADOW_ATTRIBUTES``, kept in its
  ``info/attributes``, which outranks every ``.gitattributes``; see ``checkpoints/shadow.py``).
- Standard input is closed and output captured: nothing can prompt.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

GIT_TIMEOUT_S = 60.0

# Attributes for a repository that stores bytes exactly: no end-of-line conversion, no $Id$
# expansion, no filter driver, no re-encoding, no textconv or merge driver. ``crlf`` is the old
# name of ``text``.
SHADOW_ATTRIBUTES = (
    "* -text -crlf -eol -ident -filter -working-tree-encoding -diff -merge -export-subst\n"
)


class GitMissingError(RuntimeError):
    """No git program outside the workspace."""


def overrides() -> list[str]:
    """The ``-c`` options every app git command starts with (see the module's docstring)."""
    settings = (
        ("core.fsmonitor", "false"),
        ("core.untrackedCache", "false"),
        ("core.hooksPath", os.devnull),  # git looks for a file inside: none exists
        ("core.sshCommand", "false"),
        ("core.askPass", ""),
        ("core.pager", "cat"),
        ("core.editor", "false"),
        ("sequence.editor", "false"),
        ("core.attributesFile", os.devnull),
        ("credential.helper", ""),
        ("protocol.allow", "never"),
        ("safe.bareRepository", "explicit"),  # a workspace laid out as a bare repository: not one
        ("submodule.recurse", "false"),
        ("gpg.program", "false"),
        ("gpg.x509.program", "false"),
        ("gpg.ssh.program", "false"),
        ("commit.gpgSign", "false"),
        ("tag.gpgSign", "false"),
        ("gc.auto", "0"),
        ("maintenance.auto", "false"),
        ("core.quotePath", "off"),
    )
    out: list[str] = ["--no-pager"]
    for key, value in settings:
        out += ["-c", f"{key}={value}"]
    return out


def search_path(workspace: Path | None) -> list[str]:
    """The ``PATH`` entries git is looked for on: absolute, existing, not inside the workspace."""
    inside = os.path.realpath(workspace) if workspace is not None else None
    found: list[str] = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if inside is not None and (real == inside or real.startswith(inside + os.sep)):
            continue
        if real not in found and os.path.isdir(real):
            found.append(entry)
    return found


def git_program(workspace: Path | None) -> str:
    for entry in search_path(workspace):
        candidate = os.path.join(entry, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise GitMissingError("git is not installed (none on PATH outside the workspace)")


def environment(workspace: Path | None, extra: Mapping[str, str] = {}) -> dict[str, str]:
    """git's whole environment: nothing of the app's but the path, home and locale."""
    env = {
        "PATH": os.pathsep.join(search_path(workspace)) or os.defpath,
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_PAGER": "cat",
        "GIT_EDITOR": "false",
        "GIT_ASKPASS": "",
        "SSH_ASKPASS": "",
    }
    for name in ("HOME", "TMPDIR"):
        value = os.environ.get(name)
        if value and os.path.isabs(value):
            env[name] = value
    env.update(extra)
    return env


def run(
    args: Sequence[str],
    *,
    workspace: Path | None,
    cwd: Path,
    env: Mapping[str, str] = {},
    data: bytes | None = None,
    timeout: float = GIT_TIMEOUT_S,
    preexec: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """One git command, the app's way. ``workspace``: the folder git must not take a program
    from; ``env``: the ``GIT_*`` variables this command needs (``GIT_DIR`` and such). Raises
    ``GitMissingError``, ``OSError`` and ``subprocess.TimeoutExpired``. ``preexec``: the
    sandbox's confinement (``confine.confinement``), where the command fits in it."""
    return subprocess.run(
        [git_program(workspace), *overrides(), *args],
        input=data,
        stdin=None if data is not None else subprocess.DEVNULL,
        capture_output=True,
        cwd=cwd,
        env=environment(workspace, env),
        timeout=timeout,
        check=False,
        preexec_fn=preexec,
    )
