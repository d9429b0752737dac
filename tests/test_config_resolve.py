"""Choosing the profile: flags over config, keys from the environment, the demo fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui_agent.config import (
    Config,
    ConfigError,
    MissingApiKeyError,
    MissingModelError,
    ResolvedProfile,
    UnknownProfileError,
    WorkspaceError,
    resolve_profile,
    resolve_workspace,
)

SECRET = "sk-test-very-secret-key"


def config(**profiles: dict[str, Any]) -> Config:
    return Config.model_validate({"profiles": profiles})


def test_demo_when_nothing_is_configured() -> None:
    resolved = resolve_profile(Config(), environ={})
    assert resolved.name == "demo"
    assert resolved.is_demo
    assert resolved.protocol == "openai-chat"
    assert resolved.model == "tui-agent-demo"
    assert resolved.base_url is None
    assert resolved.api_key is None


def test_demo_on_purpose_even_with_keys() -> None:
    resolved = resolve_profile(Config(), profile="demo", environ={"OPENAI_API_KEY": SECRET})
    assert resolved.is_demo
    default_demo = Config.model_validate({"default_profile": "demo"})
    assert resolve_profile(default_demo, environ={"OPENAI_API_KEY": SECRET}).is_demo


def test_demo_takes_no_flags() -> None:
    with pytest.raises(ConfigError, match="the demo profile takes no --model"):
        resolve_profile(Config(), profile="demo", model="gpt-5", environ={})


@pytest.mark.parametrize("env", ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"])
def test_a_key_but_no_model_is_an_error_not_the_demo(env: str) -> None:
    with pytest.raises(MissingModelError) as caught:
        resolve_profile(Config(), environ={env: SECRET})
    assert f"{env} is set but no model is chosen" in str(caught.value)
    assert "--profile demo" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_default_profile_and_key_from_default_env() -> None:
    cfg = Config.model_validate(
        {
            "default_profile": "gpt",
            "profiles": {
                "gpt": {"protocol": "openai-responses", "model": "gpt-5", "stateful": True},
                "claude": {"protocol": "anthropic", "model": "claude-sonnet-4-5"},
            },
        }
    )
    resolved = resolve_profile(cfg, environ={"OPENAI_API_KEY": f" {SECRET}\n"})
    assert resolved.name == "gpt"
    assert resolved.base_url == "https://api.openai.com/v1"
    assert resolved.api_key == SECRET
    assert resolved.api_key_env == "OPENAI_API_KEY"
    assert resolved.stateful
    assert resolved.max_tokens == 8192


def test_the_only_profile_is_the_default() -> None:
    cfg = config(claude={"protocol": "anthropic", "model": "claude-x", "max_tokens": 2000})
    resolved = resolve_profile(cfg, environ={"ANTHROPIC_API_KEY": SECRET})
    assert resolved.name == "claude"
    assert resolved.base_url == "https://api.anthropic.com"
    assert resolved.max_tokens == 2000


def test_several_profiles_and_no_default() -> None:
    cfg = config(a={"protocol": "gemini", "model": "m"}, b={"protocol": "gemini", "model": "m"})
    with pytest.raises(UnknownProfileError, match=r"several profiles \(a, b\).*--profile NAME"):
        resolve_profile(cfg, environ={})


def test_profile_flag_and_overrides() -> None:
    cfg = config(
        local={
            "protocol": "openai-chat",
            "model": "qwen3",
            "base_url": "http://localhost:11434/v1",
            "options": {"temperature": 0.2},
            "system_prompt": "local prompt",
        }
    )
    resolved = resolve_profile(
        cfg,
        profile="local",
        model="llama3.3",
        base_url="http://127.0.0.1:8080/v1///",
        environ={},
    )
    assert resolved.model == "llama3.3"
    assert resolved.base_url == "http://127.0.0.1:8080/v1"
    assert resolved.options == {"temperature": 0.2}
    assert resolved.system_prompt == "local prompt"
    assert resolved.api_key is None  # a local server: no key needed


def test_unknown_profile_lists_known_ones() -> None:
    cfg = config(gpt={"protocol": "openai-chat", "model": "m"})
    with pytest.raises(
        UnknownProfileError, match="no profile named 'gtp'; known profiles: gpt, demo"
    ):
        resolve_profile(cfg, profile="gtp", environ={})


def test_unknown_protocol_flag_lists_the_five() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_profile(Config(), protocol="claude", model="x", environ={})
    assert str(caught.value) == (
        "unknown protocol 'claude'; use one of: "
        "openai-responses, openai-chat, anthropic, gemini-interactions, gemini"
    )


def test_ad_hoc_protocol_builds_a_profile_ignoring_the_default() -> None:
    cfg = Config.model_validate(
        {"default_profile": "gpt", "profiles": {"gpt": {"protocol": "openai-chat", "model": "m"}}}
    )
    resolved = resolve_profile(
        cfg, protocol="gemini", model="gemini-2.5-flash", environ={"GOOGLE_API_KEY": SECRET}
    )
    assert resolved.name == "ad-hoc"
    assert resolved.base_url == "https://generativelanguage.googleapis.com"
    assert resolved.api_key_env == "GOOGLE_API_KEY"  # GEMINI_API_KEY first, then this


def test_gemini_key_prefers_gemini_api_key() -> None:
    env = {"GEMINI_API_KEY": "g1", "GOOGLE_API_KEY": "g2"}
    resolved = resolve_profile(Config(), protocol="gemini-interactions", model="m", environ=env)
    assert (resolved.api_key, resolved.api_key_env) == ("g1", "GEMINI_API_KEY")


def test_base_url_alone_means_an_openai_compatible_server() -> None:
    resolved = resolve_profile(
        Config(), base_url="http://localhost:1234/v1/", model="local-model", environ={}
    )
    assert (resolved.protocol, resolved.base_url) == ("openai-chat", "http://localhost:1234/v1")
    assert resolved.api_key is None


def test_model_without_protocol_needs_one() -> None:
    with pytest.raises(ConfigError, match="--model need a protocol: pass --protocol"):
        resolve_profile(Config(), model="gpt-5", environ={})


def test_missing_model() -> None:
    cfg = config(gpt={"protocol": "openai-chat"})
    with pytest.raises(MissingModelError, match=r"profile 'gpt' names no model: add model"):
        resolve_profile(cfg, environ={"OPENAI_API_KEY": SECRET})
    # Flags alone: the message speaks of the flags given, not of an "ad-hoc" profile.
    with pytest.raises(MissingModelError) as caught:
        resolve_profile(Config(), protocol="anthropic", environ={"ANTHROPIC_API_KEY": SECRET})
    assert str(caught.value) == "--protocol anthropic needs a model too: pass --model MODEL"


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        ("openai-chat", "set OPENAI_API_KEY or choose a profile with api_key_env = ..."),
        ("anthropic", "set ANTHROPIC_API_KEY or choose a profile with api_key_env = ..."),
        ("gemini", "set GEMINI_API_KEY or GOOGLE_API_KEY or choose a profile with api_key_env"),
    ],
)
def test_missing_default_key(protocol: str, expected: str) -> None:
    with pytest.raises(MissingApiKeyError, match=expected):
        resolve_profile(Config(), protocol=protocol, model="m", environ={})


def test_empty_key_counts_as_missing() -> None:
    with pytest.raises(MissingApiKeyError):
        resolve_profile(
            Config(), protocol="openai-chat", model="m", environ={"OPENAI_API_KEY": "  "}
        )


def test_named_key_env() -> None:
    cfg = config(
        router={
            "protocol": "openai-chat",
            "model": "openai/gpt-4o",
            "base_url": "https://openrouter.ai/api/v1",
            "api_key_env": "OPENROUTER_API_KEY",
        }
    )
    resolved = resolve_profile(cfg, environ={"OPENROUTER_API_KEY": SECRET, "OPENAI_API_KEY": "x"})
    assert (resolved.api_key, resolved.api_key_env) == (SECRET, "OPENROUTER_API_KEY")
    with pytest.raises(MissingApiKeyError) as caught:
        resolve_profile(cfg, environ={"OPENAI_API_KEY": "x"})
    assert str(caught.value) == (
        "profile 'router' reads its API key from OPENROUTER_API_KEY, which is not set "
        "(or empty): set OPENROUTER_API_KEY, or change api_key_env"
    )


def test_api_key_env_flag_overrides_the_profile() -> None:
    cfg = config(gpt={"protocol": "openai-chat", "model": "m", "api_key_env": "A_KEY"})
    resolved = resolve_profile(cfg, api_key_env="B_KEY", environ={"B_KEY": "b"})
    assert (resolved.api_key, resolved.api_key_env) == ("b", "B_KEY")


def test_default_key_is_never_sent_to_another_host() -> None:
    cfg = config(vllm={"protocol": "openai-chat", "model": "m", "base_url": "https://gpu.lan/v1"})
    resolved = resolve_profile(cfg, environ={"OPENAI_API_KEY": SECRET})
    assert resolved.api_key is None


def test_empty_api_key_env_means_no_key_even_for_the_official_host() -> None:
    cfg = config(gpt={"protocol": "openai-chat", "model": "m", "api_key_env": ""})
    assert resolve_profile(cfg, environ={}).api_key is None


def test_protocol_flag_checks_stateful_and_base_url_again() -> None:
    cfg = config(gpt={"protocol": "openai-responses", "model": "m", "stateful": True})
    with pytest.raises(ConfigError, match="stateful = true needs protocol"):
        resolve_profile(cfg, profile="gpt", protocol="openai-chat", environ={"OPENAI_API_KEY": "k"})
    with pytest.raises(ConfigError, match="should not end with '/v1'"):
        resolve_profile(
            Config(),
            protocol="anthropic",
            model="m",
            base_url="https://api.anthropic.com/v1/",
            environ={"ANTHROPIC_API_KEY": "k"},
        )
    with pytest.raises(ConfigError, match="not an http:// or https:// URL"):
        resolve_profile(Config(), base_url="localhost:8080", model="m", environ={})


def test_repr_never_contains_the_key() -> None:
    resolved = resolve_profile(
        Config(), protocol="openai-chat", model="m", environ={"OPENAI_API_KEY": SECRET}
    )
    assert resolved.api_key == SECRET
    assert SECRET not in repr(resolved)
    assert SECRET not in str(resolved)
    assert "OPENAI_API_KEY" in repr(resolved)
    assert isinstance(resolved, ResolvedProfile)


def test_settings_apply_to_the_resolved_profile() -> None:
    cfg = Config.model_validate(
        {
            "settings": {"system_prompt": "global", "max_tokens": 1000},
            "profiles": {"p": {"protocol": "anthropic", "model": "m"}},
        }
    )
    resolved = resolve_profile(cfg, environ={"ANTHROPIC_API_KEY": "k"})
    assert (resolved.system_prompt, resolved.max_tokens) == ("global", 1000)


def test_workspace(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    cfg = Config.model_validate({"settings": {"workspace": "proj"}})
    assert resolve_workspace(Config(), cwd=tmp_path) == tmp_path.resolve()
    assert resolve_workspace(cfg, cwd=tmp_path) == (tmp_path / "proj").resolve()
    assert resolve_workspace(cfg, str(tmp_path), cwd=tmp_path / "proj") == tmp_path.resolve()
    with pytest.raises(WorkspaceError, match="does not exist or is not a directory"):
        resolve_workspace(Config(), "missing", cwd=tmp_path)
