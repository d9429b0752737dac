"""The session browser (ctrl+o, "Sessions: browse"): list, search, resume, rename, delete, fork.

Each test runs the real app on the offline demo model, with XDG folders under tmp_path and no
provider key in the environment; sessions are written with the real SessionStore.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList

from tests.sessions_cli_helpers import Cli
from tests.support.clock import LeapClock, ManualClock, leap_until
from tests.support.waiting import wait_for
from tui_agent.agent.fork import message_count
from tui_agent.agent.history import messages_from_records
from tui_agent.session import SessionStore
from tui_agent.session.records import UserRecord
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.arming import ARMING_S
from tui_agent.ui.arming import PAUSE_S as TYPING_PAUSE_S
from tui_agent.ui.screens.fork_picker import ForkPicker
from tui_agent.ui.screens.session_browser import Question, SessionBrowser
from tui_agent.ui.session_search import SessionTextIndex, matches
from tui_agent.ui.session_switch import current_session_id
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.user_message import UserMessage
from tui_agent.wiring.host_options import HostOptions

SIZE = (140, 40)


async def open_browser(pilot: Pilot[None], expected_rows: int) -> SessionBrowser:
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    await wait_for(pilot, lambda: app.host is not None, "the app to boot")
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser), "the browser")
    browser = app.screen
    assert isinstance(browser, SessionBrowser)
    await wait_for(pilot, lambda: len(browser.shown) == expected_rows, f"{expected_rows} rows")
    await armed(pilot, browser)
    return browser


async def armed(pilot: Pilot[None], browser: SessionBrowser) -> None:
    """Wait for the browser (or its question) to arm: keys before that decide nothing. On a clock
    the test owns, the person waits: the pause in typing, then the arming delay, pass."""
    clock = pilot.app.clock if isinstance(pilot.app, TuiAgentApp) else None
    if isinstance(clock, ManualClock) and not browser.guard.armed():
        clock.advance(TYPING_PAUSE_S + ARMING_S + 0.1)
        await pilot.pause()
    await leap_until(pilot, browser.guard.armed, "the browser to arm")


async def highlight(pilot: Pilot[None], browser: SessionBrowser, session_id: str) -> None:
    table = browser.query_one(DataTable)
    table.focus()
    table.move_cursor(row=browser.shown.index(session_id))
    await pilot.pause()
    assert browser.highlighted() == session_id


async def search(pilot: Pilot[None], browser: SessionBrowser, query: str, rows: int) -> None:
    """Search, and wait for the list shown for this very query (an earlier query's list may
    have as many rows; a result that lands for an older query is never shown)."""
    shown_for: list[str] = []
    show = browser._show

    def showing(shown_query: str, ids: list[str], select: str | None = None) -> None:
        show(shown_query, ids, select)
        shown_for.append(shown_query)

    browser._show = showing  # type: ignore[method-assign]
    try:
        browser.query_one("#search", Input).value = query
        await wait_for(pilot, lambda: query in shown_for, f"the list for {query!r}")
    finally:
        del browser._show  # the class's own again
    assert len(browser.shown) == rows, (query, browser.shown)


def shows_title(browser: SessionBrowser, session_id: str, title: str) -> Callable[[], bool]:
    table = browser.query_one(DataTable)
    return lambda: str(table.get_cell(session_id, "title")) == title


def open_id(app: TuiAgentApp) -> str:
    """The id of the session the app has open."""
    session_id = current_session_id(app)
    assert session_id is not None
    return session_id


def notices(app: App[None]) -> list[str]:
    """The texts of the notifications shown so far."""
    return [notification.message for notification in app._notifications]


def app() -> TuiAgentApp:
    # The current folder (the fixture's workspace), named: the demo would use its own folder.
    # On a LeapClock: ``armed`` leaps through the typing pause and the arming.
    return TuiAgentApp(HostOptions(workspace="."), clock=LeapClock())


async def test_lists_newest_first_and_marks_the_open_session(cli: Cli) -> None:
    old = cli.session("oldest question")
    new = cli.session("newest question")
    mid = cli.session("middle question")
    cli.set_updated(old, 1_000_000)
    cli.set_updated(mid, 2_000_000)
    cli.set_updated(new, 3_000_000)
    async with app().run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 4)
        current = open_id(browser.tui_app)
        assert browser.shown == [current, new, mid, old]
        table = browser.query_one(DataTable)
        assert str(table.get_cell(current, "mark")) == "●"
        assert str(table.get_cell(new, "mark")).strip() == ""
        assert str(table.get_cell(new, "title")) == "newest question"
        assert str(table.get_cell(new, "model")) == "default/m1"
        assert str(table.get_cell(new, "messages")) == "2"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, SessionBrowser), "close")


async def test_search_filters_by_title_and_by_message_text(cli: Cli) -> None:
    alpha = cli.session("where is the zebra crossing", title="Alpha plans")
    beta = cli.session("hello there", title="Beta notes")
    async with app().run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 3)
        await search(pilot, browser, "beta", 1)
        assert browser.shown == [beta]
        await search(pilot, browser, "ZEBRA", 1)  # in the text only, any case
        assert browser.shown == [alpha]
        await search(pilot, browser, "answer to hello", 1)  # the assistant's text too
        assert browser.shown == [beta]
        await search(pilot, browser, "alpha crossing", 1)  # title word and text word
        assert browser.shown == [alpha]
        await search(pilot, browser, "nowhere-at-all", 0)
        await search(pilot, browser, "", 3)
        # Typed, key by key, from the focused search field.
        browser.query_one("#search", Input).value = ""
        await pilot.press(*"zeb")
        await wait_for(pilot, lambda: browser.shown == [alpha], "typed search")


def test_text_index_reads_each_file_once_until_it_changes(cli: Cli) -> None:
    session_id = cli.session("the quick brown fox")
    path = cli.store.resolve(session_id)
    index = SessionTextIndex()
    assert matches("FOX", "unrelated", lambda: index.text(path))
    assert matches("fox", "a fox title", lambda: pytest.fail("text read for a title match"))
    assert not matches("fox wolf", "unrelated", lambda: index.text(path))
    assert index.reads == 1
    with cli.store.open_for_append(session_id) as writer:
        writer.append(UserRecord(text="and a wolf"))
    assert matches("fox wolf", "unrelated", lambda: index.text(path))
    assert index.reads == 2


async def test_enter_resumes_the_session_in_the_app(cli: Cli) -> None:
    target = cli.session("first question", "second question")
    async with app().run_test(size=SIZE) as pilot:
        tui = pilot.app
        assert isinstance(tui, TuiAgentApp)
        browser = await open_browser(pilot, 2)
        first = current_session_id(tui)
        await highlight(pilot, browser, target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: current_session_id(tui) == target, "the switch")
        await wait_for(pilot, lambda: not isinstance(tui.screen, SessionBrowser), "close")
        assert tui.host is not None
        expected, _ = messages_from_records(SessionStore().load(target).records)
        assert tui.host.agent.messages == expected
        await wait_for(pilot, lambda: len(tui.query(UserMessage)) == 2, "the transcript")
        assert [m.text for m in tui.query(UserMessage)] == ["first question", "second question"]
        answers = [m.text for m in tui.query(AssistantMessage)]
        assert answers == ["answer to first question", "answer to second question"]
        assert tui.options.resume == target
        # The session left behind was closed, and as nothing was ever sent in it, removed.
        assert first is not None
        assert first not in [summary.id for summary in SessionStore().list()]


async def test_resume_is_refused_while_the_agent_is_busy(cli: Cli) -> None:
    target = cli.session("a question")
    async with app().run_test(size=SIZE) as pilot:
        tui = pilot.app
        assert isinstance(tui, TuiAgentApp)
        browser = await open_browser(pilot, 2)
        first = current_session_id(tui)
        await highlight(pilot, browser, target)
        tui.busy = True
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("busy" in n for n in notices(tui)), "the refusal")
        assert current_session_id(tui) == first
        assert isinstance(tui.screen, SessionBrowser)
        assert any("busy" in n for n in notices(tui))
        tui.busy = False


async def test_resume_of_a_session_open_elsewhere_shows_the_error(cli: Cli) -> None:
    target = cli.session("a question")
    async with app().run_test(size=SIZE) as pilot:
        tui = pilot.app
        assert isinstance(tui, TuiAgentApp)
        browser = await open_browser(pilot, 2)
        first = current_session_id(tui)
        await highlight(pilot, browser, target)
        with SessionStore().open_for_append(target):  # another process, as far as locks go
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: any("another tui-agent process" in n for n in notices(tui)),
                "the error",
            )
        assert current_session_id(tui) == first
        assert isinstance(tui.screen, SessionBrowser)


async def test_rename_is_saved_for_other_sessions_and_the_open_one(cli: Cli) -> None:
    other = cli.session("a question")
    async with app().run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 2)
        current = open_id(browser.tui_app)
        for session_id, title in ((other, "Renamed other"), (current, "Renamed open one")):
            await highlight(pilot, browser, session_id)
            await pilot.press("r")
            answer = browser.query_one("#answer", Input)
            assert answer.has_focus
            answer.value = title
            await armed(pilot, browser)
            await pilot.press("enter")
            await wait_for(pilot, shows_title(browser, session_id, title), "the new title")
        titles = {s.id: s.title for s in SessionStore().list()}
        assert titles[other] == "Renamed other"
        assert titles[current] == "Renamed open one"


async def test_delete_asks_and_n_keeps_y_deletes(cli: Cli) -> None:
    victim = cli.session("delete me")
    path = cli.store.resolve(victim)
    clock = ManualClock()  # the test's: time passes only when it says so
    async with TuiAgentApp(HostOptions(workspace="."), clock=clock).run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 2)
        await highlight(pilot, browser, victim)
        await armed(pilot, browser)  # d is a decision too: only once the browser is armed
        await pilot.press("d")
        question = browser.query_one(Question)
        await wait_for(pilot, lambda: question.has_class("-shown"), "the question")
        assert "Delete session " + victim in str(question.render())
        # At once, no time passed since the question came: n decides nothing, it stays.
        assert not browser.guard.armed()
        await pilot.press("n")
        assert question.has_class("-shown") and path.exists()
        await armed(pilot, browser)
        await wait_for(pilot, lambda: str(question.render()).endswith("(y/n)"), "armed, shown")
        await pilot.press("n")
        await pilot.pause()
        assert path.exists()
        assert not question.has_class("-shown")
        await pilot.press("d")
        await armed(pilot, browser)
        await pilot.press("y")
        await wait_for(pilot, lambda: victim not in browser.shown, "the row to go")
        assert not path.exists()


async def test_deleting_the_open_session_is_refused(cli: Cli) -> None:
    cli.session("another")
    async with app().run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 2)
        current = open_id(browser.tui_app)
        await highlight(pilot, browser, current)
        await pilot.press("d")
        await pilot.press("y")
        shown = pilot.app
        await wait_for(pilot, lambda: any("open here" in n for n in notices(shown)), "the refusal")
        assert not browser.query_one(Question).has_class("-shown")
        assert cli.store.resolve(current).exists()
        assert any("open here" in n for n in notices(pilot.app))


async def test_fork_at_a_message_then_switch_to_it(cli: Cli) -> None:
    source = cli.session("one", "two", "three")  # six messages
    async with app().run_test(size=SIZE) as pilot:
        tui = pilot.app
        assert isinstance(tui, TuiAgentApp)
        browser = await open_browser(pilot, 2)
        await highlight(pilot, browser, source)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(tui.screen, ForkPicker), "the fork picker")
        picker = tui.screen
        assert isinstance(picker, ForkPicker)
        options = picker.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 6, "the six messages")
        shown = [str(options.get_option_at_index(i).prompt) for i in range(6)]
        assert [" ".join(line.split()) for line in shown] == [
            "1 you one",
            "2 model answer to one",
            "3 you two",
            "4 model answer to two",
            "5 you three",
            "6 model answer to three",
        ]
        assert options.highlighted == 5  # the last message at first
        await leap_until(pilot, picker.guard.armed, "the picker to arm")
        await pilot.press("up", "up", "up", "enter")
        await wait_for(pilot, lambda: len(browser.shown) == 3, "the fork in the list")
        question = browser.query_one(Question)
        await armed(pilot, browser)
        assert "Switch to it? (y/n)" in str(question.render())
        fork_id = browser.ask.session_id if browser.ask else ""
        loaded = SessionStore().load(fork_id)
        assert message_count(loaded.records) == 3
        texts = [getattr(r, "text", None) for r in loaded.records if r.type == "user"]
        assert texts == ["one", "two"]
        assert any(
            f"forked from {source} at message 3" in getattr(r, "text", "") for r in loaded.records
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: current_session_id(tui) == fork_id, "the switch")
        assert tui.host is not None
        assert tui.host.agent.messages == messages_from_records(loaded.records)[0]


HOSTILE_TITLE = "\x1b[2J\x1b]52;c;cHduZWQ=\x07[bold red]pwn[/] [@click=app.quit]x\u202eevil"


async def test_hostile_titles_and_models_are_shown_inert(cli: Cli) -> None:
    with cli.store.create(
        profile="\x1b[31mprof",
        protocol="openai-chat",
        model="m\x1b]8;;http://x\x07",
        workspace=str(cli.workspace),
        title=HOSTILE_TITLE,
    ) as writer:
        writer.append(UserRecord(text="hi"))
    async with app().run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, 2)
        table = browser.query_one(DataTable)
        title = str(table.get_cell(writer.session_id, "title"))
        model = str(table.get_cell(writer.session_id, "model"))
        assert "[bold red]pwn[/] [@click=app.quit]x" in title  # markup stays literal
        assert "\\x1b[31mprof" in model
        assert "\\x1b]8;;http://x\\x07" in model
        await pilot.press("ctrl+o")  # already open: nothing stacks
        await search(pilot, browser, "pwn", 1)
        screen = pilot.app.export_screenshot()
        assert "\x1b" not in screen
        assert "\x07" not in screen
        assert "\u202e" not in screen
        assert "pwn" in screen and "prof" in screen  # the row is on screen
        assert isinstance(pilot.app.screen, SessionBrowser)  # [@click=app.quit] did nothing
