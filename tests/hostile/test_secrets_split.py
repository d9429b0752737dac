"""Secrets, split: keys hidden in every field of a stream, cut at random points, never come out.

A key (of a known shape, or one of the configured values in the environment) is hidden in the
text, the reasoning, the response id, the item ids, the call ids, a tool name, the arguments, a
tool's output and an error body; the streamed fields are cut at random points, inside the key
too. The stream is served by the fake provider over loopback and read by the real
``tui-agent run`` (text and --json), and then the session file, both exports and the log are
read: none may hold the key or any 16-character run of it. Hypothesis drives many cases in this
process; a few run as subprocesses, as a user runs them. ``StreamRedactor`` alone is checked
against redacting the whole text at once, with a bounded hold.
"""

from __future__ import annotations

import json
import string
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent.session import Redactor
from tui_agent.session.stream_redaction import HOLD_LIMIT, OPENING_LIMIT, StreamRedactor

from ..fake_provider import FakeProvider, Reply
from .secrets_helpers import KEY_ENVS, RUN_KEY, TUI_KEY
from .secrets_split_helpers import (
    SECRET_FILE,
    Hidden,
    SplitHome,
    cli_in_process,
    exposed,
    pieces,
    script,
)

CONFIGURED = tuple(KEY_ENVS.values())
_ALNUM = string.ascii_letters + string.digits


def _shape(prefix: str, size: int, alphabet: str = _ALNUM) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size + 12).map(lambda body: prefix + body)


KEYS = st.one_of(
    st.sampled_from(CONFIGURED),
    _shape("sk-proj-", 24),
    _shape("sk-ant-api03-", 30),
    _shape("sk-", 24),
    _shape("AIza", 35, _ALNUM + "_-").map(lambda key: key[:39]),
)
# What a key may follow: nothing, a space, or the separators ids use (a letter or digit right
# before a known shape makes it a word, such as "task-", and so not a key).
BEFORE = st.sampled_from(["", " ", "call_", "resp_", "id-", "(", '"', "\n", "=", "sk "])
AFTER = st.sampled_from(["", " ", ".", "_x", "-end", ") and more", "\n", " sk", " Bearer"])
WORDS = st.lists(
    st.sampled_from(
        ["hello", "s", "sk", "sk-", "AI", "AIza", "Bearer", "x-api-key:", "?key=", "-"]
    ),
    max_size=6,
).map(" ".join)
CUTS = st.lists(st.integers(0, 160), max_size=10).map(tuple)


@st.composite
def hidden_cases(draw: st.DrawFn) -> tuple[Hidden, list[str], bool]:
    """One turn with keys in every field; the keys it holds (the first is also in the
    workspace's file); whether the run prints --json."""
    keys = [draw(KEYS), draw(KEYS)]

    def hide() -> str:
        return draw(BEFORE) + draw(st.sampled_from(keys)) + draw(AFTER)

    def prose() -> str:
        return draw(WORDS) + " " + hide() + draw(WORDS)

    path = SECRET_FILE if draw(st.booleans()) else f"notes/{hide()}.txt"
    case = Hidden(
        text=prose(),
        reasoning=prose(),
        response_id="resp_" + hide(),
        message_id="msg-" + hide(),
        reasoning_id="rs_" + hide(),
        call_item_id="fc-" + hide(),
        call_id="call_" + hide(),
        name=hide().strip(),
        bad_call_id="call_" + hide(),
        arguments=json.dumps({"path": path}),
        error="invalid api key: " + hide(),
        text_cuts=draw(CUTS),
        reasoning_cuts=draw(CUTS),
        argument_cuts=draw(CUTS),
    )
    return case, keys, draw(st.booleans())


def _run_and_read(home: SplitHome, case: Hidden, as_json: bool) -> dict[str, str]:
    """The run (in this process) and both exports of its session: every output and file."""
    with FakeProvider("openai-responses", api_key=RUN_KEY) as server:
        script(server, case)
        extra = ("--json", "--debug") if as_json else ("--debug",)
        code, out, err = cli_in_process(home, home.argv_for(server, *extra))
        server.assert_all_consumed()
    assert code == 2, err  # the error that ends the run is the case's
    (session,) = home.sessions()
    outputs = {"stdout": out, "stderr": err}
    for fmt in ("markdown", "json"):
        target = str(home.root / f"export.{fmt}")
        code, out, err = cli_in_process(
            home, ["export", session.stem, "--format", fmt, "-o", target]
        )
        assert code == 0, err
        outputs[f"export {fmt} stdout"], outputs[f"export {fmt} stderr"] = out, err
    return {**outputs, **home.written()}


def _assert_nothing_exposed(seen: dict[str, str], keys: list[str], as_json: bool) -> None:
    # Not vacuous: the run wrote what is scanned, and showed the turn.
    assert any(name.endswith(".jsonl") for name in seen) and "export.markdown" in seen
    assert any(name.endswith("tui-agent.log") for name in seen), sorted(seen)
    assert "[REDACTED]" in seen["stdout" if as_json else "stderr"]
    for name, text in seen.items():
        assert not exposed(text, keys), f"{exposed(text, keys)} in {name}: {text[-2000:]}"


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=hidden_cases())
def test_keys_split_in_every_field_never_come_out_of_run_sessions_exports_or_logs(
    tmp_path_factory: pytest.TempPathFactory, drawn: tuple[Hidden, list[str], bool]
) -> None:
    case, keys, as_json = drawn
    home = SplitHome(tmp_path_factory.mktemp("home"))
    home.prepare(keys[0])
    _assert_nothing_exposed(_run_and_read(home, case, as_json), keys, as_json)


