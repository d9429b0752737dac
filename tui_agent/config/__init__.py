"""config.toml: profiles, settings, saved approval rules, and choosing the profile to use."""

from .errors import (
    ConfigError,
    ConfigFileError,
    MissingApiKeyError,
    MissingModelError,
    UnknownProfileError,
    WorkspaceError,
)
from .load import default_config_path, load_config
from .model import Config, Settings
from .resolve import ResolvedProfile, resolve_profile
from .save import forget_rule, remember_rule, save_approval_rules
from .workspace import resolve_workspace

__all__ = [
    "Config",
    "ConfigError",
    "ConfigFileError",
    "MissingApiKeyError",
    "MissingModelError",
    "ResolvedProfile",
    "Settings",
    "UnknownProfileError",
    "WorkspaceError",
    "default_config_path",
    "forget_rule",
    "load_config",
    "remember_rule",
    "resolve_profile",
    "resolve_workspace",
    "save_approval_rules",
]
