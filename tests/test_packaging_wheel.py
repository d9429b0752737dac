"""A built wheel, installed into a fresh virtual environment, is the whole app.

The wheel is built from a copy of the tracked files (the checkout stays clean), installed with
``--no-deps`` into a new venv whose dependencies come from this interpreter's site-packages
through a ``.pth`` line. A ``.pth`` line only adds a folder to ``sys.path``; the ``.pth`` files
inside that folder (the editable install's finder among them) are not run, so ``tui_agent``
can only come from the wheel, which the test checks.

There the app starts with ``--theme light`` (headless, under Textual's test driver: the theme
files are package data) and ``tui-agent run`` talks to the offline demo model.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[1]

APP_CHECK = r"""
import asyncio, sys
import tui_agent
from tui_agent.wiring.host_options import HostOptions
from tui_agent.ui.app import TuiAgentApp

async def main():
    app = TuiAgentApp(HostOptions(profile="demo", workspace=sys.argv[1]), theme_name="light")
    async with app.run_test() as pilot:
        await pilot.pause()
        print(tui_agent.__file__)
        print(app.theme)
        print(",".join(sorted(app.available_themes)))

asyncio.run(main())
"""


def _tracked_copy(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        source = ROOT / rel
        if not source.is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / rel)


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    _tracked_copy(src)
    dist = base / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheels = list(dist.glob("tui_agent-*.whl"))
    assert len(wheels) == 1, wheels
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "host_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheels[0]),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return env_dir


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        TUI_AGENT_DEMO_PACE="0",
    )
    env.pop("PYTHONPATH", None)
    return env


def test_wheel_ships_themes_and_starts_with_light(wheel_env: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [str(wheel_env / "bin" / "python"), "-c", APP_CHECK, str(workspace)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    where, theme, available = done.stdout.strip().splitlines()[-3:]
    assert Path(where).resolve().is_relative_to(wheel_env.resolve()), where
    assert theme == "light"
    # One theme system: ours, named as --theme names them; none of Textual's stock themes.
    assert available.split(",") == ["dark", "high-contrast", "light"]


def test_wheel_run_talks_to_the_demo_model(wheel_env: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [str(wheel_env / "bin" / "tui-agent"), "run", "hello", "--workspace", str(workspace)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the demo model answered nothing"
