"""The import direction docs/ARCHITECTURE.md states, checked on the source.

Every import counts: at module level, inside functions (a lazy import is still a dependency) and
under ``if TYPE_CHECKING:`` (a type named from another package is a dependency too).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "tui_agent"

# Bottom first. A package may import from packages in lower layers only; packages that share a
# layer do not import each other. A top-level module (cli.py, turn_reader.py) is a unit of its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("text", "stream", "call_outcome"),  # the one sanitizer; stream events; call vocabulary
    ("conversation",),  # the messages a request is built from
    ("providers",),  # one package per wire protocol: request builder and event decoder
    ("turn_reader",),  # one response's events through a decoder into a turn
    ("transport",),  # HTTP, retries, the idle watchdog
    ("session", "sandbox", "approval"),  # the JSONL store; the OS sandbox; approval policy
    # redacting logs; file snapshots; trust store; images checked, scaled and kept by hash
    ("logs", "checkpoints", "workspace_trust", "images"),
    ("tools", "context"),  # tool specs and runners; the context window and compaction
    ("mcp", "demo", "prompting", "hooks"),  # MCP servers as tools; the demo model; templates,
    # @file; the person's hooks
    ("config",),  # settings and profiles, built of the models below
    ("agent",),  # the loop and a round of calls
    ("acp_client",),  # another agent over the Agent Client Protocol, as the loop's events
    ("wiring",),  # builds a session's host: config, demo, logs, tools, writer, the Agent
    ("replay", "serve", "export"),  # a session played back; the app on the web; exported
    ("commands",),  # the headless subcommands: run, sessions, export, replay --headless...
    ("ui",),  # the Textual app: the only package that imports textual
    ("cli",),  # the entry point: parses the command line, starts a command or an app
    ("__main__",),  # python -m tui_agent
)

# The package's own __init__ (``tui_agent``) is a face over turn_reader, imported by nobody inside.
ROOT_FACE = PACKAGE

# (importing module, imported module prefix): an upward import that cannot be fixed today, and why.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}

# Modules outside ui/ that may import textual, and why.
TEXTUAL_OUTSIDE_UI: dict[str, str] = {}


@dataclass(frozen=True)
class Import:
    """One import statement's target, resolved to an absolute module name."""

    source: str
    target: str
    line: int


def _module_name(path: Path) -> tuple[str, tuple[str, ...]]:
    """The dotted name of a source file and the package its relative imports start from."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), parts[:-1]
    return ".".join(parts), parts[:-1]


def _imports(path: Path) -> Iterator[Import]:
    source, package = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(source, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                module = node.module or ""
            else:
                base = list(package[: len(package) - node.level + 1])
                module = ".".join([*base, node.module] if node.module else base)
            yield Import(source, module, node.lineno)  # from . import a: the package's face
            # from a import b, c: each name may be a module (from . import app, from .ui import app)
            for alias in node.names:
                if alias.name != "*":
                    yield Import(source, f"{module}.{alias.name}", node.lineno)


def _all_imports() -> list[Import]:
    found: list[Import] = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        found.extend(_imports(path))
    return found


def _unit(module: str) -> str | None:
    """The layered unit a module belongs to: its top package or top-level module."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    if len(parts) == 1:
        return ROOT_FACE
    return parts[1]


def _layer_of() -> dict[str, int]:
    return {unit: index for index, layer in enumerate(LAYERS) for unit in layer}


def _excused(item: Import) -> bool:
    return any(
        item.source == source and (item.target == target or item.target.startswith(target + "."))
        for source, target in KNOWN_EXCEPTIONS
    )


def _internal_edges() -> list[tuple[str, str, Import]]:
    edges = []
    for item in _all_imports():
        source, target = _unit(item.source), _unit(item.target)
        if source is None or target is None or source == target:
            continue
        edges.append((source, target, item))
    return edges


def test_every_package_has_a_layer() -> None:
    units = {_unit(item.source) for item in _all_imports()}
    units |= {
        _unit(_module_name(path)[0]) for path in (ROOT / PACKAGE).rglob("*.py")
    }  # also modules that import nothing
    missing = sorted(str(u) for u in units - set(_layer_of()) - {ROOT_FACE, None})
    assert not missing, f"place these in LAYERS (and docs/ARCHITECTURE.md): {missing}"


def test_imports_only_go_down() -> None:
    layer = _layer_of()
    wrong = [
        f"{item.source}:{item.line} imports {item.target} ({source} -> {target})"
        for source, target, item in _internal_edges()
        if source != ROOT_FACE
        and layer.get(target, -1) >= layer.get(source, -1)
        and not _excused(item)
    ]
    assert not wrong, "upward or sideways imports:\n" + "\n".join(wrong)


def test_known_exceptions_are_still_needed() -> None:
    used = {
        (source, target)
        for item in _all_imports()
        for source, target in KNOWN_EXCEPTIONS
        if item.source == source and (item.target == target or item.target.startswith(target + "."))
    }
    stale = sorted(set(KNOWN_EXCEPTIONS) - used)
    assert not stale, f"no longer imported, drop from KNOWN_EXCEPTIONS: {stale}"


