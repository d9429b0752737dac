"""Themes as files: the package's themes/ folder, then the user's config folder's themes/.

A theme file is TOML with a ``name`` and Textual theme colours (primary, background, ...).
A bad file is skipped with a warning; it never stops the app. These are the only themes: Textual's
stock themes are dropped, so the palette's theme picker and ``--theme`` offer one set of names.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Protocol

from textual.theme import BUILTIN_THEMES, Theme

# Shipped inside the package (package data), so a wheel install has them too.
BUILTIN_DIR = Path(__file__).resolve().parents[1] / "themes"
DEFAULT_THEME = "dark"
# Names these themes had before they matched --theme.
_OLD_NAMES = {"tui-dark": "dark", "tui-light": "light", "tui-high-contrast": "high-contrast"}
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
                # The shipped files are checked by the tests, not on every start.
                themes.append(_theme(path, check=folder != BUILTIN_DIR))
            except (OSError, ValueError, TypeError) as exc:
                problems.append(f"theme {path.name} skipped: {exc}")
    return themes, problems


def _theme(path: Path, *, check: bool = True) -> Theme:
    """The theme a file holds, checked whole now (unless told not to): a colour Textual cannot
    parse raised only once the theme was applied, and stopped the app at start."""
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name must be a non-empty string")
    fields = {key: data[key] for key in _FIELDS if key in data}
    for key, value in fields.items():
        wanted = bool if key == "dark" else str
        if not isinstance(value, wanted):
            raise TypeError(f"{key} must be a {'true or false' if wanted is bool else 'string'}")
    theme = Theme(name=name, **fields)
    if not check:
        return theme
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # Textual's own parsing of the colours (ColorParseError...)
        raise ValueError(str(exc) or type(exc).__name__) from exc
    return theme


def theme_names(directories: list[Path] | None = None) -> list[str]:
    """The names ``--theme`` takes (the files' names, read without building their colours):
    checked before the screen starts, so an unknown one is an error, not a toast."""
    names: list[str] = []
    for folder in directories if directories is not None else theme_dirs():
        try:
            files = sorted(folder.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                name = tomllib.loads(path.read_text(encoding="utf-8")).get("name", path.stem)
            except (OSError, ValueError):
                continue
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names


def is_theme(name: str, directories: list[Path] | None = None) -> bool:
    return name in _OLD_NAMES or name in theme_names(directories)


class Themed(Protocol):
    """What themes are registered with and switched on: a Textual app."""

    theme: str

    @property
    def available_themes(self) -> dict[str, Theme]: ...

    def register_theme(self, theme: Theme) -> None: ...

    def unregister_theme(self, theme_name: str) -> None: ...


def register_themes(app: Themed) -> list[str]:
    themes, problems = load_themes()
    for theme in themes:
        app.register_theme(theme)
    return problems


def choose_theme(app: Themed, name: str | None) -> list[str]:
    """An app's theme at start: called from its ``__init__``, before the first frame's styles
    are parsed (switched once mounted, it made Textual parse and apply every style sheet a
    second time, ~40 ms of the first screen). The warnings are returned, to be shown once the
    app is mounted (it cannot notify before)."""
    problems = register_themes(app)
    if not apply_theme(app, name, registered=True) and name is not None:
        problems.append(f"no theme named {name!r}")
    return problems


def apply_theme(app: Themed, name: str | None, *, registered: bool = False) -> bool:
    """Switch to ``name`` (a theme file's name), or the default theme when it is None.

    False if there is no such theme (the default is used then). Textual's stock themes are
    unregistered afterwards, so they appear nowhere (the palette lists ours only). The theme
    files are read again (one may have been added since) unless the caller has just
    ``registered`` them.
    """
    if not registered:
        register_themes(app)
    wanted = _OLD_NAMES.get(name, name) if name is not None else DEFAULT_THEME
    found = wanted in app.available_themes
    if found:
        app.theme = wanted
    elif DEFAULT_THEME in app.available_themes:
        app.theme = DEFAULT_THEME
    for stock in BUILTIN_THEMES:
        if stock != app.theme:
            app.unregister_theme(stock)
    return found
