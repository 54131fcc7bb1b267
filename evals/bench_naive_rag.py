"""The agent versus naive RAG on a question set: the same questions, corpus and evaluators for both.

    python -m evals.bench_naive_rag --questions evals/questions/dev.jsonl --home bench-out/all

Naive RAG is what a first RAG prototype does: one semantic search of the question over the whole corpus, the
top 10 chunks, and an answer from those chunks. With no chat model configured its answer is extractive: it
cites the documents of the 10 chunks, its text is the chunks, a count is the number of distinct documents
retrieved, and it has no way to sum or to ask back. (With a chat model, an answer composed by the model from the
same chunks would be the fair baseline; the retrieval, which caps what any answer can cite, stays the same.)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from core.models import SearchFilter
from evals.eval_corpus import eval_services, ingest_datasets
from evals.evaluators import CODE_EVALUATORS, numbers_in
from evals.question_eval import evaluate_questions, examples, langsmith_evaluate, load_questions, metric_means
from retrievers.search import Retriever
from retrievers.stack import Stack

TOP_CHUNKS = 10
STRUCTURED_KINDS = ("list", "count", "sum")


class NaiveRag:
    """One semantic search of the question, top 10 chunks, an extractive answer (see the module docstring)."""

    def __init__(self, stack: Stack):
        self.retriever = Retriever(stack)

    def __call__(self, inputs: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        hits = self.retriever.semantic(inputs["question"], SearchFilter(), TOP_CHUNKS)
        docs = list(dict.fromkeys(h.doc_id for h in hits))
        text = "\n".join(h.text for h in hits)
        return {
            "answer_text": text,
            "format": "prose",
            "value": float(len(docs)),
            "clarify_kind": None,
            "citations": [{"doc_id": h.doc_id, "annotation_id": None, "chunk_id": h.chunk_id} for h in hits],
            "cited_doc_ids": sorted(docs),
            "tool_calls": [
                {
                    "tool": "search_semantic",
                    "route": "naive",
                    "status": "ok" if hits else "no_results",
                    "total_hits": len(hits),
                }
            ],
            "evidence_keys": [(h.doc_id, None, h.chunk_id) for h in hits],
            "evidence_numbers": sorted(numbers_in(text)),
            "evidence_text": text,
            "evidence_ranking": docs,
            "latency_ms": round((time.perf_counter() - started) * 1000, 1),
        }


def _records(results, questions) -> list[dict]:
    by_id = {q.id: q for q in questions}
    return [
        {
            "id": row["example"].metadata["question_id"],
            "kind": by_id[row["example"].metadata["question_id"]].kind,
            "error": row["run"].error,
            "scores": {r.key: r.score for r in row["evaluation_results"]["results"] if r.score is not None},
        }
        for row in results
    ]


def _kind_means(records: list[dict], kinds: tuple[str, ...]) -> dict[str, tuple[float, int]]:
    return metric_means([r for r in records if r["kind"] in kinds])


def run(home: Path, questions_path: Path) -> dict:
    questions = load_questions(questions_path)
    with eval_services(home) as services:
        ingest_datasets(services.stack, {d for q in questions for d in q.datasets})
        agent = evaluate_questions(services, questions, f"{questions_path.stem}-agent")
        naive = _records(
            langsmith_evaluate(
                NaiveRag(services.stack), examples(questions), CODE_EVALUATORS, f"{questions_path.stem}-naive"
            ),
            questions,
        )
    report: dict[str, Any] = {"questions": len(questions), "set": str(questions_path)}
    for system, records in (("agent", agent), ("naive RAG", naive)):
        structured = _kind_means(records, STRUCTURED_KINDS)
        every = metric_means(records)
        report[system] = {
            "list F1 (structured lists)": structured.get("list_f1"),
            "count and sum exact": structured.get("value_exact"),
            "clarify accuracy": every.get("clarify_kind"),
            "lookup match": every.get("lookup_match"),
            "qa cites the relevant document": every.get("qa_cited"),
            "citation validity": every.get("citation_validity"),
        }
    return report


def markdown(report: dict) -> str:
    metrics = list(report["agent"])

    def cell(value) -> str:
        return "-" if value is None else f"{value[0]:.3f} (n={value[1]})"

    lines = [
        f"Agent versus naive RAG (one semantic search, top {TOP_CHUNKS} chunks), "
        f"{report['questions']} questions of {report['set']}:",
        "",
        "| metric | agent | naive RAG |",
        "|---|---|---|",
    ]
    lines += [f"| {m} | {cell(report['agent'][m])} | {cell(report['naive RAG'][m])} |" for m in metrics]
    gain = report["agent"][metrics[0]][0] - report["naive RAG"][metrics[0]][0]
    lines += ["", f"List F1 on structured questions: {gain * 100:+.1f} points for the agent (target: at least +30)."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=Path(__file__).resolve().parent / "questions" / "dev.jsonl")
    parser.add_argument("--home", type=Path, default=Path("bench-out/all"))
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    report = run(args.home, args.questions)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "naive-rag.json").write_text(json.dumps(report, indent=2))
    (args.out / "naive-rag.md").write_text(markdown(report) + "\n")
    print(markdown(report))


if __name__ == "__main__":
    main()
