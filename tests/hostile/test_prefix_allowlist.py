"""Prefix rules come from an allowlist: a program not known to be safe for one gets none.

The hostile round's cases (issue 23): prefix rules for ``prlimit``, ``ssh-agent``, ``run-parts``
and ``pytest`` were accepted, so a rule kept for one auto-ran ``prlimit ... sh -c``, a
``run-parts`` folder the agent wrote, a planted ``conftest.py``. Each is refused now, in
config.toml with the reason, and a rule built around that check still never matches: the
command is asked, and the planted code does not run. Beyond the cases: every program not on the
list is refused (any word, and every program installed on this machine), a listed program's name
in disguise (a folder, another case, a suffix) is refused, a glob that expands into ``-exec``
never matches, and neither does anything while PATH holds a relative folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui_agent.agent.events import ToolStarted
from tui_agent.approval import AllowCommandPrefix, RuleError, approve, deny
from tui_agent.approval.launchers import (
    PREFIX_PROGRAMS,
    command_refusal,
    prefix_refusal,
    shadowing_folder,
)
from tui_agent.config import ConfigError
from tui_agent.config.load import parse_config

from ..agent_helpers import ScriptedApprover, agent_over, answer, call_ops, decided, of_type
from ..fake_provider import Reply

PROTOCOL = "openai-chat"


def _built_around_the_check(words: tuple[str, ...]) -> AllowCommandPrefix:
    """A rule that skipped ``__post_init__`` (a future loader, pickling, a bug elsewhere)."""
    rule = object.__new__(AllowCommandPrefix)
    object.__setattr__(rule, "words", words)
    return rule


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _plant_run_parts(workspace: Path) -> None:
    (workspace / "parts").mkdir()
    _executable(workspace / "parts" / "10-hit", "#!/bin/sh\ntouch HIT\n")


def _plant_conftest(workspace: Path) -> None:
    (workspace / "conftest.py").write_text('open("HIT", "w").close()\n')
    (workspace / "test_x.py").write_text("def test_x():\n    pass\n")


# The four found cases: the prefix kept, the command it then allowed, what the agent planted.
FOUND = {
    "prlimit": ("prlimit", "prlimit --nofile=64 sh -c 'touch HIT'", None),
    "ssh-agent": ("ssh-agent", "ssh-agent sh -c 'touch HIT'", None),
    "run-parts": ("run-parts", "run-parts parts", _plant_run_parts),
    "pytest": ("pytest", "pytest -q -p no:cacheprovider", _plant_conftest),
}


@pytest.mark.parametrize("case", FOUND)
async def test_a_found_launcher_gets_no_rule_and_its_command_is_asked(
    case: str, tmp_path: Path
) -> None:
    prefix, command, plant = FOUND[case]
    with pytest.raises(RuleError, match=f"^{prefix} "):
        AllowCommandPrefix.parse(prefix)
    toml = f'[approval]\nallowed_command_prefixes = ["{prefix}"]\n'
    with pytest.raises(ConfigError, match=r"approval\.allowed_command_prefixes.*" + prefix):
        parse_config(toml, tmp_path / "config.toml")

    # Built around the check anyway: the command is asked, and the planted code never runs.
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(("call_1", "run_command", {"command": command}))),
        answer(PROTOCOL),
        approver=ScriptedApprover(deny("no")),
        rules=[_built_around_the_check((prefix,))],
    ) as h:
        if plant is not None:
            plant(h.workspace)
        events = await h.send("run it")
        assert [r.call_id for r in h.approver.requests] == ["call_1"]
        assert decided(events)["call_1"].by == "user"
        assert of_type(events, ToolStarted) == []
        assert not (h.workspace / "HIT").exists()


@pytest.mark.parametrize("case", ["prlimit", "ssh-agent", "run-parts"])
async def test_the_found_commands_do_run_what_was_planted_once_approved(
    case: str, tmp_path: Path
) -> None:
    """The control: approved by a person, the same command runs the planted code, so the test
    above would have seen it had the rule matched."""
    _, command, plant = FOUND[case]
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(("call_1", "run_command", {"command": command}))),
        answer(PROTOCOL),
        approver=ScriptedApprover(approve()),
    ) as h:
        if plant is not None:
            plant(h.workspace)
        await h.send("run it")
        assert (h.workspace / "HIT").exists()


_NOT_LISTED = st.text(min_size=1, max_size=24).filter(lambda word: word not in PREFIX_PROGRAMS)


@given(_NOT_LISTED, st.lists(st.text(min_size=1, max_size=8), max_size=3))
def test_every_program_not_on_the_list_is_refused(first: str, rest: list[str]) -> None:
    with pytest.raises(RuleError):
        AllowCommandPrefix((first, *rest))
    assert command_refusal(shlex.join([first, *rest])) is not None


@given(
    st.sampled_from(sorted(PREFIX_PROGRAMS)),
    st.sampled_from(["/usr/bin/{}", "./{}", "/tmp/x/{}", "{}2", "{}.sh", "g{}", "\\{}"]),
)
def test_a_listed_name_in_disguise_is_refused(name: str, disguise: str) -> None:
    word = disguise.format(name)
    assert prefix_refusal([word]) is not None, word
    assert prefix_refusal([word.upper()]) is not None, word


def _installed_programs() -> list[str]:
    names: set[str] = set()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        names.update(entries)
    return sorted(names - set(PREFIX_PROGRAMS))


def test_every_installed_program_not_on_the_list_is_refused_with_its_name() -> None:
    installed = _installed_programs()
    assert len(installed) > 50  # a real machine's PATH, not an empty one
    for name in installed:
        why = prefix_refusal([name])
        assert why is not None and name in why, name


def test_the_listed_programs_get_a_rule() -> None:
    for name in PREFIX_PROGRAMS:
        assert AllowCommandPrefix((name,)).matches("run_command", {"command": f"{name} x"})


@pytest.mark.parametrize(
    "command",
    [
        "find . -e* tou* HIT \\;",
        "find . {-exec,touch,HIT,\\;}",
        "find . -maxdepth 0 ?exec touch HIT \\;",
        "find . [-]exec touch HIT \\;",
        'find . "$X"',
        "find . $X",
        "rg x *",
        "sort -u *",
        "fd x -- *",
    ],
)
def test_a_word_that_could_expand_into_an_option_never_matches(command: str) -> None:
    program = command.split()[0]
    assert not AllowCommandPrefix((program,)).matches("run_command", {"command": command})
    assert "could expand into an option" in (command_refusal(command) or "")


@pytest.mark.parametrize("command", ["find . -name '*.py'", "rg -g '*.py' x", "find . -name \\*"])
def test_a_quoted_pattern_still_matches(command: str) -> None:
    program = command.split()[0]
    assert AllowCommandPrefix((program,)).matches("run_command", {"command": command})


def _plant_exec_names(workspace: Path) -> None:
    (workspace / "-exec").write_text("")
    (workspace / "touch").write_text("")


GLOB_TO_EXEC = "find . -maxdepth 0 -e* tou* HIT \\;"


@pytest.mark.parametrize("approved", [False, True], ids=["by the rule", "by a person"])
async def test_a_glob_that_expands_into_exec_is_asked(approved: bool, tmp_path: Path) -> None:
    """Files named ``-exec`` and ``touch`` make ``-e* tou*`` the words ``-exec touch``: with a
    ``find`` rule the command is asked; approved by a person (the control), it does run."""
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(("call_1", "run_command", {"command": GLOB_TO_EXEC}))),
        answer(PROTOCOL),
        approver=ScriptedApprover(approve() if approved else deny("no")),
        rules=[AllowCommandPrefix(("find",))],
    ) as h:
        _plant_exec_names(h.workspace)
        events = await h.send("find")
        assert decided(events)["call_1"].by == "user"
        assert (h.workspace / "HIT").exists() is approved


@pytest.mark.parametrize("approved", [False, True], ids=["by the rule", "by a person"])
async def test_a_relative_path_folder_lets_no_rule_match(
    approved: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PATH starting with ``.`` runs the workspace's own ``ls``: with an ``ls`` rule the command
    is asked; approved by a person (the control), the planted ``ls`` does run."""
    monkeypatch.setenv("PATH", os.pathsep.join([".", os.environ.get("PATH", "/usr/bin:/bin")]))
    assert "PATH holds an empty or relative folder" in (command_refusal("ls -la") or "")
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(("call_1", "run_command", {"command": "ls -la"}))),
        answer(PROTOCOL),
        approver=ScriptedApprover(approve() if approved else deny("no")),
        rules=[AllowCommandPrefix(("ls",))],
    ) as h:
        _executable(h.workspace / "ls", "#!/bin/sh\n/usr/bin/touch HIT\n")
        events = await h.send("list")
        assert decided(events)["call_1"].by == "user"
        assert (h.workspace / "HIT").exists() is approved


