"""`tui-agent export`: Markdown for people, JSON with the full record, files, errors, secrets."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from tui_agent.session.codec import record_adapter
from tui_agent.session.records import HeaderRecord, UserRecord

from .session_samples import OPAQUE_EVENTS
from .sessions_cli_helpers import FENCED_OUTPUT, Cli, assistant, call, conversation, result

DENIED_CALL = """\
### Tool call `run_command` (`c2`)

```sh
rm -rf build
```

**Decision:** denied by user: not now

**Result** (denied):

```text
denied by user: not now
```
"""

DISCARDED_TURN = """\
## 4 · User

```markdown
Now run the tests
```

**Turn discarded: cut**: the connection closed before the response ended

Pending calls (never run): `run_command` (`c6`)

Text received before the cut:

```text
Running the
```

*The user withdrew the message above; it was never answered.*

## 5 · User
"""

EDITED_CALL = """\
**Decision:** edited by user; it ran with:

```json
{
  "content": "y",
  "path": "b.txt"
}
```

**Result** (done):

```text
wrote b.txt
```
"""


@pytest.mark.heavy
def test_markdown_shows_calls_decisions_results_and_a_discarded_turn(cli: Cli) -> None:
    session = conversation(cli.store, "/w")
    out = cli.spawn("export", session[:9])
    assert out.code == 0 and out.stderr == "", out.stderr
    text = out.stdout
    assert text.startswith(f"# Look around and clean up\n\n- Session: `{session}`\n- Created: ")
    assert "- Profile: `default` (protocol `openai-chat`, model `m1`)\n" in text
    assert "- Workspace: `/w`\n- Messages: 6\n" in text
    headings = re.findall(r"^## (\d) · (\w+)$", text, re.MULTILINE)
    assert headings == [
        ("1", "User"),
        ("2", "Assistant"),
        ("3", "Assistant"),
        ("4", "User"),
        ("5", "User"),
        ("6", "Assistant"),
    ]
    # Messages show as their Markdown source, fenced: none can imitate the export's structure.
    reasoning = "<details><summary>Reasoning</summary>\n\n```markdown\nThe user wants a tidy"
    assert reasoning + " folder.\n```\n\n</details>\n\n```markdown\nLet me look.\n```\n" in text
    assert DENIED_CALL in text
    assert DISCARDED_TURN in text
    assert EDITED_CALL in text
    for line in (
        "**Decision:** approved by user",
        "**Decision:** invalid, never offered: path: must be a string",
        "**Decision:** refused by policy: arguments too large",
        "**Decision:** approved by rule (always allow list\\_dir)",  # read as plain text
        "**Result:** none recorded: tui-agent stopped while the call ran",
        "> **Note (notice):** the app stopped here",
    ):
        assert f"\n{line}\n" in text
    # Calls in the order the model announced them, whatever order their records came in.
    order = re.findall(r"^### Tool call `\w+` \(`(c\d)`\)$", text, re.MULTILINE)
    assert order == ["c1", "c2", "c3", "c4", "c5", "c7"]
    assert cli.main("export", session).stdout == text  # stable


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(fence, content) of each fenced block, read the way CommonMark closes them."""
    blocks = []
    lines = iter(text.splitlines())
    for line in lines:
        opening = re.match(r"(`{3,})\w*$", line)
        if opening is None:
            continue
        fence, content = opening.group(1), []
        for inner in lines:
            if re.fullmatch(f"`{{{len(fence)},}}", inner):
                break
            content.append(inner)
        blocks.append((fence, "\n".join(content)))
    return blocks


def test_fences_are_longer_than_any_backtick_run_inside(cli: Cli) -> None:
    with cli.store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        w.append(UserRecord(text="show me"))
        w.append(assistant("", call("k", "run_command", command="echo ```` ``")))
        w.append(result("k", "run_command", "``````\nsix above\n```"))
        w.append(result("x", "read_file", FENCED_OUTPUT))  # no such call: still shown
    blocks = _fenced_blocks(cli.main("export", w.session_id).stdout)
    assert blocks == [
        ("```", "show me"),
        ("`````", "echo ```` ``"),
        ("```````", "``````\nsix above\n```"),
        ("`````", FENCED_OUTPUT),
    ]


def test_a_long_result_is_cut_with_a_note(cli: Cli) -> None:
    output = "".join(f"line {n:05}\n" for n in range(2000))  # 22,000 characters
    with cli.store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        w.append(UserRecord(text="read it"))
        w.append(assistant("", call("k", "read_file", path="big.txt")))
        w.append(result("k", "read_file", output))
    text = cli.main("export", w.session_id).stdout
    _message, _arguments, (_, shown) = _fenced_blocks(text)
    assert 3000 < len(shown) <= 4096 and output.startswith(shown + "\n")
    more = len(output) - len(shown)
    assert f"*(output cut here: {more:,} more characters; the JSON export has it all)*" in text


