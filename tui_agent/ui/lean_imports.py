"""httpx without its command line: what the session's opening would load for nothing.

``import httpx`` imports ``httpx._main``, the ``httpx`` command's code, and with it click, rich's
progress bars and syntax highlighting and Pygments: about 30 ms of the boot's CPU (measured: 58 ms
for ``import httpx`` after the first screen's imports, 28 ms without), for a command this app never
runs. httpx itself falls back to a stub when that import fails (as when its ``cli`` extra is not
installed), so the app's boot imports httpx once with the module marked missing, then unmarks it:
an explicit ``import httpx._main`` later still works.
"""

from __future__ import annotations

import sys

_MAIN = "httpx._main"


def import_httpx_without_its_command_line() -> None:
    """Import httpx, unless it is imported already, without ``httpx._main``."""
    if "httpx" in sys.modules or _MAIN in sys.modules:
        return
    sys.modules[_MAIN] = None  # type: ignore[assignment]  # None: "import fails" (importlib)
    try:
        import httpx  # noqa: F401
    finally:
        if sys.modules.get(_MAIN, _MAIN) is None:
            del sys.modules[_MAIN]
