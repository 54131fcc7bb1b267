"""The direction of imports (docs/architecture.md, "Layout"), read from the source, no import cycle, and a clean import
of every module.

Imports run one way: cli -> graph -> tools -> retrievers, with evals beside cli (it runs the graph too; neither imports
the other but cli, for its `eval` and `bench` commands), and graph -> chat and retrievers -> chat (the chat model,
which plans and writes answers, and reads fields from documents at extraction), graph -> prompts,
tools -> prompts (tools reads its descriptions from prompts). Below them all, `core` (errors, settings, the data
model, scopes) and `english` (the words of the language) may be imported by every package; `english` imports only
`core`, and `core` nothing. A module may import its own package and the packages below it; nothing imports cli;
nothing in tools or chat knows about LangGraph; nothing in retrievers knows about LangGraph or LangChain.
Every import counts: module-level and inside functions, `import x` and `from x import y`, relative imports
resolved against the importing module's package, and `importlib.import_module("x")` with a literal name.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Who may import whom directly (docs/architecture.md, "Layout"); a package may import everything reachable from it, and
# every package but those beneath all may import those (BENEATH_ALL).
EDGES = {
    "cli": {"evals", "graph"},
    "evals": {"graph"},
    "graph": {"tools", "prompts", "chat"},
    "chat": set(),
    "tools": {"retrievers", "prompts"},
    "retrievers": {"chat"},
    "prompts": set(),
    "english": {"core"},
    "core": set(),
}
BENEATH_ALL = ("core", "english")
PACKAGES = tuple(EDGES)

# Third-party families a package must not import (by the top-level module name's prefix).
BANNED_PREFIXES = {
    "chat": ("langgraph",),  # the chat model and its server know nothing of the agent
    "tools": ("langgraph",),  # "nothing in tools knows about LangGraph" (langgraph, langgraph_sdk, ...)
    "retrievers": (
        "langgraph",
    ),  # "nothing in retrievers knows about the agent" (an embeddings client from langchain-openai is an engine)
}


def _reachable(*packages: str) -> set[str]:
    """`packages` and every package reachable from them by EDGES."""
    seen, todo = set(packages), list(packages)
    while todo:
        for below in EDGES[todo.pop()]:
            if below not in seen:
                seen.add(below)
                todo.append(below)
    return seen


ALLOWED = {
    package: _reachable(package) | (set() if package in BENEATH_ALL else _reachable(*BENEATH_ALL)) for package in EDGES
}


def _source_files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _from_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of the module a `from ... import` statement of `module` imports from."""
    if not node.level:
        return node.module
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `source`, the module `module` (a package when `is_package`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, _from_module(node, module, is_package)))
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if (
                name in ("import_module", "__import__")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and not node.args[0].value.startswith(".")
            ):
                found.append((node.lineno, node.args[0].value))
    return found


def offences(package: str) -> list[str]:
    """`file:line imports module (why)` for every import of `package`'s modules that goes against the layers."""
    found = []
    for path in _source_files(package):
        module = _module_name(path)
        for line, imported in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            top = imported.split(".")[0]
            where = f"{path.relative_to(ROOT)}:{line}"
            if top in EDGES and top not in ALLOWED[package]:
                found.append(
                    f"{where} imports {imported} ({package} may import only {', '.join(sorted(ALLOWED[package]))})"
                )
            elif top.startswith(BANNED_PREFIXES.get(package, ())):
                found.append(
                    f"{where} imports {imported} (nothing in {package} may import {'/'.join(BANNED_PREFIXES[package])})"
                )
    return found


@pytest.mark.parametrize(
    "source, module, is_package, expected",
    [
        ("from . import nodes", "graph.builder", False, "graph"),
        ("from .state import AgentState", "graph.builder", False, "graph.state"),
        ("from ..tools import x", "graph.nodes.plan", False, "graph.tools"),
        ("from ...tools import x", "graph.nodes.plan", False, "tools"),
        ("from .base import Planner", "graph.planners", True, "graph.planners.base"),
        ("def f():\n    import langgraph.types", "tools.registry", False, "langgraph.types"),
        ("importlib.import_module('retrievers.loaders.cuad')", "retrievers.loaders", True, "retrievers.loaders.cuad"),
    ],
)
def test_imports_are_found_anywhere_and_relative_ones_resolved(source, module, is_package, expected):
    assert [name for _, name in imports_of(source, module, is_package)] == [expected]


def test_the_packages_have_modules_and_the_layers_are_as_designed():
    assert all(_source_files(package) for package in PACKAGES)
    assert ALLOWED["cli"] == set(EDGES)
    assert not any("cli" in ALLOWED[p] for p in EDGES if p != "cli")
    assert "evals" not in ALLOWED["graph"] and ALLOWED["evals"] == set(EDGES) - {"cli"}
    assert ALLOWED["retrievers"] == {"retrievers", "chat", "core", "english"}
    assert ALLOWED["prompts"] == {"prompts", "core", "english"}
    assert ALLOWED["english"] == {"english", "core"} and ALLOWED["core"] == {"core"}


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_run_one_way(package):
    found = offences(package)
    assert not found, f"{len(found)} import(s) against the layers in {package}/:\n" + "\n".join(found)


# -- no import cycle -----------------------------------------------------------------------------------------------