def test_json_is_the_full_record_and_loads_back_into_the_same_records(cli: Cli) -> None:
    session = conversation(cli.store)
    with cli.store.open_for_append(session) as writer:
        writer.append(assistant("opaque", call("z", "read_file", path="x")))
        writer.append(assistant("more").model_copy(update={"raw": OPAQUE_EVENTS}))
    out = cli.spawn("export", session, "--format", "json")
    assert out.code == 0, out.stderr
    assert out.stdout.isascii()
    document = json.loads(out.stdout)
    assert set(document) == {"header", "records", "problems"}
    loaded = cli.store.load(session)
    assert HeaderRecord.model_validate(document["header"]) == loaded.header
    assert [record_adapter().validate_python(r) for r in document["records"]] == loaded.records
    assert document["problems"] == []
    raw = document["records"][-1]["raw"]
    assert [event["data"] for event in raw] == [event.data for event in OPAQUE_EVENTS]


def test_output_file_is_private_and_kept_unless_forced(cli: Cli) -> None:
    session = cli.session("hello")
    target = cli.root / "out.md"
    out = cli.spawn("export", session, "-o", str(target))
    assert out.code == 0 and out.stdout == "", out.stderr
    assert target.read_text().startswith("# hello\n")
    # Success says what was written, and where, on stderr.
    size = len(target.read_bytes())
    assert out.stderr == f"tui-agent export: wrote {size:,} bytes (markdown) to {target}\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600

    target.write_text("mine")
    target.chmod(0o644)
    out = cli.main("export", session, "--format", "json", "-o", str(target))
    assert out.code == 1 and "exists; pass --force" in out.error_line()
    assert target.read_text() == "mine"

    out = cli.main("export", session, "--format", "json", "-o", str(target), "--force")
    assert out.code == 0 and out.stdout == ""
    assert json.loads(target.read_text())["header"]["id"] == session
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in cli.root.iterdir() if p.name.startswith(".out")] == []

    out = cli.main("export", session, "-o", str(cli.root), "--force")
    assert out.code == 1 and "cannot write" in out.error_line()


def test_no_key_leaves_in_an_export(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # A local server's key the writer did not know, and a key-shaped value written around it.
    local = "hunter2-local-service-0123"
    monkeypatch.setenv("LOCAL_LLM_TOKEN", local)
    shaped = "sk-ant-api03-" + "Q" * 40
    session = cli.session(f"my token is {local}")
    path = cli.store.resolve(session)
    line = {"ts": 5.0, "type": "user", "text": f"and {shaped}"}
    with path.open("a") as file:
        file.write(json.dumps(line) + "\n")
    for form in ("markdown", "json"):
        out = cli.main("export", session, "--format", form)
        assert out.code == 0
        assert local not in out.stdout and shaped not in out.stdout
        assert "[REDACTED]" in out.stdout and "sk-ant-api03-[REDACTED]" in out.stdout


def test_hostile_text_is_inert_in_markdown(cli: Cli) -> None:
    with cli.store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        w.append(UserRecord(text="clear\x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07 \u202egnp.exe"))
        w.append(assistant("", call("k\x1b[1m", "read_file\x07", path="a\x1b")))
        w.append(result("k\x1b[1m", "read_file\x07", "\x1b[31mred\x1b[0m\r\n"))
    text = cli.main("export", w.session_id).stdout
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", text)
    assert "clear\\x1b[2J\\x1b]52;c;ZWNobyBoaQ==\\x07 <U+202E>gnp.exe" in text
    assert "\\x1b[31mred\\x1b[0m" in text


def test_export_reads_a_path_outside_the_folder(cli: Cli, tmp_path: Path) -> None:
    session = cli.session("hello")
    outside = tmp_path / "kept" / "session.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(cli.store.resolve(session).read_bytes())
    cli.store.delete(session)
    out = cli.main("export", str(outside))
    assert out.code == 0 and out.stdout.startswith("# hello\n")


def test_unknown_and_corrupt_sessions_are_one_line(cli: Cli, tmp_path: Path) -> None:
    cli.session("hello")
    out = cli.spawn("export", "nosuchsession")
    assert out.code == 1 and out.stdout == ""
    assert out.error_line() == "tui-agent export: no session 'nosuchsession'"
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_bytes(b"\x00\x00{not json\n\xff\xfe garbage\n")
    out = cli.main("export", str(corrupt), "--format", "json")
    assert out.code == 1 and "holds no readable session records" in out.error_line()
    out = cli.main("export", str(tmp_path / "missing.jsonl"))
    assert out.code == 1 and "no session file at" in out.error_line()


def test_a_damaged_line_is_reported_and_the_rest_exported(cli: Cli) -> None:
    session = cli.session("one", "two")
    path = cli.store.resolve(session)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:20]  # the first answer, torn
    path.write_bytes(b"\n".join(lines))
    out = cli.main("export", session, "--format", "json")
    assert out.code == 0
    assert out.error_line() == (
        "tui-agent export: warning: 1 problem reading the session file (listed in the export)"
    )
    document = json.loads(out.stdout)
    assert document["problems"] == ["line 3: torn or corrupt record skipped"]
    assert [r["type"] for r in document["records"]] == ["user", "user", "assistant"]
    markdown = cli.main("export", session).stdout
    assert "> - line 3: torn or corrupt record skipped\n" in markdown
