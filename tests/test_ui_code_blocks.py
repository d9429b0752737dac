"""The code blocks of an answer, as the "copy last code block" key finds them."""

from __future__ import annotations

from tui_agent.ui.code_blocks import code_blocks, last_code_block


def test_fences_of_backticks_and_tildes_with_info_strings() -> None:
    text = (
        "Intro\n```python\nprint(1)\n```\ntext\n~~~~\na ``` b\n~~~~\n"
        "````md\n```\ninner\n```\n````\n"
    )
    assert code_blocks(text) == ["print(1)", "a ``` b", "```\ninner\n```"]
    assert last_code_block(text) == "```\ninner\n```"


def test_an_unclosed_fence_runs_to_the_end_and_no_block_is_none() -> None:
    assert code_blocks("x\n```\nlast line") == ["last line"]
    assert last_code_block("no code here") is None
