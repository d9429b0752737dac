"""Themes as files: the project's themes/ folder, then the user's config folder's themes/.

A theme file is TOML with a ``name`` and Textual theme colours (primary, background, ...).
A bad file is skipped with a warning; it never stops the app.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

BUILTIN_DIR = Path(__file__).resolve().parents[2] / "themes"
_FIELDS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
    "dark",
)


def theme_dirs() -> list[Path]:
    # The same folder as session.paths.config_dir(), without importing the session package
    # (and pydantic with it) before the first screen.
    import platformdirs

    config_dir = Path(platformdirs.user_config_dir("tui-agent", appauthor=False))
    return [BUILTIN_DIR, config_dir / "themes"]


def load_themes(directories: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every theme file found, and a warning per file that could not be used."""
    themes: list[Theme] = []
    problems: list[str] = []
    for folder in directories if directories is not None else theme_dirs():
        try:
            files = sorted(folder.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
                name = data.get("name") or path.stem
                fields = {k: data[k] for k in _FIELDS if k in data}
                themes.append(Theme(name=str(name), **fields))
            except (OSError, ValueError, TypeError) as exc:
                problems.append(f"theme {path.name} skipped: {exc}")
    return themes, problems


def register_themes(app: App[Any]) -> list[str]:
    themes, problems = load_themes()
    for theme in themes:
        app.register_theme(theme)
    return problems


def apply_theme(app: App[Any], name: str) -> bool:
    """Switch to ``name`` (a theme file's name or its file stem); False if there is none."""
    register_themes(app)
    aliases = {"dark": "tui-dark", "light": "tui-light", "high-contrast": "tui-high-contrast"}
    name = aliases.get(name, name)
    if name not in app.available_themes:
        return False
    app.theme = name
    return True
