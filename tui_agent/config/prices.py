"""The price table: the built-in one (``providers/cost.py``), with the config folder's
``prices.toml`` over it::

    [models."gpt-5"]
    input = 1.25          # US dollars per million input tokens
    output = 10.0         # per million output tokens (reasoning included)
    cached_input = 0.125  # optional: input read from a cache (default: as input)
    cache_write = 1.5     # optional: Anthropic's cache creation (default: as input)

A model's entry replaces the built-in one whole. A file that cannot be read as such is an error
that names it (and the key), like config.toml's.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

from ..providers.cost import BUILTIN, Price
from .errors import ConfigFileError

PRICES_FILE_NAME = "prices.toml"
_FIELDS = ("input", "output", "cached_input", "cache_write")


def prices_path(config_path: Path) -> Path:
    """``prices.toml`` beside ``config.toml``."""
    return config_path.with_name(PRICES_FILE_NAME)


def load_prices(path: Path | None) -> dict[str, Price]:
    """The built-in prices with the file's over them (only the built-in ones without a file)."""
    prices = dict(BUILTIN)
    if path is None:
        return prices
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return prices
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"price file {path} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"models"})
    if unknown:
        raise ConfigFileError(f"{path}: unknown key {unknown[0]!r} (only [models.NAME] tables)")
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ConfigFileError(f"{path}: models must be a table of [models.NAME] tables")
    for name, entry in models.items():
        prices[name.strip().lower()] = _price(path, name, entry)
    return prices


def _price(path: Path, name: str, entry: Any) -> Price:
    where = f"{path}: [models.{name!r}]"
    if not isinstance(entry, dict):
        raise ConfigFileError(f"{where} must be a table")
    extra = sorted(set(entry) - set(_FIELDS))
    if extra:
        raise ConfigFileError(f"{where}: unknown key {extra[0]!r} (keys: {', '.join(_FIELDS)})")
    values: dict[str, float] = {}
    for key in _FIELDS:
        value = entry.get(key)
        if value is None:
            if key in ("input", "output"):
                raise ConfigFileError(f"{where} needs {key} (US dollars per million tokens)")
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigFileError(f"{where}: {key} must be a number")
        if not math.isfinite(value) or value < 0:
            raise ConfigFileError(f"{where}: {key} must be 0 or more")
        values[key] = float(value)
    return Price(**values)
