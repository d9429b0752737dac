"""The sandbox's settings: config keys (strictly checked), the profile's network switch, the
command line's --sandbox, and ``tui-agent doctor``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace

import pytest
from pydantic import ValidationError

from tui_agent.cli import _parser
from tui_agent.config.model import Config
from tui_agent.sandbox import DEFAULT_DENIED_PATHS, SandboxMode, detect
from tui_agent.sandbox.protections import approval_warning, report
from tui_agent.wiring.sandbox_choice import session_policy, set_cli_mode


@pytest.fixture(autouse=True)
def no_cli_mode() -> Iterator[None]:
    set_cli_mode(None)
    yield
    set_cli_mode(None)


def test_defaults_confine_without_network() -> None:
    policy = session_policy(Config())
    assert policy.mode is SandboxMode.WORKSPACE_WRITE
    assert not policy.network
    assert policy.denied == DEFAULT_DENIED_PATHS
    assert "~/.ssh" in policy.denied and "~/.netrc" in policy.denied


def test_settings_the_profile_and_the_command_line_in_that_order() -> None:
    config = Config.model_validate(
        {
            "settings": {"sandbox": "read-only", "sandbox_network": True},
            "profiles": {"local": {"protocol": "openai-chat", "sandbox_network": False}},
        }
    )
    assert session_policy(config).label() == "read-only, network"
    assert session_policy(config, "local").label() == "read-only, no network"
    set_cli_mode(SandboxMode.OFF)
    assert session_policy(config, "local").label() == "off (unconfined)"


@pytest.mark.parametrize(
    "settings",
    [
        {"sandbox": "bogus"},
        {"sandbox_network": "yes"},
        {"sandbox_denied_paths": "~/.ssh"},
        {"sandbox_max_processes": 1},
        {"sandbox_denied": []},
    ],
)
def test_bad_sandbox_settings_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Config.model_validate({"settings": settings})


def test_the_sandbox_flag_on_the_app_and_on_run() -> None:
    assert _parser().parse_args(["--sandbox", "off"]).sandbox == "off"
    assert _parser().parse_args(["run", "--sandbox", "read-only", "hi"]).sandbox == "read-only"
    with pytest.raises(SystemExit):
        _parser().parse_args(["--sandbox", "none"])


def test_doctor_says_which_protections_are_active() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "doctor"], capture_output=True, text=True, timeout=60
    )
    assert "sandbox: workspace-write, no network" in done.stdout
    assert "file system" in done.stdout and "network cut" in done.stdout
    caps = detect()
    assert done.returncode == (0 if caps.landlock_abi and caps.fresh_proc else 2)


def test_a_missing_protection_is_named_with_its_reason() -> None:
    policy = session_policy(Config())
    caps = detect().__class__(0, "the kernel is too old", False, "no user namespaces", False, "")
    text = report(policy, caps)
    assert "[MISSING] file system" in text and "the kernel is too old" in text
    assert "[MISSING] process lifetime" in text and "no user namespaces" in text
    assert "protection missing" in approval_warning(policy, caps)
    assert approval_warning(policy.with_mode(SandboxMode.OFF), caps).startswith("sandbox off")


def test_without_namespaces_doctor_says_how_the_network_is_cut() -> None:
    policy = session_policy(Config())
    fallback = replace(detect(), namespaces=False, fresh_proc=False, landlock_abi=7, seccomp=True)
    expected = "[active ] network cut: a seccomp filter refuses internet sockets"
    assert expected in report(policy, fallback)
    landlock_only = replace(fallback, seccomp=False)
    assert "refuses TCP (UDP still passes)" in report(policy, landlock_only)
