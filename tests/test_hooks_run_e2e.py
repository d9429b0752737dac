"""`tui-agent run` (a real subprocess) applies the person's hooks as the app does: SessionStart
adds context, PreToolUse blocks, every verdict is a hook_finished line of --json, SessionEnd runs
on the way out, and the session file keeps each verdict."""

from __future__ import annotations

import json
import sys

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .hook_helpers import BLOCKING, script
from .run_helpers import KEY, Home, final, write_call

PROTOCOL = "openai-chat"


def test_run_applies_hooks_and_reports_each_verdict(home: Home) -> None:
    start = script(home.root, "start.py", "json.load(sys.stdin); print('branch: main')\n")
    guard = script(home.root, "guard.py", BLOCKING)
    end_mark = home.workspace / "ended.txt"
    end = script(home.root, "end.py", f"open({str(end_mark)!r}, 'w').write('bye')\n")
    tables = [
        {"event": "SessionStart", "command": [sys.executable, str(start)], "name": "start"},
        {"event": "PreToolUse", "command": [sys.executable, str(guard)], "name": "guard"},
        {"event": "SessionEnd", "command": [sys.executable, str(end)], "name": "end"},
    ]
    text = "".join(
        "[[hooks]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in t.items()) for t in tables
    )
    home.write_config(text)

    def told_start(body: object) -> None:
        assert "branch: main" in json.dumps(body)

    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(write_call("protected/a.txt", "x\n"), expect=told_start),
            final(PROTOCOL, expect=ExpectToolResults({"call_W": "blocked by hook guard"})),
        )
        done = home.run(server, "write it", "--json")
    assert done.code == 0, done.stderr
    hooked = [e for e in done.events() if e["type"] == "hook_finished"]
    assert [(e["event"], e["hook"], e["verdict"]) for e in hooked] == [
        ("PreToolUse", "guard", "block")
    ]
    assert hooked[0]["call_id"] == "call_W" and hooked[0]["seconds"] >= 0
    assert not (home.workspace / "protected").exists()
    assert end_mark.read_text() == "bye"
    saved = [(r["event"], r["verdict"]) for r in home.records() if r["type"] == "hook"]
    assert saved == [("SessionStart", "ok"), ("PreToolUse", "block"), ("SessionEnd", "ok")]
