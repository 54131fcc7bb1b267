"""A model in the loop: the blind recipes set (`evals/recipes`, a bucket a user adds with no descriptions, 51
questions written from its labels) answered by the rules, by `auto` with the local 0.5B and 1.5B models (the rules,
and the model where they run out), by the orchestrator with every mode the 1.5B model's, and by the single loop
with the 1.5B model calling the tools.

    python -m evals.bench_llm [--out bench-out]     (`ragent bench --only llm`; needs the local-llm extra)

The folder is made as a user makes it (`ragent buckets add recipes`, `ragent ingest ... --annotations`), in
OUT/llm-home, and each configuration is one `ragent eval` over it, in a process of its own with its RAGENT_CHAT
settings; the local server is stopped between configurations, so each model is timed from its own start.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

RECIPES = Path(__file__).resolve().parent / "recipes"
QUESTIONS = Path(__file__).resolve().parent / "questions" / "recipes.jsonl"
CONFIGURATIONS = (
    ("rules", "rules", None, "orchestrator"),
    ("auto, 0.5B", "auto", "qwen2.5-coder-0.5b", "orchestrator"),
    ("auto, 1.5B", "auto", "qwen2.5-coder-1.5b", "orchestrator"),
    ("llm, 1.5B", "llm", "qwen2.5-coder-1.5b", "orchestrator"),
    ("single loop, 1.5B", "llm", "qwen2.5-coder-1.5b", "single-loop"),
)
"""(name, planner, model, agent): the single loop has no planner; its model does everything."""
SHOWN = (
    "value_exact",
    "list_f1",
    "lookup_match",
    "clarify_kind",
    "wrong and asking nothing",
    "model calls per question",
    "model calls at most",
    "prompt tokens per question",
    "output tokens per question",
    "model seconds per question",
    "latency p50 ms",
    "latency p95 ms",
)


def _ragent(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True, text=True, check=True)


def run(out: Path) -> dict[str, Any]:
    home = out / "llm-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGENT_CHAT", "OPENAI_"))}
    env["RAGENT_HOME"] = str(home)
    if not (home / "postgres").exists():
        _ragent("buckets", "add", "recipes", env=env)
        docs, labels = str(RECIPES / "docs"), str(RECIPES / "annotations.jsonl")
        _ragent("ingest", docs, "--bucket", "recipes", "--annotations", labels, env=env)
    summaries = {}
    for name, planner, model, agent in CONFIGURATIONS:
        chat = {"RAGENT_CHAT": "local", "RAGENT_CHAT_MODEL": model} if model else {"RAGENT_CHAT": "none"}
        folder = out / "llm" / name.replace(", ", "-").replace(".", "").replace(" ", "-")
        args = ["eval", "--questions", str(QUESTIONS), "--home", str(home), "--planner", planner, "--agent", agent]
        args += ["--out", str(folder)]
        _ragent(*args, env={**env, **chat})
        _ragent("stop", env=env)
        summaries[name] = json.loads((folder / f"eval-{QUESTIONS.stem}.json").read_text())["summary"]
    return {"questions": str(QUESTIONS), "summaries": summaries}


def _shown(summary: dict[str, Any], key: str) -> Any:
    return next((v for k, v in summary.items() if k.startswith(key) or key in k), "")


def markdown(report: dict[str, Any]) -> str:
    names = list(report["summaries"])
    lines = ["| figure | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for key in SHOWN:
        lines.append(f"| {key} | " + " | ".join(str(_shown(report["summaries"][n], key)) for n in names) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m evals.bench_llm")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    print(markdown(run(parser.parse_args().out)))
