"""Make screenshots/serve.png: `tui-agent serve` in a web browser.

    python3 screenshots/make_serve_screenshot.py

The real ``tui-agent serve`` against the offline demo model (pace 0), in a throwaway workspace
and throwaway user folders, opened with its token in the system's headless Chromium through
Playwright (the same helpers as tests/test_serve_browser.py; no browser is downloaded): a file
is written and approved by keypress, then a command waits for approval. The PNG is written next
to this script.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent
sys.path.insert(0, str(OUT.parent))

from tests.serve_helpers import (  # noqa: E402
    CHROMIUM_ARGS,
    TERMINAL_HOOK,
    Served,
    chromium,
    wait_for_screen,
)

ARMING_S = 1.5
SIZE = {"width": 1200, "height": 680}


def main() -> int:
    from playwright.sync_api import sync_playwright

    browser_path = chromium()
    if browser_path is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "ws").mkdir()
        (root / "ws" / "README.md").write_text("# demo project\n")
        serve = ("serve", "--workspace", str(root / "ws"))
        with Served(root, *serve) as served, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport=SIZE)
                page.add_init_script(TERMINAL_HOOK)
                page.goto(served.url)
                wait_for_screen(page, "offline demo model")
                page.focus("textarea.xterm-helper-textarea")
                page.keyboard.type("write notes.txt saying hello")
                page.keyboard.press("Enter")
                wait_for_screen(page, "waiting for approval: write_file")
                time.sleep(ARMING_S)
                page.keyboard.press("y")
                wait_for_screen(page, "Done: created notes.txt")
                page.keyboard.type("run ls -l")
                page.keyboard.press("Enter")
                wait_for_screen(page, "waiting for approval: run_command")
                time.sleep(ARMING_S)
                page.screenshot(path=str(OUT / "serve.png"))
            finally:
                browser.close()
    print(f"wrote {OUT / 'serve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