SHAPED = "sk-proj-" + "Zq7" * 10  # no one configured it: only its shape can redact it


def _fixed_case(key: str, other: str) -> Hidden:
    """Every field holds a key, each streamed one cut inside it."""
    text = f"The key is {key}, and {other} too."
    return Hidden(
        text=text,
        reasoning=f"I must not repeat {other} or {key}.",
        response_id=f"resp_{key}",
        message_id=f"msg-{other}",
        reasoning_id=f"rs_{key}",
        call_item_id=f"fc-{other}",
        call_id=f"call_{key}",
        name=other,
        bad_call_id=f"call_{other}",
        arguments=json.dumps({"path": SECRET_FILE}),
        error=f"Incorrect API key provided: {key}",
        text_cuts=tuple(range(14, len(text), 7)),
        reasoning_cuts=tuple(range(20, 80, 5)),
        argument_cuts=(3, 9),
    )


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_subprocess_run_and_its_exports_show_no_key_from_any_field(
    tmp_path: Path, as_json: bool
) -> None:
    home = SplitHome(tmp_path)
    home.prepare(RUN_KEY)
    case = _fixed_case(RUN_KEY, SHAPED)
    with FakeProvider("openai-responses", api_key=RUN_KEY) as server:
        script(server, case)
        argv = [sys.executable, "-m", "tui_agent.cli", *home.argv_for(server, "--debug")]
        done = home.run_argv([*argv, "--json"] if as_json else argv)
        server.assert_all_consumed()
    assert done.code == 2, done.stderr
    (session,) = home.sessions()
    seen = {"stdout": done.stdout, "stderr": done.stderr}
    for fmt in ("markdown", "json"):
        target = str(tmp_path / f"export.{fmt}")
        cli = [sys.executable, "-m", "tui_agent.cli", "export", session.stem]
        exported = home.run_argv([*cli, "--format", fmt, "-o", target])
        assert exported.code == 0, exported.stderr
    seen |= home.written()
    _assert_nothing_exposed(seen, [RUN_KEY, SHAPED, TUI_KEY], as_json)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("at", [3644, 4090, 8190])  # 3644: across the old cut at 3659
def test_a_key_in_a_very_long_word_is_never_cut_by_the_printer(
    tmp_path: Path, as_json: bool, at: int
) -> None:
    """A word longer than any limit, a key inside it straddling every former cut."""
    key = SHAPED
    word = "=" * at + key + "=" * 700
    ops = [("text", piece) for piece in pieces(word, range(0, len(word), 97))]
    home = SplitHome(tmp_path)
    with FakeProvider("openai-chat", api_key=RUN_KEY) as server:
        server.script(Reply(ops, stop="stop"))
        extra = ("--json",) if as_json else ()
        code, out, err = cli_in_process(home, home.argv_for(server, *extra))
    assert code == 0, err
    assert "sk-proj-[REDACTED]" in out
    assert not exposed(out + err, [key]), exposed(out + err, [key])


# -- the stream redactor alone ---------------------------------------------------------------

FILLER = st.lists(
    st.sampled_from(
        ["a", "sk", "s", "-", "_", " ", "\n", "task-", "AIza", "Bearer ", "x-api-key: ", "?key="]
    ),
    max_size=8,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.tuples(FILLER, KEYS, st.sampled_from(["", " ", "_", "(", "="])), max_size=4),
    tail=FILLER,
    cuts=st.lists(st.integers(0, 400), max_size=16),
)
def test_the_stream_redactor_shows_what_redacting_the_whole_text_shows(
    parts: list[tuple[str, str, str]], tail: str, cuts: list[int]
) -> None:
    redactor = Redactor(CONFIGURED)
    text = ""
    keys: list[str] = []
    words: list[str] = []  # a letter or digit right before a shape makes it a word, not a key
    for before, key, sep in parts:
        text += before + sep
        (keys if key in CONFIGURED or not _ends_word(text) else words).append(key)
        text += key
    text += tail
    stream = StreamRedactor(redactor)
    shown = []
    for piece in pieces(text, cuts):
        shown.append(stream.push(piece))
        assert len(stream.held) <= max(OPENING_LIMIT, HOLD_LIMIT)
    shown.append(stream.flush())
    assert "".join(shown) == redactor.redact(text)
    # A word may share runs with a key ("...9dsk-proj-000" and " sk-proj-000"): such a key is
    # not checked, since its runs are shown as part of the word.
    checked = [key for key in keys if not exposed(" ".join(words), [key])]
    assert not exposed("".join(shown), checked)


def _ends_word(text: str) -> bool:
    return bool(text) and text[-1].isalnum()