def project_imports() -> dict[str, set[str]]:
    """Each module of the packages and the modules of the packages it imports (as `imports_of` finds them, and a
    submodule named by `from package import submodule`), itself left out."""
    paths = {_module_name(p): p for package in PACKAGES for p in _source_files(package)}
    graph = {}
    for module, path in paths.items():
        source, is_package = path.read_text(encoding="utf-8"), path.name == "__init__.py"
        named = {name for _, name in imports_of(source, module, is_package)}
        named |= {
            f"{_from_module(node, module, is_package)}.{alias.name}"
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        graph[module] = {name for name in named if name in paths and name != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (its modules in import order, the first again at the end) in each strongly connected component of
    more than one module of `graph` (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, below = work[-1]
            step = next(below, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_cycle_through(graph, component) for component in components]


def _cycle_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle from the first module of `component` back to itself, inside the component."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for step in sorted(graph[node] & component):
            if step == start:
                return paths[node] + [start]
            if step not in paths:
                paths[step] = paths[node] + [step]
                todo.append(step)
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


def test_import_cycles_are_found_and_said():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}, "f": {"g"}, "g": {"f"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"], ["f", "g", "f"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_project_modules():
    graph = project_imports()
    assert "cli.remote" in graph["cli.commands"], "`from cli import remote` (in a function) counts"
    cycles = import_cycles(graph)
    assert not cycles, f"{len(cycles)} import cycle(s):\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


# -- every module imports, and importing opens nothing ------------------------------------------------------------

# Run in a fresh interpreter, so that what a module does at import is seen whatever this test session has already
# imported, and so that the guards (which replace engine entry points) cannot leak into other tests.
IMPORT_ALL = r"""
import importlib, json, socket, sys, threading, traceback
import psutil

opened = []

def forbid(what):
    def refuse(*args, **kwargs):
        opened.append((current[0], what))
        raise RuntimeError(f"{what} at import")
    return refuse

import psycopg, psycopg_pool, pgserver, qdrant_client, opensearchpy
psycopg.connect = forbid("psycopg.connect")
psycopg.Connection.connect = classmethod(forbid("psycopg.Connection.connect"))
psycopg.AsyncConnection.connect = classmethod(forbid("psycopg.AsyncConnection.connect"))
psycopg_pool.ConnectionPool.__init__ = forbid("psycopg_pool.ConnectionPool")
psycopg_pool.AsyncConnectionPool.__init__ = forbid("psycopg_pool.AsyncConnectionPool")
pgserver.get_server = forbid("pgserver.get_server (embedded Postgres)")
qdrant_client.QdrantClient.__init__ = forbid("qdrant_client.QdrantClient")
opensearchpy.OpenSearch.__init__ = forbid("opensearchpy.OpenSearch")
socket.socket.connect = forbid("socket.connect")
import subprocess
subprocess.Popen.__init__ = forbid("subprocess.Popen")

process = psutil.Process()
files_before = {f.path for f in process.open_files()}
threads_before = {t.ident for t in threading.enumerate()}
current = [None]
failed, skipped = {}, {}
optional = set(sys.argv[2].split(","))
for name in sys.argv[1].split(","):
    current[0] = name
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as e:
        (skipped if (e.name or "").split(".")[0] in optional else failed)[name] = f"{type(e).__name__}: {e}"
    except BaseException as e:
        failed[name] = "".join(traceback.format_exception_only(type(e), e)).strip()

current[0] = "graph.server: schemas and drawing of the served graphs"
served = sys.modules.get("graph.server")
if served is not None:
    try:
        for graph in (served.agent, served.agent_single_loop, served.ingest):
            graph.get_input_jsonschema(), graph.get_output_jsonschema(), graph.get_graph()
    except BaseException as e:
        failed[current[0]] = "".join(traceback.format_exception_only(type(e), e)).strip()

print(json.dumps({
    "failed": failed, "skipped": skipped, "opened": opened,
    "children": [" ".join(c.cmdline()) for c in process.children(recursive=True)],
    "files": sorted({f.path for f in process.open_files()} - files_before),
    "threads": [t.name for t in threading.enumerate() if t.ident not in threads_before],
    "model_libraries": sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules),
}))
"""


def _importable_modules() -> list[str]:
    """Every module of the packages, but `__main__` modules: they run the program when imported (`python -m cli`)."""
    return [_module_name(p) for package in PACKAGES for p in _source_files(package) if p.name != "__main__.py"]


def _optional_imports() -> set[str]:
    """Top-level import names of the optional `bench` extra: modules needing them may be absent from a test venv."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in extras.get("bench", [])}
    return {name.lower().replace("-", "_") for name in names}


def _import_everything(tmp_path: Path) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "QDRANT_URL", "OPENSEARCH_URL", "OPENAI_API_KEY")
    }
    env.update(
        RAGENT_HOME=str(tmp_path / "home"),
        RAGENT_CACHE_DIR=str(tmp_path / "cache"),
        HF_HUB_OFFLINE="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, ",".join(_importable_modules()), ",".join(sorted(_optional_imports()))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_every_module_imports_and_opens_no_engine_and_loads_no_model(tmp_path):
    report = _import_everything(tmp_path)
    problems = [f"{name} does not import: {error}" for name, error in report["failed"].items()]
    problems += [f"{name} opens {what} at import" for name, what in report["opened"]]
    problems += [f"a process was started at import: {cmd}" for cmd in report["children"]]
    problems += [f"a file stays open after import: {path}" for path in report["files"]]
    problems += [f"a thread was started at import: {name}" for name in report["threads"]]
    problems += [
        f"a model library was imported at import time (models load lazily): {m}" for m in report["model_libraries"]
    ]
    assert not problems, "\n".join(problems)
    # Modules skipped for a missing optional (bench) dependency are listed with -rA / on failure of the above.
    print("skipped (optional bench dependency absent):", report["skipped"] or "none")
