"""Score the agent (RulePlanner) on a question set in the eval format of the design.

    python -m evals.dev_eval --questions evals/questions/dev.jsonl --home bench-out/all [--out bench-out]

The home must hold the datasets the questions are about (all shared datasets and the sample corpus). Lists
are scored by set F1 over cited document ids, counts and sums by the value (0.5% relative tolerance), lookups by
the expected value appearing in the answer (case and spacing ignored), clarify
questions by the kind of clarification, qa by whether the expected documents are cited. The issue 6 runner
(LangSmith `evaluate`, BEIR sets) will take this over; this one measures the planner while it is built.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from evals.metrics import percentile
from graph import resources
from graph.builder import compile_graph
from graph.checkpointing import SERDE
from graph.context import AgentContext
from retrievers.settings import Settings
from retrievers.stack import open_stack

VALUE_TOLERANCE = 0.005


def f1(predicted: set[str], expected: set[str]) -> float:
    if not predicted or not expected:
        return float(predicted == expected)
    hits = len(predicted & expected)
    return 2 * hits / (len(predicted) + len(expected))


def _normalised(text: Any) -> str:
    return " ".join(str(text).lower().split())


def score(question: dict[str, Any], answer, clarify_kind: str | None) -> float:
    kind, expected = question["kind"], question["expected"]
    cited = {c.doc_id for c in answer.citations} if answer else set()
    if kind == "clarify":
        return float(clarify_kind == expected["clarify"])
    if kind == "list":
        return f1(cited, set(expected["doc_ids"]))
    if kind in ("count", "sum"):
        value = answer.value if answer else None
        return float(value is not None and abs(value - expected["value"]) <= max(0.01, VALUE_TOLERANCE * abs(expected["value"])))
    if kind == "lookup":
        return float(answer is not None and _normalised(expected["answer"]) in _normalised(answer.text))
    return float(set(expected["doc_ids"]) <= cited)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    questions = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    stack = open_stack(replace(Settings.from_env(), home=args.home.resolve()))
    resources.use_stack(stack)
    agent = compile_graph(InMemorySaver(serde=SERDE))
    records = []
    try:
        for q in questions:
            config = {"configurable": {"thread_id": uuid.uuid4().hex}}
            started = time.perf_counter()
            agent.invoke({"question": q["question"]}, config, context=AgentContext())
            latency_ms = (time.perf_counter() - started) * 1000
            state = agent.get_state(config)
            clarify_kind = state.interrupts[0].value["kind"] if state.interrupts else None
            answer = state.values.get("answer")
            records.append({
                "id": q["id"], "kind": q["kind"], "score": score(q, answer, clarify_kind), "clarify": clarify_kind,
                "value": answer.value if answer else None, "cited": sorted({c.doc_id for c in answer.citations}) if answer else [],
                "tool_calls": state.values.get("tool_calls", 0), "latency_ms": round(latency_ms, 1),
                "decisions": [f"{d.action}: {d.reason}" for d in state.values.get("decisions", [])],
            })
            print(f"{q['id']}: {records[-1]['score']:.2f} ({records[-1]['tool_calls']} calls, {latency_ms:.0f} ms)")
    finally:
        resources.use_stack(None)
        stack.close()
    by_kind = {k: [r["score"] for r in records if r["kind"] == k] for k in ("list", "count", "sum", "lookup", "clarify", "qa")}
    latencies = [r["latency_ms"] for r in records]
    summary = {
        "questions": len(records),
        **{f"{k} ({len(v)})": round(mean(v), 3) for k, v in by_kind.items() if v},
        "tool calls per question": round(mean(r["tool_calls"] for r in records), 2),
        "latency p50 ms": round(percentile(latencies, 50), 1),
        "latency p95 ms": round(percentile(latencies, 95), 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dev-eval.json").write_text(json.dumps({"summary": summary, "records": records}, indent=2))
    (args.out / "dev-eval.md").write_text("| metric | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in summary.items()))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
