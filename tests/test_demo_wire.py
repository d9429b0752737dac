"""Cutting a script into stream pieces: nothing lost, fragments of 3 to 8 characters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui_agent.demo.wire import TEXT_PIECE_CHARS, argument_fragments, text_pieces


@given(st.text())
def test_text_pieces_join_back_and_break_after_words(text: str) -> None:
    pieces = text_pieces(text)
    assert "".join(pieces) == text
    assert all(pieces)
    for piece in pieces[:-1]:  # a piece ends after a word and its spaces, never inside a word
        assert len(piece) >= TEXT_PIECE_CHARS and piece[-1].isspace()


@given(st.text())
def test_argument_fragments_join_back_in_3_to_8_characters(arguments: str) -> None:
    fragments = argument_fragments(arguments)
    assert "".join(fragments) == arguments
    assert all(3 <= len(f) <= 8 for f in fragments[:-1])
    assert all(fragments)
