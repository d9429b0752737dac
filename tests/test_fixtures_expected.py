"""Every real recording decodes to the result a careful reader of that stream wrote down."""

from __future__ import annotations

import pytest

from tui_agent import assemble

from .fixture_cases import CASES, FixtureCase


def test_every_recording_has_an_expected_result() -> None:
    assert len(CASES) == 55
    for case in CASES:
        assert case.path.with_suffix(".expected.json").exists(), case.name


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_recording_gives_expected_turn(case: FixtureCase) -> None:
    result = assemble(case.protocol, [case.body])
    assert result.to_dict() == case.expected
