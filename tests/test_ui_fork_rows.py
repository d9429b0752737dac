"""The fork picker's rows: every message numbered as ``agent.fork`` numbers them, and a message
stopped by Esc and taken back into the box (a ``withdraw`` record) not offered as a fork point."""

from __future__ import annotations

from tui_agent.session.records import UserRecord, WithdrawRecord
from tui_agent.ui.screens.fork_picker import message_rows

from .sessions_cli_helpers import assistant as _answer


def test_a_withdrawn_message_keeps_its_number_but_is_not_listed() -> None:
    records = [
        UserRecord(text="first"),
        _answer("one"),
        UserRecord(text="stopped mid-stream"),
        WithdrawRecord(),
        UserRecord(text="sent again"),
        _answer("two"),
    ]
    assert message_rows(records) == [
        (1, "you", "first"),
        (2, "model", "one"),
        (4, "you", "sent again"),
        (5, "model", "two"),
    ]


def test_without_a_withdraw_every_message_is_listed() -> None:
    rows = message_rows([UserRecord(text="a"), _answer(""), UserRecord(text="b")])
    assert rows == [(1, "you", "a"), (2, "model", "(no text)"), (3, "you", "b")]
