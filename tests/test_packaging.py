"""A pip-installed ragent works outside the checkout.

What a user would notice otherwise: `pip install ragent-*.whl` followed by `ragent demo` (or any command that
reaches a planner or the tool descriptions) failing because the prompts are not in the wheel, or because the
program looks for its files relative to the current directory or to a checkout that is not there.

The test builds the wheel from a copy of the working tree (building in place would write build/ into the checkout),
checks it holds the package data, installs it with `--no-deps` into a fresh virtual environment, and lends that
environment the project's installed dependencies through a `.pth` file holding only the path of the project's
site-packages. A plain path line in a `.pth` does not run the `.pth` files of the folder it names, so the editable
install's import hook stays off and the checkout is not importable: the code that runs is the wheel's. Then it
runs the installed `ragent demo` from an unrelated folder with its own data and cache folders (it embeds the
sample corpus from scratch: about a minute on two cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
NOT_SOURCE = shutil.ignore_patterns(
    ".venv",
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    "tests",
    ".ragent",
    ".langgraph_api",
    "bench-out",
    "eval-out",
)
PACKAGE_DATA = [
    "prompts/planner.toml",
    "prompts/tools.toml",
    "evals/questions/dev.jsonl",
    "retrievers/extraction/rules/learned_clauses.json",
]
DEMO_TIMEOUT_S = 900

CHECK_INSTALLED = """
import importlib.resources, json
import graph, prompts
from tools.registry import TOOLS, descriptions
from graph.planners.llm_planner import prompts as planner_prompts
print(json.dumps({
    "graph": graph.__file__,
    "prompts": prompts.__file__,
    "planner_modes": sorted(planner_prompts()),
    "described_tools": sorted(set(TOOLS) & set(descriptions())),
    "dev_questions": importlib.resources.files("evals").joinpath("questions/dev.jsonl").is_file(),
}))
"""


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, (
        f"{command[:4]} exited {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    return result


def build_wheel(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    shutil.copytree(PROJECT, source, ignore=NOT_SOURCE)
    wheels = tmp_path / "wheels"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(wheels),
            str(source),
        ]
    )
    (wheel,) = wheels.glob("ragent-*.whl")
    return wheel


def fresh_venv(tmp_path: Path, wheel: Path) -> Path:
    """A new environment with the wheel installed and the project's dependencies lent to it; its bin folder."""
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)])
    purelib = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (purelib / "ragent_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def clean_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user outside the checkout: no PYTHONPATH, no chat model, no tracing, own data folders."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "VIRTUAL_ENV", "OPENAI_API_KEY", "OPENAI_BASE_URL", "RAGENT_SHARED_DATA"}
        and not k.startswith(("LANGSMITH_", "LANGCHAIN_"))
    }
    (tmp_path / "home").mkdir()
    (tmp_path / "cache").mkdir()
    return {
        **env,
        "RAGENT_HOME": str(tmp_path / "home"),
        "RAGENT_CACHE_DIR": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "LANGSMITH_TEST_TRACKING": "false",
        "LANGSMITH_TRACING": "false",
    }


def test_an_installed_wheel_runs_the_demo_outside_the_checkout(tmp_path):
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(PACKAGE_DATA) <= names, f"package data missing from {wheel.name}: {sorted(set(PACKAGE_DATA) - names)}"

    bin_folder = fresh_venv(tmp_path, wheel)
    env = clean_env(tmp_path)
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()

    checked = run([str(bin_folder / "python"), "-c", CHECK_INSTALLED], cwd=workdir, env=env)
    installed = json.loads(checked.stdout.strip().splitlines()[-1])
    venv = str(bin_folder.parent)
    assert installed["graph"].startswith(venv) and installed["prompts"].startswith(venv), installed
    assert not installed["graph"].startswith(str(PROJECT)), "the checkout leaked into the fresh environment"
    assert installed["planner_modes"], "prompts/planner.toml is empty or unreadable from the wheel"
    assert len(installed["described_tools"]) >= 5, installed["described_tools"]
    assert installed["dev_questions"], "evals/questions/dev.jsonl is not in the installed package"

    started = time.monotonic()
    demo = run([str(bin_folder / "ragent"), "demo"], cwd=workdir, env=env, timeout=DEMO_TIMEOUT_S)
    print(f"ragent demo from the wheel: {time.monotonic() - started:.0f} s")
    assert "== ingesting the sample corpus" in demo.stdout
    assert "== question 6" in demo.stdout, demo.stdout[-4000:]
    assert "|---|" in demo.stdout and "Sources:" in demo.stdout, demo.stdout[-4000:]
    assert not any(workdir.iterdir()), f"the demo wrote into its working folder: {sorted(workdir.iterdir())}"
