"""A bad theme file is skipped with a warning and never stops the app (issue 24: a bad colour
crashed it at start). Through the real app under Pilot, with theme files in the config folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.themes import load_themes
from tui_agent.wiring.host_options import HostOptions

from .ui_app_helpers import make_env

BAD = {
    "colour": 'name = "broken"\nprimary = "notacolour"\n',
    "hex": 'name = "broken"\nbackground = "#zzzzzz"\n',
    "empty colour": 'name = "broken"\naccent = ""\n',
    "number colour": 'name = "broken"\nprimary = 5\n',
    "dark not a bool": 'name = "broken"\nprimary = "red"\ndark = "yes"\n',
    "name not a string": 'name = 3\nprimary = "red"\n',
    "not toml": 'name = "broken\n',
}
GOOD = 'name = "mine"\nprimary = "#ff8800"\nbackground = "#101010"\ndark = true\n'


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "config" / "tui-agent" / "themes"
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize("case", BAD)
def test_a_bad_theme_file_is_skipped_with_the_reason(case: str, tmp_path: Path) -> None:
    folder = tmp_path / "themes"
    folder.mkdir()
    (folder / "broken.toml").write_text(BAD[case])
    (folder / "mine.toml").write_text(GOOD)
    themes, problems = load_themes([folder])
    assert [theme.name for theme in themes] == ["mine"]
    (problem,) = problems
    assert problem.startswith("theme broken.toml skipped: "), problem


@pytest.mark.parametrize("chosen", ["broken", None, "mine"])
async def test_the_app_starts_past_a_bad_theme_file(
    chosen: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    folder = _folder(tmp_path)
    (folder / "broken.toml").write_text(BAD["colour"])
    (folder / "mine.toml").write_text(GOOD)
    app = TuiAgentApp(HostOptions(workspace=str(env.workspace)), theme_name=chosen)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert app.is_running
        assert app.theme == ("mine" if chosen == "mine" else "dark")
        toasts = "\n".join(str(n.message) for n in app._notifications)
        assert "theme broken.toml skipped" in toasts and "notacolour" in toasts
        if chosen == "broken":
            assert "no theme named 'broken'" in toasts
        assert "broken" not in app.available_themes
        await pilot.press("ctrl+q")
    assert app.return_code in (0, None)


def test_the_shipped_themes_pass_the_check_a_users_file_gets() -> None:
    # Not checked on every start (their colour systems cost ~3 ms each): checked here.
    from tui_agent.ui.themes import BUILTIN_DIR, _theme

    files = sorted(BUILTIN_DIR.glob("*.toml"))
    assert len(files) >= 3
    for path in files:
        _theme(path, check=True).to_color_system().generate()
