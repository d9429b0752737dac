"""From config plus command-line flags to the one profile a session uses.

Order: ``--profile NAME``; else ``--protocol`` builds an ad-hoc profile; else ``default_profile``;
else the only profile defined. Flags ``--model``, ``--base-url``, ``--api-key-env`` (and
``--protocol`` with ``--profile``) override what the profile says.

The offline demo: with no profile to pick, no flags and no API key in the environment for any
protocol, the result is the reserved profile "demo" (protocol openai-chat, model "tui-agent-demo",
``base_url`` None: the app points it at its own loopback server). ``--profile demo`` or
``default_profile = "demo"`` choose it on purpose.

API keys: a profile's ``api_key_env`` names the variable, and then it must be set;
``api_key_env = ""`` means no key. Without ``api_key_env`` the protocol's default variable is used,
but only when base_url is the vendor's own host: a key is never sent to another server unless the
profile names it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..providers import PROTOCOLS
from ..providers.server_tools import supports_server_tools
from .errors import (
    ConfigError,
    MissingApiKeyError,
    MissingModelError,
    UnknownProfileError,
)
from .model import DEMO_PROFILE, Config, Profile, check_stateful
from .protocols import (
    check_base_url,
    is_official_host,
    known_protocol,
    normalize_base_url,
)

DEMO_PROTOCOL = "openai-chat"
DEMO_MODEL = "tui-agent-demo"
AD_HOC_PROFILE = "ad-hoc"
AD_HOC_PROTOCOL_WITH_BASE_URL = "openai-chat"  # --base-url alone means an OpenAI-compatible server


@dataclass(frozen=True)
class ResolvedProfile:
    """Everything needed to talk to one model; ``repr`` never shows the key."""

    name: str
    protocol: str
    model: str
    base_url: str | None  # normalized, no trailing slash; None only for the demo
    api_key: str | None = field(repr=False)
    api_key_env: str | None  # where the key came from, for messages
    options: Mapping[str, Any]
    stateful: bool
    max_tokens: int
    system_prompt: str | None  # None: the app's built-in prompt
    context_window: int | None = None  # tokens, as configured (None: ask the server, or a table)
    effort: str | None = None  # reasoning effort: low, medium, high (None: the model's default)
    server_tools: tuple[str, ...] = ()  # the provider's own tools switched on (web_search)

    @property
    def is_demo(self) -> bool:
        return self.name == DEMO_PROFILE


def resolve_profile(
    config: Config,
    *,
    profile: str | None = None,
    protocol: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> ResolvedProfile:
    """The profile to use, with flags applied and the API key read from ``environ``."""
    flags = [
        ("--protocol", protocol),
        ("--model", model),
        ("--base-url", base_url),
        ("--api-key-env", api_key_env),
    ]
    given = [flag for flag, value in flags if value is not None]
    name, base = _pick(config, profile, protocol, base_url, given, environ)
    if name == DEMO_PROFILE:
        if given:
            raise ConfigError(f"the demo profile takes no {', '.join(given)}")
        return demo_profile(config)

    chosen_protocol = protocol if protocol is not None else base.protocol
    spec = known_protocol(chosen_protocol)
    url = normalize_base_url(base_url) if base_url is not None else base.base_url
    url = url or spec.base_url
    check_base_url(chosen_protocol, url)
    check_stateful(chosen_protocol, base.stateful)
    if base.server_tools and not supports_server_tools(chosen_protocol):
        raise ConfigError(
            f"profile {name!r}: server_tools work with the anthropic, openai-responses, "
            f"gemini and gemini-interactions protocols, not {chosen_protocol}"
        )

    chosen_model = model if model is not None else base.model
    if chosen_model is None or not chosen_model.strip():
        if name == AD_HOC_PROFILE:
            raise MissingModelError(
                f"--protocol {chosen_protocol} needs a model too: pass --model MODEL"
            )
        raise MissingModelError(
            f'profile {name!r} names no model: add model = "..." to [profiles.{name}] or '
            "pass --model MODEL"
        )

    env_name = api_key_env if api_key_env is not None else base.api_key_env
    key, key_env = _api_key(name, chosen_protocol, url, env_name, environ)
    return ResolvedProfile(
        name=name,
        protocol=chosen_protocol,
        model=chosen_model.strip(),
        base_url=url,
        api_key=key,
        api_key_env=key_env,
        options=dict(base.options),
        stateful=base.stateful,
        max_tokens=base.max_tokens or config.settings.max_tokens,
        system_prompt=(
            base.system_prompt if base.system_prompt is not None else config.settings.system_prompt
        ),
        context_window=base.context_window or config.settings.context_window,
        effort=base.effort,
        server_tools=tuple(dict.fromkeys(base.server_tools)),
    )


def demo_profile(config: Config) -> ResolvedProfile:
    """The built-in offline model: no key, and no base_url until the app starts its server."""
    return ResolvedProfile(
        name=DEMO_PROFILE,
        protocol=DEMO_PROTOCOL,
        model=DEMO_MODEL,
        base_url=None,
        api_key=None,
        api_key_env=None,
        options={},
        stateful=False,
        max_tokens=config.settings.max_tokens,
        system_prompt=config.settings.system_prompt,
        context_window=config.settings.context_window,
    )


def _pick(
    config: Config,
    profile: str | None,
    protocol: str | None,
    base_url: str | None,
    given: list[str],
    environ: Mapping[str, str],
) -> tuple[str, Profile]:
    """The profile name and the table the flags are applied to."""
    if profile is not None:
        if profile == DEMO_PROFILE:
            return DEMO_PROFILE, _AD_HOC_BASE
        if profile not in config.profiles:
            known = ", ".join([*sorted(config.profiles), DEMO_PROFILE])
            raise UnknownProfileError(f"no profile named {profile!r}; known profiles: {known}")
        return profile, config.profiles[profile]
    if protocol is not None:
        known_protocol(protocol)  # an unknown protocol is named before anything else
        return AD_HOC_PROFILE, Profile(protocol=protocol)
    name = _default_name(config)
    if name is not None:
        return name, config.profiles.get(name, _AD_HOC_BASE)
    if base_url is not None:
        return AD_HOC_PROFILE, Profile(protocol=AD_HOC_PROTOCOL_WITH_BASE_URL)
    if given:
        raise ConfigError(
            f"{', '.join(given)} need a protocol: pass --protocol (one of "
            f"{', '.join(PROTOCOLS)}) or --profile NAME"
        )
    found = [env for env in _all_key_envs() if environ.get(env, "").strip()]
    if found:
        raise MissingModelError(
            f"{', '.join(found)} is set but no model is chosen: pass --protocol and --model, "
            "or add a profile to config.toml (or use --profile demo for the offline demo)"
        )
    return DEMO_PROFILE, _AD_HOC_BASE


def _default_name(config: Config) -> str | None:
    if config.default_profile is not None:
        return config.default_profile
    if len(config.profiles) == 1:
        return next(iter(config.profiles))
    if config.profiles:
        known = ", ".join(sorted(config.profiles))
        raise UnknownProfileError(
            f"config.toml defines several profiles ({known}) and no default_profile: "
            "choose one with --profile NAME, or set default_profile"
        )
    return None


def _api_key(
    name: str,
    protocol: str,
    base_url: str,
    env_name: str | None,
    environ: Mapping[str, str],
) -> tuple[str | None, str | None]:
    """The key and the variable it came from; (None, None) when this profile uses no key."""
    if env_name == "":
        return None, None
    if env_name is not None:
        candidates: tuple[str, ...] = (env_name,)
    elif is_official_host(protocol, base_url):
        candidates = known_protocol(protocol).key_envs
    else:
        return None, None  # a local or third-party server: only a named variable is sent to it
    for env in candidates:
        value = environ.get(env, "").strip()
        if value:
            return value, env
    wanted = " or ".join(candidates)
    if env_name is not None:
        raise MissingApiKeyError(
            f"profile {name!r} reads its API key from {env_name}, which is not set (or empty): "
            f"set {env_name}, or change api_key_env"
        )
    raise MissingApiKeyError(
        f"no API key for {protocol}: set {wanted} or choose a profile with api_key_env = ..."
    )


def _all_key_envs() -> list[str]:
    seen: dict[str, None] = {}
    for spec in PROTOCOLS.values():
        seen.update(dict.fromkeys(spec.key_envs))
    return list(seen)


# The base for the demo and for a chosen default of "demo": its fields are never read.
_AD_HOC_BASE = Profile(protocol=DEMO_PROTOCOL)
