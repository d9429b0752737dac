"""Values an MCP server's ``env`` or ``headers`` read from ``${VAR}`` are secrets: a server that
echoes them back in a tool result never gets them into the session file, ``run``'s output or an
export, whatever the variable is called (these names do not look secret; ``DOCS_TOKEN`` would).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tui_agent.mcp.config import McpServerConfig, referenced_values
from tui_agent.session import Redactor

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .mcp_helpers import ROOT, call_ops, server_table
from .run_helpers import KEY, RUN_TIMEOUT_S, Home, final

pytestmark = pytest.mark.heavy

ENV_SECRET = "plain-value-4f9a2c7e1b"
HEADER_SECRET = "docs-login-8e3d5a1c90"


def test_referenced_values_are_the_set_variables_named_in_env_and_headers() -> None:
    stdio = McpServerConfig(command="x", env={"X": "${VAR}", "Y": "a ${UNSET} b", "Z": "plain"})
    http = McpServerConfig(url="http://h/mcp", headers={"Authorization": "Bearer ${LOGIN}"})
    environ = {"VAR": "one", "LOGIN": "two", "OTHER": "three"}
    assert referenced_values([stdio, http], environ) == ["two", "one"]


def test_a_redactor_learns_more_secrets() -> None:
    redactor = Redactor(["first-secret-123"])
    redactor.add([ENV_SECRET, "short"])
    assert redactor.redact(f"a {ENV_SECRET} b first-secret-123 short") == (
        "a [REDACTED] b [REDACTED] short"
    )


@pytest.fixture
def http_server(home: Home) -> Iterator[str]:
    """The loopback HTTP server wanting ``Bearer HEADER_SECRET``; yields its URL."""
    port_file = home.root / "port"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.http_token", str(port_file), HEADER_SECRET],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text():
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def _run(home: Home, argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**home.env(), "VAR": ENV_SECRET, "DOCS_LOGIN": HEADER_SECRET}
    return subprocess.run(
        argv,
        cwd=home.workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S * 2,
        check=False,
    )


def test_echoed_values_never_reach_the_session_the_output_or_an_export(
    home: Home, http_server: str
) -> None:
    echo = server_table(
        "echo", "tests.mcp_servers.echo_env", env={"PYTHONPATH": str(ROOT), "X": "${VAR}"}
    )
    docs = f'[mcp_servers.docs]\nurl = "{http_server}"\n'
    docs += 'headers = { Authorization = "Bearer ${DOCS_LOGIN}" }\n'
    home.write_config(echo + docs)
    calls = [
        *call_ops(0, "call_E", "mcp__echo__show", '{"name": "X"}'),
        *call_ops(1, "call_D", "mcp__docs__whoami", "{}"),
    ]
    expect = ExpectToolResults({"call_E": "X=", "call_D": "you sent the token"})
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(calls, stop="tool_calls"), final(server.protocol, "Done.", expect))
        for as_json in (True, False):
            extra = ["--json"] if as_json else []
            done = _run(home, home.argv(server, "show X", *extra, approve="all"))
            assert done.returncode == 0, done.stderr
            assert ENV_SECRET not in done.stdout + done.stderr
            assert HEADER_SECRET not in done.stdout + done.stderr
            if as_json:
                assert "[REDACTED]" in done.stdout  # the echoed results were there, redacted
                server.script(
                    Reply(calls, stop="tool_calls"), final(server.protocol, "Done.", expect)
                )
    (first, second) = home.sessions()
    for path in (first, second):
        text = path.read_text("utf-8")
        assert ENV_SECRET not in text and HEADER_SECRET not in text
        results = [r for r in home.records(path) if r["type"] == "tool_result"]
        assert {r["status"] for r in results} == {"done"}
        assert any("X=[REDACTED]" in r["output"] for r in results)
        assert any("you sent the token [REDACTED]" in r["output"] for r in results)
        session_id = path.stem
        for form in ("markdown", "json"):
            cli = [sys.executable, "-m", "tui_agent.cli", "export", session_id, "--format", form]
            exported = _run(home, cli)
            assert exported.returncode == 0, exported.stderr
            assert "you sent the token" in exported.stdout
            assert ENV_SECRET not in exported.stdout + exported.stderr
            assert HEADER_SECRET not in exported.stdout + exported.stderr
