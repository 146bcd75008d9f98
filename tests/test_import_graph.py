"""The import graph of ``src/robustcall`` keeps its layers (docs/architecture.md):

(a) no module imports another package's private modules (``robustcall.<pkg>._x``): a package's API
    is what its ``__init__`` exports;
(b) no package imports ``run`` except ``card``, ``mcp`` and the top layer (``cli``, ``web``, ``interop``,
    ``inspect_task.py``);
(c) ``run`` imports neither ``score`` nor ``metrics``;
(d) ``core`` imports nothing else of ours;
(e) below the top layer, a package imports only from the groups left of its own in ``LAYERS``
    (the picture in docs/architecture.md).

Every import counts, inside functions and ``TYPE_CHECKING`` blocks too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "robustcall"
TOP = {"cli", "web", "interop", "inspect_task"}
"""The layer above ``run``: it may import anything."""
RUNNERS = TOP | {"card", "mcp"}
"""What may import ``run``: the top layer, ``card``, whose protocol drives the runs itself, and ``mcp``, whose task
runner hands its episodes to the one loop."""

LAYERS: list[set[str]] = [
    {"core", "_native"},  # _native: the compiled-module list setup.py and --version read (no imports of ours)
    {"sources", "formats", "metrics"},
    {"models", "envs"},
    {"perturb", "faults", "interface", "score"},
    {"rewards", "run"},
    {"train", "report", "mcp"},
    {"card"},
    TOP,
]
"""docs/architecture.md's picture, lowest first."""

# (importing file, imported module, rule) that still offend, each with the helper whose work removes
# it. The test fails when an entry no longer offends, so that the set shrinks to empty as fixes land.
KNOWN_OFFENDERS: set[tuple[str, str, str]] = set()


def _package(path: Path) -> str:
    rel = path.relative_to(SRC).parts
    return rel[0].removesuffix(".py") if rel else ""


def _imports(path: Path) -> list[str]:
    """Every ``robustcall...`` module the file imports (``from pkg import _mod`` as ``pkg._mod``)."""
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] == "robustcall"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "robustcall":
                continue
            out.append(node.module)
            out += [
                f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and node.module != "robustcall"
            ]
    return out


def _layer(pkg: str) -> int:
    return next(i for i, group in enumerate(LAYERS) if pkg in group)


def offences() -> set[tuple[str, str, str]]:
    found: set[tuple[str, str, str]] = set()
    for path in sorted(SRC.rglob("*.py")):
        pkg = _package(path)
        where = path.relative_to(SRC).as_posix()
        for module in _imports(path):
            parts = module.split(".")
            target = parts[1] if len(parts) > 1 else ""
            if target == pkg or not target:  # its own package, or the root's ``__version__``
                continue
            if pkg == "__init__":  # the root package: it only runs _native's stale-extension guard
                if target != "_native":
                    found.add((where, module, "the root imports more than _native"))
                continue
            if any(p.startswith("_") for p in parts[2:]):
                found.add((where, module, "private"))
            if target == "run" and pkg not in RUNNERS:
                found.add((where, module, "imports run"))
            if pkg == "run" and target in ("score", "metrics"):
                found.add((where, module, "run imports score/metrics"))
            if pkg == "core":
                found.add((where, module, "core imports upward"))
            if pkg not in TOP and _layer(target) >= _layer(pkg):
                found.add((where, module, "imports its own layer or above"))
    return found


def test_the_walk_reads_every_kind_of_import(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "import robustcall.models._api\nfrom robustcall.run import _engine, plan_work\nimport json\n"
        "from robustcall import __version__\ndef f():\n    from robustcall.score._scorer import x\n"
    )
    assert _imports(src) == [
        "robustcall.models._api",
        "robustcall.run",
        "robustcall.run._engine",
        "robustcall",
        "robustcall.score._scorer",
    ]
    files = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")}
    assert {"core/__init__.py", "run/__init__.py", "cli/main.py", "inspect_task.py"} <= files


def test_every_package_has_a_layer() -> None:
    packages = {_package(p) for p in SRC.rglob("*.py")} - {"__init__"}
    assert packages == set().union(*LAYERS)


def test_the_layers_hold() -> None:
    found = offences()
    new = sorted(found - KNOWN_OFFENDERS)
    assert not new, "imports that break the layers (see the module docstring):\n" + "\n".join(map(str, new))


def test_every_known_offender_still_offends() -> None:
    fixed = sorted(KNOWN_OFFENDERS - offences())
    assert not fixed, "fixed: remove these from KNOWN_OFFENDERS in tests/test_import_graph.py:\n" + "\n".join(
        map(str, fixed)
    )


def _module_name(path: Path) -> str:
    parts = ("robustcall", *path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_edges(path: Path, modules: set[str]) -> set[str]:
    """The modules of ours the file imports: ``from pkg import name`` is an edge to ``pkg.name`` where
    that is a module, else to ``pkg`` (its ``__init__``); a package's own submodules are no self-edge."""
    me = _module_name(path)
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module in modules:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
    return out - {me}


def import_cycles() -> list[list[str]]:
    """Every set of modules that import one another in a circle (strongly connected components of the
    module graph with more than one member), each sorted."""
    paths = sorted(SRC.rglob("*.py"))
    modules = {_module_name(path) for path in paths}
    graph = {_module_name(path): _module_edges(path, modules) for path in paths}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the graph is a few hundred modules deep at most
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                members.append(top)
                if top == node:
                    break
            if len(members) > 1:
                cycles.append(sorted(members))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(cycles)


def test_the_cycle_finder_finds_a_circle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "robustcall" / "envs"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from robustcall.envs._a import A\n")
    (pkg / "_a.py").write_text("def f():\n    from robustcall.envs._b import B\n")
    (pkg / "_b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from robustcall.envs._a import A\n"
    )
    (pkg / "_c.py").write_text("from robustcall.envs._a import A\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path / "robustcall")
    assert import_cycles() == [["robustcall.envs._a", "robustcall.envs._b"]]


def test_no_module_imports_in_a_circle() -> None:
    """A circle (even through a function-level or ``TYPE_CHECKING`` import) means two modules are one
    concern split in two, or a third one is missing; none is left (issue 38)."""
    assert import_cycles() == []
