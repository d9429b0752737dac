"""The Textual driver of each app `tui-agent serve` starts (by this dotted name, from
serve/server.py): Textual's web driver, which also quits the app when its input ends.

The server writes the browser's keys to the app's stdin. If the server is gone (killed, even
with SIGKILL), stdin ends; Textual's web driver then only stops reading, and an idle app would
live on with nobody able to reach it. This one asks the app to quit, as closing the tab does:
the app ends its tools and closes its session.
"""

from __future__ import annotations

from textual import messages
from textual.drivers.web_driver import WebDriver


class ChildWebDriver(WebDriver):
    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        finally:
            if not self.exit_event.is_set():  # input ended, not the app: nobody is left
                self._app.post_message(messages.ExitApp())
