"""Validation and approval, part 3: the real app's prompt, driven by Pilot over real sockets.

What the prompt shows hashes the same as what the tool receives; a 1 MB argument is refused
with its reason, and one just under the limit is shown in full, never clipped; keys typed
before the prompt appeared, during its arming delay, or as a double press approve nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import json

from textual.pilot import Pilot
from textual.widgets import TextArea

from tui_agent.sandbox.binding import bound_digest
from tui_agent.tools.arguments import arguments_digest, canonical_json
from tui_agent.ui.arming import PAUSE_S as TYPING_PAUSE_S
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.folded_text import FoldedText, fold_offsets

from ..agent_helpers import sent_results
from ..approval_prompt_app import screen_text
from ..fake_provider import ExpectToolResults, FakeProvider, Reply, StallBeforeTerminal
from ..support.clock import ManualClock, leap_until
from ..ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
LIMIT = 1_000_000  # bytes of argument string the prompt can show (LoopSettings)

# A user tool that writes exactly the argv it received, NUL-separated, to got.bin.
RECORD_TOOL = """
[[tools]]
name = "record"
description = "Record two values."
program = "sh"
args = ["-c", 'printf "%s\\0" "$@" > got.bin', "record", "{a}", "{b}"]
risk = "write"
[tools.parameters.a]
type = "string"
required = true
[tools.parameters.b]
type = "string"
required = true
"""


def _write(call_id: str, name: str) -> tuple[str, str, dict[str, str]]:
    return (call_id, "write_file", {"path": name, "content": f"{name} body\n"})


def _shown_rows(prompt: ApprovalPrompt) -> list[str]:
    """Every row of the prompt's argument view, as drawn (also the rows scrolled out of view)."""
    view = prompt.query_one("#arguments", FoldedText)
    return [view.render_line(y).text for y in range(view.row_count)]


async def test_the_hash_of_the_arguments_shown_equals_the_hash_of_the_arguments_executed(
    env: AppEnv,
) -> None:
    """Spelled with escapes, odd spacing and key order by the model; shown, edited view, run.

    The decision's hash binds the arguments and the sandbox the call runs under: the prompt's
    digest (recorded with the decision and at the start of the run) is ``bound_digest`` of the
    arguments' digest and the session's policy, and the arguments shown, offered to edit and
    received by the program all hash to the arguments' digest."""
    config = env.root / "config" / "tui-agent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(RECORD_TOOL)
    value_a = '[b]bold?[/b] [@click=app.quit]x[/] é 😀 中文 tab\there \\ "q"'
    value_b = "two  spaces, trailing   "
    spelled = (
        '{ "b" :"two  spaces, trailing   " ,\n  "a": "[b]bold?[/b] [@click=app.quit]x[/] '
        '\\u00e9 \\ud83d\\ude00 中文 tab\\there \\\\ \\"q\\"" }'
    )
    expected = {"a": value_a, "b": value_b}
    assert json.loads(spelled) == expected
    digest = arguments_digest(expected)
    ops = [("call", 0, "call_R", "record"), ("args", 0, spelled), ("close", 0)]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        expect = ExpectToolResults({"call_R": "exit code 0"})
        server.script(Reply(ops), answer(PROTOCOL, "Recorded.", expect=expect))
        async with running(server, env) as (app, pilot):
            await send(pilot, "record it")
            prompt = await armed_prompt(pilot)
            assert app.host is not None
            runner = app.host.agent.calls
            spec = runner.registry.get("record")
            assert spec is not None
            policy = runner.gate.policy_for(spec, runner.context)
            assert policy is not None and prompt.request.sandbox == policy.label()
            bound = bound_digest(digest, policy)
            assert prompt.request.digest == bound != digest
            # What the prompt draws, read back as JSON (no row is folded at this width).
            shown = json.loads("\n".join(row.rstrip() for row in _shown_rows(prompt)))
            assert arguments_digest(shown) == digest
            # What "e" offers to edit is the same value.
            await pilot.press("e")
            edited = json.loads(app.query_one("#editor", TextArea).text)
            assert arguments_digest(edited) == digest
            await pilot.press("escape")
            await leap_until(pilot, lambda: prompt.armed, "the prompt to arm again")
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Recorded.")
        received = (env.workspace / "got.bin").read_bytes().decode().split("\0")[:-1]
        assert arguments_digest(dict(zip(["a", "b"], received, strict=True))) == digest
        records = env.records()
        [decision] = [r for r in records if r["type"] == "decision"]
        [start] = [r for r in records if r["type"] == "tool_start"]
        assert decision["digest"] == start["digest"] == bound
        assert digest == hashlib.sha256(canonical_json(expected).encode()).hexdigest()
        server.assert_all_consumed()


