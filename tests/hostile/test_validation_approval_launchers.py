"""Validation and approval, part 4: a prefix rule never widens to code given inline or planted.

A prefix rule for an interpreter, launcher, build tool or test runner (``bash``, ``python``,
``env``, ``prlimit``, ``ssh-agent``, ``run-parts``, ``pytest``, ``find -exec``, ``git``...) would
allow ``bash -c '...; ...'`` or a planted ``conftest.py`` unasked. A prefix rule may only name a
program on the allowlist (``PREFIX_PROGRAMS``); any other is refused when it is made (typed,
offered by ``p``, read from config.toml) and, if one is built around that check, it still never
matches. End to end through the Agent over the fake provider, where a command that would have
run leaves a file behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import ToolStarted
from tui_agent.approval import (
    AllowCommandPrefix,
    ApprovalMode,
    ApprovalPolicy,
    RuleError,
    SessionRules,
    deny,
)
from tui_agent.config import ConfigError
from tui_agent.config.load import parse_config
from tui_agent.ui.widgets.approval_keys import default_prefix, no_prefix_reason, prefix_rule

from ..agent_helpers import ScriptedApprover, agent_over, answer, call_ops, decided, of_type
from ..fake_provider import Reply

PROTOCOL = "openai-chat"

# Each runs code or a command given in its own arguments; run, each would leave hit_<n>.
INLINE: dict[str, str] = {
    "sh -c": "sh -c 'touch hit_1; touch hit_1b'",
    "bash -c": "bash -c 'touch hit_2; touch hit_2b'",
    "zsh -c": "zsh -c 'touch hit_3'",
    "dash -c": "dash -c 'touch hit_4'",
    "python -c": 'python -c \'open("hit_5", "w")\'',
    "python3 -c": 'python3 -c \'open("hit_6", "w")\'',
    "python3.12 -c": 'python3.12 -c \'open("hit_7", "w")\'',
    "node -e": 'node -e \'require("fs").writeFileSync("hit_8", "")\'',
    "perl -e": "perl -e 'open F, \">hit_9\"'",
    "ruby -e": 'ruby -e \'File.write("hit_10", "")\'',
    "php -r": "php -r 'touch(\"hit_11\");'",
    "env": "env sh -c 'touch hit_12'",
    "/usr/bin/env": "/usr/bin/env sh -c 'touch hit_13'",
    "xargs": "xargs -a /dev/null -r sh -c 'touch hit_14'",
    "sudo": "sudo -n sh -c 'touch hit_15'",
    "nohup": "nohup sh -c 'touch hit_16'",
    "timeout": "timeout 5 sh -c 'touch hit_17'",
    "nice": "nice sh -c 'touch hit_18'",
    "stdbuf": "stdbuf -o0 sh -c 'touch hit_19'",
    "time": "time sh -c 'touch hit_20'",
    "command": "command sh -c 'touch hit_21'",
    "exec": "exec sh -c 'touch hit_22'",
    "eval": "eval 'touch hit_23'",
    "awk": "awk 'BEGIN { system(\"touch hit_24\") }'",
    "sed e": "sed -n '1e touch hit_25' /dev/null",
    "make --eval": "make --eval 'x:; touch hit_26' x",
    "BASH in capitals": "BASH -c 'touch hit_27'",
    "find -exec": "find . -maxdepth 0 -exec touch hit_28 {} +",
    "find -execdir": "find . -maxdepth 0 -execdir touch hit_29 {} +",
    "find -delete": "find . -name keep_me -delete",
    "find -fprintf": "find . -maxdepth 0 -fprintf hit_30 x",
    "git -c alias": "git -c alias.x='!touch hit_31' x",
    "git alias": "git x",
    "git rebase --exec": "git rebase --exec 'touch hit_32' HEAD",
    "git log --output": "git log --output=hit_33",
    "git diff --out (abbreviated)": "git diff --out=hit_34",
    "a variable before the program": "PAGER='touch hit_35' git log",
    "rg --pre": "rg --pre ./hit.sh x",
    "tar old-style I": "tar cIf 'sh -c touch' a.tar .",
    "prlimit": "prlimit --nofile=64 sh -c 'touch hit_36'",
    "ssh-agent": "ssh-agent sh -c 'touch hit_37'",
    "run-parts": "run-parts parts",
    "pytest (a planted conftest.py)": "pytest -q -p no:cacheprovider",
    "setsid": "setsid sh -c 'touch hit_38'",
    "a path to ls": "/bin/ls --version",
    "a folder-relative program": "./ls",
}

# Prefixes someone might keep for the commands above, each of which would allow them.
WIDENING = [
    ("sh",),
    ("bash",),
    ("/bin/bash",),
    ("zsh",),
    ("dash",),
    ("fish",),
    ("python",),
    ("python3",),
    ("python3.12",),
    ("/usr/bin/python3",),
    ("node",),
    ("perl",),
    ("ruby",),
    ("php",),
    ("lua",),
    ("env",),
    ("xargs",),
    ("sudo",),
    ("doas",),
    ("su",),
    ("nohup",),
    ("timeout",),
    ("nice",),
    ("ionice",),
    ("stdbuf",),
    ("time",),
    ("command",),
    ("exec",),
    ("eval",),
    ("watch",),
    ("npx",),
    ("npm", "exec"),
    ("uv", "run"),
    ("make",),
    ("ssh",),
    ("awk",),
    ("sed",),
    ("BASH",),
    ("git",),
    ("git", "-c"),
    ("git", "x"),
    ("git", "rebase"),
    ("find", ".", "-exec"),
    ("FOO=1", "git", "status"),
    ("git", "status"),
    ("git", "ls-files"),
    ("prlimit",),
    ("prlimit", "--nofile=64"),
    ("ssh-agent",),
    ("run-parts",),
    ("pytest",),
    ("py.test",),
    ("tox",),
    ("jest",),
    ("pip",),
    ("cargo", "test"),
    ("gradle",),
    ("setsid",),
    ("jq",),
    ("/bin/ls",),
    ("./ls",),
    ("LS",),
    ("ls2",),
    ("busybox", "ls"),
    ("tar",),
    ("rsync",),
    ("less",),
    ("rg", "--pre=./x.sh"),
    ("rg", "--hostname-bin=./x.sh"),
    ("sort", "-o", "x"),
]


@pytest.mark.parametrize("words", WIDENING, ids=[" ".join(w) for w in WIDENING])
def test_a_widening_prefix_rule_cannot_be_made(words: tuple[str, ...]) -> None:
    with pytest.raises(RuleError):
        AllowCommandPrefix(words)


@pytest.mark.parametrize("words", WIDENING, ids=[" ".join(w) for w in WIDENING])
def test_a_widening_prefix_in_config_toml_is_refused_with_the_reason(
    words: tuple[str, ...], tmp_path: Path
) -> None:
    text = " ".join(words)
    toml = f"[approval]\nallowed_command_prefixes = [{text!r}]\n".replace("'", '"')
    with pytest.raises(ConfigError, match=r"approval\.allowed_command_prefixes"):
        parse_config(toml, tmp_path / "config.toml")


def _built_around_the_check(words: tuple[str, ...]) -> AllowCommandPrefix:
    """A rule that skipped ``__post_init__`` (a future loader, pickling, a bug elsewhere)."""
    rule = object.__new__(AllowCommandPrefix)
    object.__setattr__(rule, "words", words)
    return rule


@pytest.mark.parametrize("command", INLINE.values(), ids=INLINE.keys())
def test_no_prefix_rule_ever_matches_code_given_inline(command: str) -> None:
    arguments = {"command": command}
    words = command.split()
    for length in (1, 2, 3):
        rule = _built_around_the_check(tuple(words[:length]))
        assert not rule.matches("run_command", arguments), rule.words
        policy = ApprovalPolicy(ApprovalMode.ASK, SessionRules([rule]))
        assert policy.auto_approval("run_command", "execute", arguments) is None


@pytest.mark.parametrize("command", INLINE.values(), ids=INLINE.keys())
def test_p_offers_no_prefix_and_says_why(command: str) -> None:
    assert default_prefix(command) is None
    why = no_prefix_reason(command)
    assert "prefix rule" in why and "no prefix rule fits" not in why, why
    # Typing the program's name by hand keeps nothing either.
    assert isinstance(prefix_rule(command.split()[0], {"command": command}), str)


SAFE = {
    "find": ("find . -name '*.py'", ("find",)),
    "ls": ("ls -la src", ("ls",)),
    "ls with a glob": ("ls *.py", ("ls",)),
    "rg": ("rg -n TODO src", ("rg",)),
    "grep": ("grep -rn TODO src", ("grep",)),
    "cat": ("cat README.md", ("cat",)),
    "sort": ("sort -u names.txt", ("sort",)),
}


@pytest.mark.parametrize(("command", "words"), SAFE.values(), ids=SAFE.keys())
def test_plain_programs_still_get_a_prefix_rule(command: str, words: tuple[str, ...]) -> None:
    assert default_prefix(command) == " ".join(words)
    assert AllowCommandPrefix(words).matches("run_command", {"command": command})


async def test_end_to_end_inline_code_is_asked_and_never_runs(tmp_path: Path) -> None:
    """With widening rules in force (built around the check), every inline call is asked."""
    calls = [(f"call_{i}", "run_command", {"command": c}) for i, c in enumerate(INLINE.values())]
    rules = [_built_around_the_check(words) for words in WIDENING]
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(PROTOCOL),
        approver=ScriptedApprover(*[deny("no") for _ in calls]),
        rules=rules,
    ) as h:
        (h.workspace / "keep_me").write_text("")
        events = await h.send("run them")
        assert [r.call_id for r in h.approver.requests] == [c[0] for c in calls]
        assert all(d.by == "user" for d in decided(events).values())
        assert of_type(events, ToolStarted) == []
        assert sorted(p.name for p in h.workspace.iterdir()) == ["keep_me"]