@pytest.mark.parametrize("approved", [False, True], ids=["by the rule", "by a person"])
async def test_a_workspace_folder_early_in_path_lets_no_rule_match(
    approved: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A virtualenv inside the workspace, first in PATH (an activated ``.venv``): a command can
    write ``.venv/bin/ls``, so with an ``ls`` rule the command is asked; approved by a person
    (the control), the planted ``ls`` does run."""
    workspace_bin = tmp_path / "ws" / ".venv" / "bin"
    path = os.pathsep.join([str(workspace_bin), os.environ.get("PATH", "/usr/bin:/bin")])
    monkeypatch.setenv("PATH", path)
    assert command_refusal("ls -la") is None  # the words alone are fine: the folder is not
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(("call_1", "run_command", {"command": "ls -la"}))),
        answer(PROTOCOL),
        approver=ScriptedApprover(approve() if approved else deny("no")),
        rules=[AllowCommandPrefix(("ls",))],
    ) as h:
        workspace_bin.mkdir(parents=True)
        _executable(workspace_bin / "ls", "#!/bin/sh\n/usr/bin/touch HIT\n")
        assert shadowing_folder("ls", str(h.workspace)) == str(workspace_bin)
        assert shadowing_folder("echo", str(h.workspace)) is None  # /bin/sh's own
        events = await h.send("list")
        assert decided(events)["call_1"].by == "user"
        assert (h.workspace / "HIT").exists() is approved


def test_a_workspace_folder_anywhere_in_path_counts(tmp_path: Path) -> None:
    """Anywhere, not only before the program: ``rg -z`` runs ``gzip`` by name, and a found
    ``rg`` does not say where its helpers are found."""
    inside = tmp_path / "ws" / "bin"
    inside.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "ws" / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "outside").symlink_to(inside)
    workspace = str(tmp_path / "ws")
    found = os.path.dirname(shutil.which("ls") or "/usr/bin/ls")
    assert shadowing_folder("ls", workspace, f"{found}:{inside}") == str(inside)
    assert shadowing_folder("ls", workspace, f"{found}:{tmp_path / 'outside'}") is not None
    assert shadowing_folder("ls", workspace, f"{found}:{tmp_path / 'ws-other'}") is None
    assert shadowing_folder("ls", workspace, f"{found}:{tmp_path / 'ws' / 'link'}") is None
    assert shadowing_folder("ls", workspace, f"{found}:.") == "."
    assert shadowing_folder("ls", workspace, f"{found}::/bin") == "(an empty entry)"
    assert shadowing_folder("echo", workspace, f"{inside}") is None
