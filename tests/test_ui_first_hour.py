"""What a newcomer meets on the main screen: the message box says how to use it, toasts hide
neither the message box nor a dialog.

The real app against the fake provider (see ui_app_helpers)."""

from __future__ import annotations

from textual.widgets._toast import Toast

from tui_agent.ui.screens.session_browser import SessionBrowser
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .ui_app_helpers import KEY, SIZE, AppEnv, make_app, running, wait_for

PROTOCOL = "openai-chat"
PLACEHOLDER = "Message the model — Enter sends, Ctrl+J new line, Ctrl+P commands"


async def test_the_empty_message_box_says_how_to_use_it(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            assert PLACEHOLDER in screen_text(app)
            await pilot.press("h", "i")
            await wait_for(pilot, lambda: PLACEHOLDER not in screen_text(app), "it to go")
            app.query_one(PromptInput).clear()
            await wait_for(pilot, lambda: PLACEHOLDER in screen_text(app), "it to come back")


async def test_toasts_sit_top_right_under_the_status_bar(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        app = make_app(server, env)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            app.notify("first toast", timeout=1)
            app.notify("second toast", timeout=1)
            await wait_for(pilot, lambda: len(app.screen.query(Toast)) == 2, "two toasts")
            first, second = app.screen.query(Toast)
            status = app.query_one(StatusBar).region
            box = app.query_one(PromptInput).region
            assert first.region.y == status.bottom  # right under the status bar
            assert second.region.y == first.region.bottom  # and the next right under it
            for toast in (first, second):
                assert toast.region.right >= SIZE[0] - 2  # at the right edge (rack gutter)
                assert toast.region.height == 1  # one line each
                assert not toast.region.overlaps(box)
                assert not toast.region.overlaps(status)

            # Over a dialog: still above its frame, not on its lines.
            await pilot.press("ctrl+o")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser), "the browser")
            await wait_for(pilot, lambda: not app.screen.query(Toast), "the toasts to go")
            app.notify("a toast over the browser")
            app.notify("and another")
            frame = app.screen.query_one("#browser").region

            def beside() -> bool:  # both shown, laid out off the frame
                toasts = app.screen.query(Toast)
                return len(toasts) == 2 and not any(t.region.overlaps(frame) for t in toasts)

            await wait_for(pilot, beside, "the toasts, above the frame")
