"""The app's start without the cyclic garbage collector's passes, until its session is open.

What the start loads (Textual, then the session's packages: pydantic, httpx, the tools, the
providers) is some 120,000 objects that live as long as the process: modules, classes,
functions, schemas. The collector does not know that and walks them all again each time its
oldest generation is due, several times while they are imported: about 40% of the CPU the start
costs (measured: the boot's imports 0.50 s with it, 0.29 s without). So the collector is off
from the command line's hand-over to the app (or the first frame, for an app started otherwise)
until the session is open; then what is loaded by then is frozen (``gc.freeze``: moved to a
generation no pass walks, so later passes, while answers stream, do not walk it either) and the
collector is on again. The start makes little cyclic garbage (about 1,200 objects), kept so; a
frozen object is still freed when nothing refers to it, only a cycle among frozen objects (the
first session's panes, replaced by a switch) stays, once.
"""

from __future__ import annotations

import gc

_paused = False  # this module turned the collector off (it was on): settle() turns it on


def pause() -> None:
    """No collector passes from now until ``settle()``; what is loaded already is frozen."""
    global _paused
    gc.freeze()
    if gc.isenabled():
        gc.disable()
        _paused = True


def settle() -> None:
    """The start is over: what it loaded is frozen and the collector is on again, if
    ``pause()`` turned it off; otherwise nothing (a second call, or the collector off by
    someone else's choice)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
