"""The direction of imports (DESIGN.md section 2), read from the source, and a clean import of every module.

Imports run one way: cli -> evals -> graph -> tools -> retrievers, and graph -> prompts, tools -> prompts (tools
reads its descriptions from prompts). `english` (the language itself: number words, dates, currencies, value
matching) is the floor below them all: every package may import it, and it imports no package of the project.
A module may import its own package and the packages below it; nothing
imports cli; nothing in tools knows about LangGraph; nothing in retrievers knows about LangGraph or LangChain.
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
PACKAGES = ("cli", "evals", "graph", "tools", "retrievers", "prompts", "english")

# Who may import whom directly (DESIGN.md section 2); a package may import everything reachable from it.
EDGES = {
    "cli": {"evals"},
    "evals": {"graph"},
    "graph": {"tools", "prompts"},
    "tools": {"retrievers", "prompts"},
    "retrievers": {"english"},
    "prompts": {"english"},
    "english": set(),
}
FLOOR = "english"
"""The package every other may import (it is reachable from each of them through the edges above)."""

# Third-party families a package must not import (by the top-level module name's prefix).
BANNED_PREFIXES = {
    "tools": ("langgraph",),  # "nothing in tools knows about LangGraph" (langgraph, langgraph_sdk, ...)
    "retrievers": (
        "langgraph",
    ),  # "nothing in retrievers knows about the agent" (an embeddings client from langchain-openai is an engine)
}


def _reachable(package: str) -> set[str]:
    seen, todo = set(), [package]
    while todo:
        for below in EDGES[todo.pop()]:
            if below not in seen:
                seen.add(below)
                todo.append(below)
    return seen


ALLOWED = {package: {package} | _reachable(package) for package in PACKAGES}


def _source_files(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `source`, the module `module` (a package when `is_package`)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                found.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
            else:
                found.append((node.lineno, node.module))
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
            if top in PACKAGES and top not in ALLOWED[package]:
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
    assert ALLOWED["cli"] == set(PACKAGES)
    assert not any("cli" in ALLOWED[p] for p in PACKAGES if p != "cli")
    assert ALLOWED["retrievers"] == {"retrievers", FLOOR} and ALLOWED["prompts"] == {"prompts", FLOOR}
    assert ALLOWED[FLOOR] == {FLOOR}, "english imports nothing of the project"
    assert all(FLOOR in ALLOWED[p] for p in PACKAGES), "every package may import english"


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_run_one_way(package):
    found = offences(package)
    assert not found, f"{len(found)} import(s) against the layers in {package}/:\n" + "\n".join(found)


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
        for graph in (served.agent, served.ingest):
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
