"""`ragent bench`: the benchmarks side by side in one run, one report (OUT/bench.md and bench.json).

Sections, each also runnable alone as `python -m evals.bench_<name>`:
- langchain: retrieval against LangChain's Qdrant vector store, BM25Retriever and EnsembleRetriever (SciFact train);
- naive: the agent against naive RAG on the dev question set;
- multihop: both gold paragraphs in the agent's evidence on HotpotQA (test split) against one search;
- answers: text answers on HotpotQA and SciFact (test splits): the extractive answer against the passages it replaced;
- verifier: the chat-model answer checks on labelled sentences with planted faults;
- scale: ingest time and per-tool p95 at 10k, 100k and 1M chunks, with a PNG plot.

The naive, multihop and answers sections run on the corpus of every shared dataset and the sample corpus (`--home`, by
default the eval folder for that combination, ingested on first use).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from evals import bench_answers, bench_langchain, bench_multihop, bench_naive_rag, bench_scale, bench_verifier
from evals.eval_corpus import eval_home, ingest_datasets, open_eval_stack
from evals.question_eval import load_questions

DEV_QUESTIONS = Path(__file__).resolve().parent / "questions" / "dev.jsonl"


def corpus_home(home: Path | None) -> Path:
    """The folder holding every dataset the dev set names, ingested there first if it is not yet."""
    datasets = {d for q in load_questions(DEV_QUESTIONS) for d in q.datasets}
    home = home or eval_home(datasets)
    stack = open_eval_stack(home)
    try:
        ingest_datasets(stack, datasets)
    finally:
        stack.close()
    return home


def run(out: Path, *, sections: list[str], home: Path | None, scale_sizes: list[int]) -> str:
    out.mkdir(parents=True, exist_ok=True)
    home = corpus_home(home) if {"naive", "multihop", "answers"} & set(sections) else home
    runners = {
        "langchain": (lambda: bench_langchain.run(out), bench_langchain.markdown),
        "naive": (lambda: bench_naive_rag.run(home, DEV_QUESTIONS), bench_naive_rag.markdown),
        "multihop": (lambda: bench_multihop.run(home, "test"), bench_multihop.markdown),
        "answers": (lambda: bench_answers.run(home, "test"), bench_answers.markdown),
        "verifier": (bench_verifier.run, bench_verifier.markdown),
        "scale": (lambda: bench_scale.run(out, scale_sizes), bench_scale.markdown),
    }
    reports, parts = {}, [f"# ragent bench ({time.strftime('%Y-%m-%d')})"]
    for name in sections:
        started = time.monotonic()
        measure, render = runners[name]
        reports[name] = measure()
        parts += [f"## {name} ({time.monotonic() - started:.0f} s)", render(reports[name])]
        (out / "bench.json").write_text(json.dumps(reports, indent=2, default=str))
        (out / "bench.md").write_text("\n\n".join(parts) + "\n")
    return "\n\n".join(parts)
