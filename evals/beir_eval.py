"""`ragent eval --beir DIR`: a retrieval set in BEIR format (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)
scored by nDCG@10 and recall@100 for each search mode and for the agent's own final evidence, through
LangSmith's `evaluate` like the question sets.

The corpus goes into the `generic` bucket of a data folder of its own (`$RAGENT_HOME/eval/beir-<name>`), so
the rankings are over that corpus alone. Documents rank at their best chunk. The agent's ranking is the
reciprocal-rank fusion of the hit lists of every tool call it made, which is what it had in hand to answer.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from langsmith.schemas import Example

from core.errors import InvalidInput
from core.models import SearchFilter
from core.settings import Settings
from evals.agent_target import AgentTarget
from evals.eval_corpus import eval_services
from evals.metrics import ndcg_at_k, recall_at_k
from evals.question_eval import langsmith_evaluate, summarise, write_report
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders.beir import load_corpus, load_qrels, load_queries
from retrievers.search import Retriever

BUCKET = "generic"
SEARCH_DEPTH = 300
"""Chunks asked of each search mode, enough for 100 distinct documents at recall@100."""
MODES = ("keyword", "semantic", "fused", "agent")


def _documents(hits) -> list[str]:
    return list(dict.fromkeys(h.doc_id for h in hits))


class RankingTarget:
    """The four rankings of one query: three search modes on the installed stack, and the agent's evidence."""

    def __init__(self, services: AgentServices):
        self.retriever = Retriever(services.stack)
        self.agent = AgentTarget(services)
        self.filters = SearchFilter(bucket=BUCKET)

    def __call__(self, inputs: dict[str, Any]) -> dict[str, Any]:
        rankings, latency = {}, {}
        for mode in MODES[:3]:
            started = time.perf_counter()
            rankings[mode] = _documents(getattr(self.retriever, mode)(inputs["question"], self.filters, SEARCH_DEPTH))
            latency[mode] = (time.perf_counter() - started) * 1000
        answered = self.agent({"question": inputs["question"]})
        rankings["agent"], latency["agent"] = answered["evidence_ranking"], answered["latency_ms"]
        return {
            "rankings": rankings,
            "tool_calls": answered["tool_calls"],
            "latency_ms": latency["agent"],
            "mode_latency_ms": latency,
        }


def ranking_evaluators() -> list:
    def make(mode: str, metric: str, k: int):
        score = ndcg_at_k if metric == "ndcg" else recall_at_k

        def evaluator(outputs: dict, reference_outputs: dict) -> dict:
            return {
                "key": f"{mode} {metric}@{k}",
                "score": score(outputs["rankings"][mode], set(reference_outputs["relevant"]), k),
            }

        return evaluator

    return [make(mode, metric, k) for mode in MODES for metric, k in (("ndcg", 10), ("recall", 100))]


def run_beir(folder: Path, *, split: str, out: Path, limit: int | None = None) -> dict[str, Any]:
    for required in (folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"):
        if not required.is_file():
            raise InvalidInput(f"{folder} is not a BEIR folder with split {split!r}: {required} is missing")
    qrels = load_qrels(folder, split)
    queries = load_queries(folder, set(qrels))
    ids = sorted(queries)[:limit]
    name = folder.resolve().name
    with eval_services(Settings.from_env().home / "eval" / f"beir-{name}") as services:
        print(f"== {name}: ingesting the corpus into bucket {BUCKET} (unchanged documents are skipped)", flush=True)
        print(Ingestor(services.stack).ingest(load_corpus(folder, bucket=BUCKET, tag=name)).summary(), flush=True)
        dataset = uuid.uuid5(uuid.NAMESPACE_URL, f"ragent-beir-{name}-{split}")
        items = [
            Example(
                id=uuid.uuid5(dataset, qid),
                dataset_id=dataset,
                inputs={"question": queries[qid]},
                outputs={"relevant": sorted(qrels[qid])},
                metadata={"question_id": qid},
            )
            for qid in ids
        ]
        results = langsmith_evaluate(RankingTarget(services), items, ranking_evaluators(), f"beir-{name}-{split}")
        records = [
            {
                "id": row["example"].metadata["question_id"],
                "question": row["example"].inputs["question"],
                "relevant": row["example"].outputs["relevant"],
                "top10": {m: (row["run"].outputs or {}).get("rankings", {}).get(m, [])[:10] for m in MODES},
                "tool_calls": (row["run"].outputs or {}).get("tool_calls"),
                "latency_ms": (row["run"].outputs or {}).get("latency_ms"),
                "error": row["run"].error,
                "scores": {r.key: r.score for r in row["evaluation_results"]["results"]},
            }
            for row in results
        ]
    summary = summarise(records)
    write_report(out, f"eval-beir-{name}-{split}", summary, records)
    return summary
