"""Fixtures the hardening suite shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .processes import marked


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A variable only this test's commands (and all they start) carry; see processes.py."""
    yield from marked(monkeypatch)
