"""`tui-agent serve`: the guard (token, Host, Origin) and the command line, in process.

Nothing here listens on a port: ``run_server`` is replaced where a test needs the command to
get that far.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from tui_agent.commands import serve as serve_command
from tui_agent.serve.guard import Guard, is_loopback, netloc, new_token, parse_host

from .sessions_cli_helpers import Cli


def test_tokens_are_long_random_and_url_safe() -> None:
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert len(token) >= 43  # 32 bytes of base64: 256 bits
        assert token.replace("-", "").replace("_", "").isalnum()


def test_the_token_is_compared_whole() -> None:
    token = new_token()
    guard = Guard.for_host("127.0.0.1", token)
    assert guard.token_ok(token)
    for wrong in ("", None, token[:-1], token + "x", token.upper(), "x" + token[1:], " " + token):
        assert not guard.token_ok(wrong), wrong
    assert not guard.token_ok("é" * 43)  # not ASCII: still just refused


def test_the_host_header_must_name_this_server() -> None:
    guard = Guard.for_host("127.0.0.1", new_token())
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST", "10.0.0.7:80"):
        assert guard.host_ok(host), host
    # DNS rebinding: a page of another name, made to resolve to this machine, sends its name.
    for host in ("attacker.example:8000", "attacker.example", "127.0.0.1.attacker.example", ""):
        assert not guard.host_ok(host), host
    assert not guard.host_ok(None)
    named = Guard.for_host("0.0.0.0", new_token(), "workstation")
    assert named.host_ok("workstation:8000") and not named.host_ok("elsewhere:8000")


def test_the_whole_host_is_checked_name_and_port() -> None:
    guard = Guard.for_host("127.0.0.1", new_token(), port=8000)
    for host in (
        "127.0.0.1:8000",
        "localhost:8000",
        "[::1]:8000",
        "LOCALHOST:8000",
        "10.0.0.7:8000",
    ):
        assert guard.checked_host(host) == (host_name_of(host), 8000), host
    for host in (
        "localhost:8001",
        "localhost",  # port 80
        "localhost:80",
        "localhost:",
        "localhost:8000:1",
        "localhost:8000/x",
        "localhost:8000 ",
        " localhost:8000",
        "user@localhost:8000",
        "localhost:80000",
        "localhost:+8000",
        "local_host:8000",
        "[::1%eth0]:8000",
        "[::1]x:8000",
        "[::1",
        "localhost:\uff18\uff10\uff10\uff10",  # fullwidth digits
        "\uff4cocalhost:8000",
        "",
    ):
        assert guard.checked_host(host) is None, host
    served_on_80 = Guard.for_host("localhost", new_token(), port=80)
    assert served_on_80.host_ok("localhost") and served_on_80.host_ok("localhost:80")
    assert served_on_80.origin_ok("http://localhost", "localhost")
    assert served_on_80.origin_ok("http://localhost:80", "localhost")
    assert not served_on_80.origin_ok("https://localhost", "localhost")  # port 443


def host_name_of(host: str) -> str:
    return host.rsplit(":", 1)[0].strip("[]").lower()


def test_parse_host_and_netloc_round_trip() -> None:
    assert parse_host("[::1]:8000") == ("::1", 8000)
    assert netloc("::1", 8000) == "[::1]:8000"
    assert parse_host(netloc("localhost", 65535)) == ("localhost", 65535)
    assert parse_host("localhost:0") is None and parse_host("x" * 300) is None


def test_a_websocket_must_come_from_the_page_s_own_origin() -> None:
    guard = Guard.for_host("127.0.0.1", new_token())
    assert guard.origin_ok("http://127.0.0.1:8000", "127.0.0.1:8000")
    for origin in (
        "http://user@127.0.0.1:8000",
        "http://127.0.0.1:8000?x",
        "http://127.0.0.1:8000#x",
        None,
        "",
        "null",
        "http://127.0.0.1:8001",
        "http://localhost:8000",
        "http://attacker.example",
        "file://",
        "http://127.0.0.1:8000/path",
    ):
        assert not guard.origin_ok(origin, "127.0.0.1:8000"), origin
    assert not guard.origin_ok("http://attacker.example:8000", "attacker.example:8000")


def test_logged_paths_never_hold_the_token() -> None:
    token = new_token()
    guard = Guard.for_host("127.0.0.1", token)
    assert guard.shown_path(f"/{token}/") == "/<token>/"
    assert guard.shown_path(f"/{token}/ws?width=80&height=24") == "/<token>/ws"
    assert guard.shown_path(f"/{token[:-1]}/static/x.js") == "/<no token>/static/x.js"
    assert guard.shown_path("/") == "/"
    assert guard.token_of_path(f"/{token}/static/js/textual.js") == token


def test_loopback_hosts() -> None:
    for host in ("127.0.0.1", "127.5.5.5", "::1", "[::1]", "localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.4", "example.org", ""):
        assert not is_loopback(host), host


def test_the_app_s_options_go_to_each_child(tmp_path: Path) -> None:
    args = argparse.Namespace(
        profile="demo",
        protocol=None,
        model="m",
        base_url=None,
        api_key_env="MY_KEY",
        sandbox="read-only",
        resume=None,
        theme="light",
        workspace=str(tmp_path / "a" / ".." / "ws"),
        continue_last=True,
        debug=True,
    )
    argv = serve_command.app_arguments(args)
    assert argv == [
        "--profile", "demo", "--model", "m", "--api-key-env", "MY_KEY", "--sandbox", "read-only",
        "--theme", "light", "--workspace", str((tmp_path / "ws").resolve()), "--continue",
        "--debug",
    ]  # fmt: skip


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    return Cli(tmp_path, monkeypatch)


def test_a_host_beyond_loopback_needs_allow_remote(cli: Cli) -> None:
    for host in ("0.0.0.0", "192.168.1.4", "example.org"):
        out = cli.main("serve", "--host", host)
        assert out.code == 1
        assert "--allow-remote" in out.error_line()
        assert out.stdout == ""


def test_max_tabs_and_the_port_are_bounded(cli: Cli) -> None:
    for flag, value, said in (
        ("--max-tabs", "0", "a number of tabs must be 1 to 1000, not 0"),
        ("--max-tabs", "many", "not a number of tabs: 'many'"),
        ("--port", "70000", "a port must be 0 to 65535, not 70000"),
    ):
        out = cli.main("serve", flag, value)
        assert out.code == 1 and said in out.stderr, out.stderr


def _fake_server(seen: list[Any]) -> Any:
    async def run_server(config: Any, ready: Any) -> None:
        seen.append(config)
        ready(config.host, 43210)

    return run_server


def test_each_start_prints_a_fresh_token_and_remote_gets_a_warning(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    monkeypatch.setattr("tui_agent.serve.server.run_server", _fake_server(seen))
    first = cli.main("serve", "--profile", "demo")
    second = cli.main("serve")
    assert first.code == second.code == 0
    assert first.stderr == second.stderr == ""  # loopback: no warning
    tokens = [config.guard.token for config in seen]
    assert tokens[0] != tokens[1]
    assert f"http://127.0.0.1:43210/{tokens[0]}/" in first.stdout
    argv = seen[0].argv
    assert argv[1:3] == ["-m", "tui_agent"] and argv[3:] == ["--profile", "demo"]
    assert not any(tokens[0] in part for part in argv)
    remote = cli.main("serve", "--host", "0.0.0.0", "--allow-remote")
    assert remote.code == 0
    assert remote.stderr.startswith("warning: serving on 0.0.0.0")
    assert "ssh -L" in remote.stderr
    assert seen[2].guard.token in remote.stdout


def test_replay_serve_plays_the_session_file_in_each_child(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .replay_helpers import written_session

    path = written_session(cli.store.directory)
    seen: list[Any] = []
    monkeypatch.setattr("tui_agent.serve.server.run_server", _fake_server(seen))
    out = cli.main("replay", path.stem[:8], "--serve", "--speed", "0")
    assert out.code == 0, out.stderr
    assert seen[0].argv[3:] == ["replay", str(path.resolve()), "--speed", "0.0"]
    assert seen[0].title == f"tui-agent replay {path.stem}"
    missing = cli.main("replay", "nosuchsession", "--serve")
    assert missing.code == 1 and len(seen) == 1
