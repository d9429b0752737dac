"""Rendering, part 4: every default-ignorable code point is shown as an escape (issue 10).

A terminal draws nothing for a Default_Ignorable_Code_Point (U+FE0F, U+034F, the Mongolian
variation selectors, U+E0000-U+E0FFF...), so each can hide or smuggle text. The whole set, as
DerivedCoreProperties.txt (Unicode 15.1) lists it, goes through every sanitizer: alone, between
ASCII letters, between visible non-ASCII characters, and split between two streamed deltas. The
only characters kept are the deliberate ones of ``markdown_safe``: a joiner between visible
non-ASCII characters and one presentation selector right after one. The app-level check (every
byte written to the terminal, every surface) is ``terminal.assert_clean`` with the
``default-ignorable`` payloads of ``terminal.PAYLOADS``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui_agent.ui.sanitize import is_hidden, markdown_safe, safe_text, visible, visible_line

from .terminal import DEFAULT_IGNORABLE, IGNORABLE

SANITIZERS = {
    "visible": visible,
    "visible_line": visible_line,
    "safe_text": lambda text: safe_text(text).plain,
    "safe_text one line": lambda text: safe_text(text, one_line=True).plain,
    "markdown_safe": markdown_safe,
}
JOINERS = "\u200c\u200d"
SELECTORS = "\ufe0e\ufe0f"


def every_ignorable() -> list[str]:
    return [chr(code) for low, high in DEFAULT_IGNORABLE for code in range(low, high + 1)]


def test_the_set_is_the_one_unicode_lists() -> None:
    assert len(every_ignorable()) == 4174  # DerivedCoreProperties 15.1: "Total code points"
    assert all(is_hidden(char) for char in every_ignorable())


@pytest.mark.parametrize("name", SANITIZERS)
def test_every_default_ignorable_code_point_becomes_an_escape(name: str) -> None:
    sanitize = SANITIZERS[name]
    kept: dict[str, list[str]] = {}
    for char in every_ignorable():
        escape = f"<U+{ord(char):04X}>" if ord(char) >= 0x100 else f"\\x{ord(char):02x}"
        for label, text in (
            ("alone", char),
            ("between ASCII", f"a{char}b"),
            ("after ASCII at a delta end", f"a{char}"),
            ("twice after ASCII", f"a{char}{char}é"),
        ):
            out = sanitize(text)
            if IGNORABLE.search(out) or escape not in out:
                kept.setdefault(label, []).append(f"U+{ord(char):04X}")
    assert kept == {}


@pytest.mark.parametrize("name", SANITIZERS)
def test_between_visible_characters_only_the_deliberate_ones_are_kept(name: str) -> None:
    sanitize = SANITIZERS[name]
    deliberate = JOINERS + SELECTORS if name == "markdown_safe" else ""
    kept = [
        f"U+{ord(char):04X}"
        for char in every_ignorable()
        if IGNORABLE.search(sanitize(f"中{char}文"))
    ]
    assert kept == [f"U+{ord(char):04X}" for char in deliberate]


def test_the_emoji_rules_of_markdown_safe() -> None:
    heart, flag = "\u2764\ufe0f", "\U0001f3f3\ufe0f\u200d\U0001f308"
    assert markdown_safe(heart) == heart
    assert markdown_safe(flag) == flag
    assert markdown_safe("\u2764\ufe0f\ufe0f") == "\u2764\ufe0f<U+FE0F>"  # one per character
    assert markdown_safe("1\ufe0f\u20e3") == "1<U+FE0F>\u20e3"  # a keycap on ASCII
    assert markdown_safe("\ufe0f\u2764") == "<U+FE0F>\u2764"  # a delta that starts with one
    assert markdown_safe("\u2764\ufe00") == "\u2764<U+FE00>"  # not a presentation selector
    assert markdown_safe("\u2764\U000e0100") == "\u2764<U+E0100>"
    assert markdown_safe("\u2764\u034f\u2764") == "\u2764<U+034F>\u2764"


@given(
    st.lists(
        st.sampled_from([*every_ignorable()[:64], "\ufe0f", "\u200d", "\U000e0fff"])
        | st.characters(blacklist_categories=("Cs",)),
        max_size=30,
    ).map("".join),
    st.integers(min_value=0, max_value=30),
)
def test_split_anywhere_nothing_hidden_survives_but_the_deliberate(text: str, cut: int) -> None:
    for name, sanitize in SANITIZERS.items():
        joined = sanitize(text[:cut]) + sanitize(text[cut:])
        allowed = JOINERS + SELECTORS if name == "markdown_safe" else ""
        assert [c for c in IGNORABLE.findall(joined) if c not in allowed] == [], name
