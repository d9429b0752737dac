"""Real hook scripts for the hook tests: small Python programs written to a test's folder."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from tui_agent.hooks import DeclaredHook, HookConfig, HookEvent, HookSource


def script(folder: Path, name: str, body: str) -> Path:
    """``body`` (Python, stdin holds the hook's JSON) as the file ``name`` in ``folder``."""
    path = folder / name
    path.write_text("import json, os, sys\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def hook(
    path: Path,
    event: HookEvent | str = HookEvent.PRE_TOOL_USE,
    *,
    source: HookSource = "config",
    **fields: Any,
) -> DeclaredHook:
    """A declared hook running ``path`` with this interpreter."""
    config = HookConfig.model_validate(
        {"event": str(event), "command": [sys.executable, str(path)], **fields}
    )
    return DeclaredHook(config, source, "config.toml" if source == "config" else "hooks.toml")


BLOCKING = """
data = json.load(sys.stdin)
if data["tool_input"].get("path", "").startswith("protected"):
    print("protected paths are read-only", file=sys.stderr)
    sys.exit(2)
"""

HANGING = """
import time
open(os.path.join(os.environ["TUI_AGENT_PROJECT_DIR"], "hang.pid"), "w").write(str(os.getpid()))
time.sleep(600)
"""

ESCAPES = """
json.load(sys.stdin)
sys.stderr.write("\\x1b]52;c;cGFzdGU=\\x07\\x1b[2Jgone\\u202e")
sys.exit(2)
"""

# A PostToolUse formatter in the way people write them: read the written file's path from
# tool_input, rewrite the file, say so on stderr with exit 2 so the model hears of it.
FORMATTER = """
data = json.load(sys.stdin)
path = os.path.join(data["cwd"], data["tool_input"]["path"])
with open(path) as f:
    text = f.read()
formatted = "\\n".join(line.rstrip() for line in text.splitlines()) + "\\n"
with open(path, "w") as f:
    f.write(formatted.replace("\\t", "    "))
print(f"formatted {data['tool_input']['path']}", file=sys.stderr)
sys.exit(2)
"""


def table(
    path: Path, event: HookEvent | str = HookEvent.PRE_TOOL_USE, **fields: Any
) -> dict[str, Any]:
    """A ``[[hooks]]`` table running ``path`` with this interpreter."""
    return {"event": str(event), "command": [sys.executable, str(path)], **fields}