def _big_content(size: int) -> str:
    """ASCII numbered in steps of 8 characters, so any cut or gap shows; ends with END."""
    body = "".join(f"{i:07d}," for i in range(size // 8 + 1))
    return body[: size - 3] + "END"


async def test_a_1_mb_argument_is_refused_with_its_reason_never_clipped(env: AppEnv) -> None:
    content = _big_content(1 << 20)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        expect = ExpectToolResults({"call_B": "too large to show in full"})
        server.script(
            Reply(call_ops(("call_B", "write_file", {"path": "big.txt", "content": content}))),
            answer(PROTOCOL, "Understood.", expect=expect),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write a big file")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Understood.")
            assert not app.query(ApprovalPrompt)
            assert [card.state for card in cards(app)] == ["denied"]
        decisions = [r for r in env.records() if r["type"] == "decision"]
        assert [(d["decision"], d["by"]) for d in decisions] == [("refused", "policy")]
        assert "too large to show in full" in decisions[0]["reason"]
        told = sent_results(PROTOCOL, server.requests[1].json)["call_B"]
        assert told.startswith("refused: arguments of ") and "not offered" in told
        assert not (env.workspace / "big.txt").exists()
        server.assert_all_consumed()


def _assert_drawn_in_full(prompt: ApprovalPrompt, content: str) -> None:
    """Every character of ``content`` is on a row of the prompt, in order: nothing clipped.

    The content is one line (shown as new content, or as the "+" line of a diff); its rows are
    found, checked to cover it end to end, and a sample of them (first, last, every ~1%) is
    drawn and compared: drawing all ~9,000 rows of a 1 MB line would take seconds.
    """
    view = prompt.query_one("#arguments", FoldedText)
    width = view.scrollable_content_region.width
    head = [view.render_line(y).text for y in range(min(10, view.row_count))]
    first = next(y for y, row in enumerate(head) if row.lstrip("+").startswith(content[:16]))
    line = head[first][: head[first].index(content[:16])] + content
    offsets = list(fold_offsets(line, width))
    assert offsets[0][0] == 0 and offsets[-1][1] == len(line)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(offsets))
    assert view.row_count >= first + len(offsets)
    sample = {*range(0, len(offsets), max(1, len(offsets) // 100)), len(offsets) - 1}
    for k in sorted(sample):
        start, end = offsets[k]
        assert view.render_line(first + k).text.rstrip() == line[start:end], k


async def test_an_argument_just_under_1_mb_is_shown_in_full_and_runs_whole(env: AppEnv) -> None:
    overhead = len(json.dumps({"path": "big.txt", "content": ""}))
    content = _big_content(LIMIT - overhead - 10)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_B", "write_file", {"path": "big.txt", "content": content}))),
            answer(PROTOCOL, "Written.", expect=ExpectToolResults({"call_B": "written"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write a big file")
            prompt = await armed_prompt(pilot)
            assert "big.txt" in screen_text(app)
            _assert_drawn_in_full(prompt, content)
            view = prompt.query_one("#arguments", FoldedText)
            assert view.max_scroll_y > 0
            assert "END" not in screen_text(app)
            await pilot.press("end")
            await wait_for(pilot, lambda: view.scroll_y == view.max_scroll_y, "the last row")
            assert content[-20:] in screen_text(app)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Written.")
        assert (env.workspace / "big.txt").read_text() == content
        server.assert_all_consumed()


# Moved from tests/test_ui_app_approval.py.
async def test_a_key_during_the_arming_delay_does_nothing(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(_write("call_W", "a.txt"))),
            answer(PROTOCOL, "OK.", expect=ExpectToolResults({"call_W": "denied by user"})),
        )
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await send(pilot, "write a.txt")
            prompt = await _focused_prompt(pilot)
            await _key_while_arming(pilot, prompt, "y")
            # The key goes back to the message box with focus; the prompt waits for a pause.
            assert prompt_text(app) == "y"
            assert cards(app)[0].state == "waiting"
            await _until_armed(pilot, prompt)
            assert prompt.decision is None
            await pilot.press("n")
            await wait_idle_agent(pilot)
        assert not (env.workspace / "a.txt").exists()
        server.assert_all_consumed()


async def test_keys_typed_before_the_prompt_appeared_go_to_the_message_box(env: AppEnv) -> None:
    """Keys typed while the call was still preparing are text in the input, not an approval."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(_write("call_W", "a.txt")), faults=StallBeforeTerminal()),
            answer(PROTOCOL, "OK."),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write a.txt")
            assert await server.wait_stalled_async(10.0)
            await wait_text(pilot, "preparing tool: write_file")
            await pilot.press("y", "y", "A", "t")
            server.release()
            prompt = await armed_prompt(pilot)
            assert prompt.decision is None
            assert prompt_text(app) == "yyAt"
            await pilot.press("n")
            await wait_idle_agent(pilot)
        assert not (env.workspace / "a.txt").exists()


async def _focused_prompt(pilot: Pilot[None], other_than: object = None) -> ApprovalPrompt:
    """The approval prompt (not ``other_than``) once its call is shown and, after the pause in
    typing passed on the app's clock (the test's), it took focus: its arming runs from then."""
    app = pilot.app

    def shown() -> bool:
        prompts = app.query(ApprovalPrompt)
        first = prompts.first() if prompts else None
        return first is not None and first is not other_than and first.mode != "loading"

    await wait_for(pilot, shown, "the call shown")
    prompt = app.query_one(ApprovalPrompt)
    for _ in range(100):  # 0.1 s steps: it has focus less than 0.1 s on the clock, never armed
        if app.focused is prompt:
            return prompt
        _clock(pilot).advance(0.1)
        await pilot.pause()
    raise AssertionError("the prompt never took focus")


def _clock(pilot: Pilot[None]) -> ManualClock:
    clock = pilot.app.clock  # type: ignore[attr-defined]
    assert isinstance(clock, ManualClock)
    return clock


async def _key_while_arming(pilot: Pilot[None], prompt: ApprovalPrompt, key: str) -> None:
    """``key`` pressed while ``prompt`` arms (the app's clock, the test's, has not moved since
    the prompt came): it decides nothing, however long the machine took."""
    assert not prompt.armed
    await pilot.press(key)
    assert prompt.decision is None, "a key pressed while arming decided"


async def _until_armed(pilot: Pilot[None], prompt: ApprovalPrompt) -> None:
    """The person stops typing: time passes on the app's clock until the prompt is armed."""
    clock = _clock(pilot)
    clock.advance(TYPING_PAUSE_S)
    for _ in range(100):
        clock.advance(0.1)
        await pilot.pause()
        if prompt.armed:
            return
    raise AssertionError("the prompt never armed")


async def test_a_double_press_approves_only_the_call_it_was_meant_for(env: AppEnv) -> None:
    """The second "y" of a double press lands while the next call's prompt is arming."""
    calls = [_write("call_1", "a.txt"), _write("call_2", "b.txt")]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        expect = ExpectToolResults({"call_1": "written", "call_2": "denied by user"})
        server.script(Reply(call_ops(*calls)), answer(PROTOCOL, "OK.", expect=expect))
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await send(pilot, "write both")
            first = await _focused_prompt(pilot)
            await _until_armed(pilot, first)
            await pilot.press("y")
            second = await _focused_prompt(pilot, other_than=first)  # no time passed
            assert first.decision is not None and first.decision.kind == "approve"
            await _key_while_arming(pilot, second, "y")
            await _until_armed(pilot, second)
            assert second.decision is None
            assert cards(app)[1].state == "waiting"
            await pilot.press("n")
            await wait_idle_agent(pilot)
        assert (env.workspace / "a.txt").exists()
        assert not (env.workspace / "b.txt").exists()
        server.assert_all_consumed()
