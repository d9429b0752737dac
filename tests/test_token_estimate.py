"""The token estimate against real tokenizers, and what the window does with it (issue 34,
item 1): the estimate is at least what Qwen2.5's and OpenAI's cl100k_base tokenizers count for
prose, code, digits and CJK text (tests/fixtures/tokens/counts.json, recorded by
record_counts.py there), tool output is cut to what is left, the server's counts calibrate it,
and the output budget a request asks for fits the window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.context_keeper import ContextKeeper, ContextSettings
from tui_agent.context.estimate import estimate_tokens
from tui_agent.context.fit import fit_output
from tui_agent.context.overflow import overflow_prompt_tokens
from tui_agent.context.window import ContextWindow
from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.stream.turn import ToolCall

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, Home

COUNTS = json.loads((Path(__file__).parent / "fixtures" / "tokens" / "counts.json").read_text())
SAMPLES: list[dict[str, Any]] = COUNTS["samples"]
KINDS = {"prose", "code", "digits", "cjk", "other"}


def test_the_fixture_covers_every_kind_of_text() -> None:
    assert {s["kind"] for s in SAMPLES} == KINDS
    assert set(COUNTS["tokenizers"]) == {"qwen2.5", "cl100k_base"}


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["name"] for s in SAMPLES])
def test_the_estimate_is_never_below_a_real_tokenizer(sample: dict[str, Any]) -> None:
    estimate = estimate_tokens(sample["text"])
    counts = sample["tokens"].values()
    assert estimate >= max(counts), (estimate, sample["tokens"])
    # Conservative, not absurd: at most about twice the tokenizer that counts fewest.
    assert estimate <= 2.2 * min(counts), (estimate, sample["tokens"])


def test_the_old_estimate_let_digits_through() -> None:
    # About 3.5 bytes a token, as before: a numeric CSV counted a third of what Qwen counts.
    (csv,) = (s for s in SAMPLES if s["name"] == "digits_csv")
    old = len(csv["text"].encode()) / 3.5
    assert old < csv["tokens"]["qwen2.5"] / 3
    assert estimate_tokens(csv["text"]) >= csv["tokens"]["qwen2.5"]


def _numeric_csv(rows: int) -> str:
    lines = ["id,timestamp,x,y,z,count"]
    for i in range(1, rows + 1):
        lines.append(
            f"{i},{1764700000 + 37 * i},{(i * 7919) % 200 - 100}.{i * 104729 % 10**6:06d},"
            f"0.{i * 15485863 % 10**8:08d},{i % 97}.{i % 10000:04d},{i * 31 % 99999}"
        )
    return "\n".join(lines) + "\n"


def _keeper(window: int = 2048) -> ContextKeeper:
    return ContextKeeper(ContextSettings(window=ContextWindow(window, "server")))


def test_a_thousand_line_csv_is_cut_to_what_is_left_of_a_2048_window() -> None:
    text = _numeric_csv(1000)
    keeper = _keeper()
    used = 1346  # what llama.cpp counted for the turn that asked for it (tools and all)
    out = keeper.fit(text, used, 8192)
    assert out != text and "cut to fit the model's context window" in out
    assert out.startswith("id,timestamp,x,y,z,count\n1,")
    assert all(line.count(",") == 5 for line in out.split("\n[output cut")[0].splitlines())
    # Every digit is a token to Qwen: the result, the request before it and the output budget
    # the request asks for fit the window together.
    digits = sum(ch.isdigit() for ch in out)
    assert estimate_tokens(out) >= digits
    request = used + estimate_tokens(out)
    assert request + keeper.output_budget(8192, request) <= 2048


def test_fitting_keeps_whole_lines_and_says_how_much_is_left_out() -> None:
    text = _numeric_csv(1000)
    out = fit_output(text, 600)
    assert estimate_tokens(out) <= 600
    head, note, tail = out.partition("\n[output cut")[0], out, out.rsplit("]\n", 1)[1]
    assert all(line.count(",") == 5 for line in head.splitlines()[1:])
    assert all(line.count(",") == 5 for line in tail.splitlines())
    assert "lines, " in note and f"of {len(text.encode())} bytes not shown" in note


def test_calibration_scales_estimates_up_by_what_the_server_counted() -> None:
    keeper = _keeper(32_768)
    kept = [UserMessage("hello " * 100)]
    keeper.sending("system", [], kept)
    sent = keeper.estimate_all("system", [], kept)
    keeper.after_turn(0, kept, prompt_tokens=2 * sent)
    assert keeper.scale == pytest.approx(2.0)
    assert keeper.estimate_all("system", [], kept) == pytest.approx(2 * sent, abs=1)
    # A server that counts less never lowers the estimate below its own floor.
    keeper.sending("system", [], kept)
    keeper.after_turn(0, kept, prompt_tokens=1)
    assert keeper.scale == 1.0
    # And a tool result is fitted in the server's tokens.
    keeper.sending("system", [], kept)
    keeper.after_turn(0, kept, prompt_tokens=3 * sent)
    out = keeper.fit(_numeric_csv(1000), 1000, 8192)
    assert keeper.scaled(estimate_tokens(out)) <= 32_768 // 2 + 3


def test_an_overflow_naming_the_request_size_calibrates() -> None:
    error = (
        "request (2367 tokens) exceeds the available context size (2048 tokens), try "
        "increasing it (n_ctx 2048)"
    )
    assert overflow_prompt_tokens(error) == 2367
    assert overflow_prompt_tokens("prompt is too long: 1200 tokens > 1000 maximum") == 1200
    assert overflow_prompt_tokens("some other error 1200 tokens") is None


def test_the_output_budget_never_exceeds_what_the_window_leaves() -> None:
    keeper = _keeper()
    assert keeper.output_budget(8192, 1500) == 548
    assert keeper.output_budget(40, 1500) == 40  # a smaller budget asked is kept
    assert keeper.output_budget(8192, 2040) == 256  # past the window: the overflow will say
    assert ContextKeeper().output_budget(8192, 10**6) == 8192  # window unknown: as asked


def test_results_that_do_not_fit_are_cut_not_summarized() -> None:
    keeper = _keeper()
    call = ToolCall("call_1", "read_file", '{"path": "data.csv"}')
    big = _numeric_csv(1000)
    kept = [
        UserMessage("read data.csv"),
        AssistantMessage("openai-chat", "", (call,)),
        ToolResultMessage("call_1", "read_file", big),
    ]
    used = 1346 + estimate_tokens(big)
    cut = keeper.cut_results(kept, used, 8192)
    assert cut is not None
    messages, names, saved = cut
    assert names == ("read_file",)
    assert messages[:2] == kept[:2]
    result = messages[2]
    assert isinstance(result, ToolResultMessage) and "cut to fit" in result.output
    assert used - saved <= 2048 - keeper.reserve(8192)
    # Nothing to cut when the request fits, or when no result is the newest message.
    assert keeper.cut_results(messages, used - saved, 8192) is None
    assert keeper.cut_results([*kept, AssistantMessage("openai-chat", "ok")], used, 8192) is None


LLAMACPP = Path(__file__).parent / "fixtures" / "llamacpp"


def test_run_cuts_a_large_numeric_read_to_a_2048_window_and_goes_on(home: Home) -> None:
    """The issue's case through `run`, on llama.cpp's Chat Completions shape: the CSV is cut to
    what is left, the request that carries it fits the window (every digit a token, as Qwen
    counts them), and the conversation goes on."""
    rows = "".join(f"{i},{1764700000 + 37 * i},{i * 7919 % 10**6}.{i % 997}\n" for i in range(1000))
    (home.workspace / "data.csv").write_text("id,timestamp,value\n" + rows)
    home.settings(context_window=2048)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply((LLAMACPP / "chat-read-csv-call.written.sse").read_bytes()),
            Reply((LLAMACPP / "chat-answer-after-csv.written.sse").read_bytes()),
        )
        done = home.run(server, "read data.csv", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert "The file has 1000 rows." in done.stdout
    second = server.requests[1].json
    (result,) = [m for m in second["messages"] if m.get("role") == "tool"]
    assert "cut to fit the model's context window" in result["content"]
    digits = sum(ch.isdigit() for ch in result["content"])
    limit = second.get("max_tokens") or second.get("max_completion_tokens")
    assert 1338 + digits + limit <= 2048, (digits, limit)


def test_the_ascii_spelt_classes_are_the_negated_ones() -> None:
    """estimate.py spells two classes as ASCII ranges (cheaper to compile); they hold exactly the
    characters of the negated classes they stand for (all of ASCII and a sample beyond)."""
    import re

    from tui_agent.context import estimate

    pairs = (
        (estimate._NOT_WORD, r"[^\r\n0-9A-Za-z\x80-\U0010ffff]"),
        (estimate._SYMBOL, r"[^\s0-9A-Za-z\x80-\U0010ffff]"),
    )
    points = [*range(0x300), *range(0x300, 0x110000, 97), 0xFFFF, 0x10000, 0x10FFFF]
    for spelt, negated in pairs:
        ours, theirs = re.compile(spelt), re.compile(negated)
        for point in points:
            char = chr(point)
            assert bool(ours.fullmatch(char)) == bool(theirs.fullmatch(char)), hex(point)
