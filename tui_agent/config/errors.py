"""Errors a user can meet while we read config.toml and pick a profile."""

from __future__ import annotations


class ConfigError(Exception):
    """Something about the configuration is wrong; the message says what and how to fix it."""


class ConfigFileError(ConfigError):
    """config.toml cannot be read, is not TOML, or has a wrong or misspelled key."""


class UnknownProfileError(ConfigError):
    """The profile asked for is not in config.toml."""


class MissingApiKeyError(ConfigError):
    """The environment variable that should hold the API key is unset or empty."""


class MissingModelError(ConfigError):
    """No model was named by the profile or by --model."""


class WorkspaceError(ConfigError):
    """The workspace directory does not exist or is not a directory."""