def test_no_package_cycle() -> None:
    """Known exceptions included: an excused upward import may still not close a circle."""
    graph: dict[str, set[str]] = {}
    for source, target, _ in _internal_edges():
        graph.setdefault(source, set()).add(target)
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "package cycles: " + "; ".join(" -> ".join(c) for c in cycles)


# ui/ has the app on top: its feature modules take the app's face (``ui/shell.py``), and the
# only module that imports the app is the entry point, which makes it.
APP = f"{PACKAGE}.ui.app"
APP_IMPORTERS = frozenset({f"{PACKAGE}.cli"})


def test_only_the_entry_point_imports_the_app() -> None:
    importing = [
        item
        for item in _all_imports()
        if item.source != APP and (item.target == APP or item.target.startswith(APP + "."))
    ]
    wrong = [
        f"{item.source}:{item.line} imports {item.target}"
        for item in importing
        if item.source not in APP_IMPORTERS
    ]
    assert not wrong, "take ui.shell.Shell instead of the app:\n" + "\n".join(wrong)
    seen = {item.source for item in importing}
    assert seen == APP_IMPORTERS, f"the entry point no longer imports the app: {seen}"


def test_providers_do_not_import_each_other() -> None:
    wrong = []
    for item in _all_imports():
        src, dst = item.source.split("."), item.target.split(".")
        if (
            len(src) > 3
            and len(dst) > 2
            and src[:2] == dst[:2] == [PACKAGE, "providers"]
            and dst[2] != src[2]
            and (ROOT / PACKAGE / "providers" / dst[2]).is_dir()
        ):
            wrong.append(f"{item.source}:{item.line} imports {item.target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("module_prefix", ["textual"])
def test_only_the_ui_imports_textual(module_prefix: str) -> None:
    wrong = [
        f"{item.source}:{item.line} imports {item.target}"
        for item in _all_imports()
        if (item.target == module_prefix or item.target.startswith(module_prefix + "."))
        and _unit(item.source) != "ui"
        and item.source not in TEXTUAL_OUTSIDE_UI
    ]
    assert not wrong, "\n".join(wrong)


def test_textual_exceptions_are_still_needed() -> None:
    importing = {
        item.source
        for item in _all_imports()
        if item.target == "textual" or item.target.startswith("textual.")
    }
    stale = sorted(set(TEXTUAL_OUTSIDE_UI) - importing)
    assert not stale, f"no longer importing Textual, drop from TEXTUAL_OUTSIDE_UI: {stale}"


def test_the_map_names_every_layered_package() -> None:
    """docs/ARCHITECTURE.md's layer table stays true: each unit here is named there."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [
        unit
        for layer in LAYERS
        for unit in layer
        if f"`{unit}/`" not in text and f"`{unit}.py`" not in text
    ]
    assert not missing, f"docs/ARCHITECTURE.md does not name: {missing}"


def _module_graph() -> dict[str, set[str]]:
    """Every module of the package and the modules it imports, however it imports them.

    ``import a.b.c`` and ``from a.b.c import name`` depend on ``a.b.c`` (the parents' faces
    are not counted: a package's ``__init__`` may re-export its own modules); ``from pkg import
    name`` depends on ``pkg``'s ``__init__`` and, when ``name`` is a submodule, on it too.
    """
    names = {_module_name(path)[0] for path in (ROOT / PACKAGE).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for item in _all_imports():
        parts = item.target.split(".")
        while parts and ".".join(parts) not in names:
            parts.pop()  # a name inside a module: the module
        target = ".".join(parts)
        if target and target != item.source:
            graph[item.source].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_cycle() -> None:
    """No circle of imports between modules, counting every import (no allow-list): a helper
    that would import what imports it takes a small Protocol instead (see ui/shell.py)."""
    cycles = _cycles(_module_graph())
    assert not cycles, "module cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_sees_a_circle_through_a_package_face() -> None:
    graph = {
        "p": {"p.a"},  # p/__init__.py: from .a import X
        "p.a": {"p.b"},
        "p.b": {"p"},  # from . import helpers: runs p/__init__.py
        "q": set(),
    }
    assert _cycles(graph) == [["p", "p.a", "p.b"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_what_crosses_up_is_frozen_but_the_two_stream_deltas() -> None:
    """docs/ARCHITECTURE.md's statement on agent events, checked."""
    import dataclasses
    import typing

    from tui_agent.agent.events import AgentEvent
    from tui_agent.stream.events import ReasoningDelta, TextDelta

    kinds = typing.get_args(AgentEvent)
    assert len(kinds) > 10
    not_frozen = {kind for kind in kinds if not kind.__dataclass_params__.frozen}
    assert not_frozen == {TextDelta, ReasoningDelta}, not_frozen
    assert all(dataclasses.is_dataclass(kind) for kind in kinds)
