"""Multi-hop retrieval on HotpotQA: does the agent's evidence hold both gold paragraphs of a question?

    python -m evals.bench_multihop [--home bench-out/all] [--split dev|test] [--out bench-out]

Every HotpotQA question needs two Wikipedia paragraphs (its qrels). The agent (RulePlanner, default
AgentContext) answers each question of the split; a question counts as found when both gold paragraphs are
among the documents of its evidence. Two readings of "its evidence" are reported, each with the number of
documents it holds, since more documents make finding both easier:

- `evidence`: every hit of every envelope in state["evidence"], i.e. everything the agent retrieved over all its
  calls (about 50 documents on dev against the single search's 20).
- `relevant`: only the documents the grade step kept as relevant, i.e. what the agent itself reads on (about 14
  on dev). This is the fairer comparison with a single search: it is smaller on average than the top 20, so the
  agent cannot win by retrieving more, only by retrieving and keeping the right pages.

The baseline is one search of the question as asked (`fused_search`, and `search_semantic` beside it), top 20
chunks in bucket `generic` (the budget of one agent call), through the same tool runner. Latency is end to end
per question (the agent's whole run, or the one tool call). Writes OUT/multihop-<split>.json and .md. Tune on
dev; test is for reported figures only.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from pathlib import Path
from statistics import mean
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from core.scope import DEFAULT_SCOPE
from evals.eval_corpus import eval_services
from evals.metrics import percentile
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.loaders import shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries
from retrievers.loaders.hotpotqa import BUCKET, SHARED_FOLDER

BASELINE_TOOLS = ("fused_search", "search_semantic")
BASELINE_TOP_K = 20


def _found(retrieved: dict[str, set[str]], gold: set[str]) -> dict[str, Any]:
    """Per reading of the evidence: whether both gold paragraphs are in it, which gold ones are missing, and how
    many documents it holds (more documents make finding both easier, so the count goes beside the share)."""
    return {
        "found": {key: gold <= docs for key, docs in retrieved.items()},
        "missing": {key: sorted(gold - docs) for key, docs in retrieved.items()},
        "documents": {key: len(docs) for key, docs in retrieved.items()},
    }


def _run_agent(agent, question: str, gold: set[str]) -> dict[str, Any]:
    """One agent run: whether its evidence holds the gold paragraphs, its calls, decisions and latency."""
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    started = time.perf_counter()
    agent.invoke({"question": question}, config, context=AgentContext())
    latency_ms = (time.perf_counter() - started) * 1000
    values = agent.get_state(config).values
    retrieved = {
        "evidence": {doc_id for e in values.get("evidence", []) for doc_id in e.envelope.doc_ids()},
        "relevant": {g.doc_id for g in values.get("graded", []) if g.relevant},
    }
    return _found(retrieved, gold) | {
        "tool_calls": values.get("tool_calls", 0),
        "latency_ms": round(latency_ms, 1),
        "decisions": [f"{d.action}: {d.reason}" for d in values.get("decisions", [])],
    }


def _run_baseline(tool: str, question: str, gold: set[str], services: AgentServices) -> dict[str, Any]:
    started = time.perf_counter()
    envelope = services.tools.run(DEFAULT_SCOPE, tool, {"bucket": BUCKET, "query": question, "top_k": BASELINE_TOP_K})
    latency_ms = (time.perf_counter() - started) * 1000
    return _found({"evidence": set(envelope.doc_ids())}, gold) | {"tool_calls": 1, "latency_ms": round(latency_ms, 1)}


def _summary(records: list[dict[str, Any]], system: str) -> dict[str, Any]:
    runs = [r[system] for r in records]
    latencies = [run["latency_ms"] for run in runs]
    readings = list(runs[0]["found"])
    return (
        {f"both gold in {key}": round(mean(run["found"][key] for run in runs), 3) for key in readings}
        | {f"documents in {key}": round(mean(run["documents"][key] for run in runs), 1) for key in readings}
        | {
            "tool calls per question": round(mean(run["tool_calls"] for run in runs), 2),
            "latency p50 ms": round(percentile(latencies, 50), 1),
            "latency p95 ms": round(percentile(latencies, 95), 1),
        }
    )


def run(home: Path, split: str = "test") -> dict:
    """Answer every question of `split` with the agent and with one search; per-question records and summaries."""
    data = shared_data_dir() / SHARED_FOLDER
    qrels = load_qrels(data, split)
    queries = load_queries(data, set(qrels))
    records = []
    with eval_services(home) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        for qid, question in queries.items():
            gold = qrels[qid]
            record = {"id": qid, "question": question, "gold": sorted(gold), "agent": _run_agent(agent, question, gold)}
            record |= {tool: _run_baseline(tool, question, gold, services) for tool in BASELINE_TOOLS}
            records.append(record)
            print(
                f"{qid}: agent {record['agent']['found']} in {record['agent']['tool_calls']} calls, "
                f"one search {record['fused_search']['found']['evidence']}",
                flush=True,
            )
    return {
        "split": split,
        "questions": len(records),
        "summary": {
            "agent": _summary(records, "agent"),
            **{f"one {tool} (top {BASELINE_TOP_K})": _summary(records, tool) for tool in BASELINE_TOOLS},
        },
        "records": records,
    }


def markdown(report: dict) -> str:
    """The summary as a table: one row per system, one column per figure (a blank where it does not apply)."""
    summary = report["summary"]
    columns = list(dict.fromkeys(k for figures in summary.values() for k in figures))
    title = (
        f"Multi-hop retrieval on HotpotQA {report['split']} ({report['questions']} questions, 2 gold paragraphs each): "
        "share of questions with both gold paragraphs retrieved, and how many documents that took."
    )
    lines = [title, "", f"| system | {' | '.join(columns)} |", "|---|" + "---|" * len(columns)]
    lines += [
        f"| {system} | {' | '.join(str(figures.get(c, '')) for c in columns)} |" for system, figures in summary.items()
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=Path("bench-out/all"))
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    report = run(args.home, args.split)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"multihop-{args.split}.json").write_text(json.dumps(report, indent=2))
    (args.out / f"multihop-{args.split}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
