"""`ragent bench`: the benchmarks side by side in one run, one report (OUT/bench.md and bench.json).

Sections, each also runnable alone as `python -m evals.bench_<name>`:
- fusion: SciFact train nDCG@10 of reciprocal-rank fusion (before) and weighted score fusion (the default);
- langchain: retrieval against LangChain's Qdrant vector store, BM25Retriever and EnsembleRetriever (SciFact train);
- naive: the agent against naive RAG on the dev question set;
- multihop: both gold paragraphs in the agent's evidence on HotpotQA (test split) against one search;
- answers: text answers on HotpotQA and SciFact (test splits): the extractive answer against the passages it replaced;
- verifier: the chat-model answer checks on labelled sentences with planted faults;
- ingest: a real CUAD ingest with MiniLM in float32 (before) and the default variant (after), chunks/s, the share of
  each stage and the model's arithmetic limit, with SciFact train nDCG@10 of both variants;
- scale: ingest time and per-tool p95 at 10k, 100k and 1M chunks, with a PNG plot;
- annotations_scale: annotations_search and annotations_aggregate on 1M documents a bucket, before and after the
  catalog's field indexes, with EXPLAIN;
- vectors_scale: HNSW against exact vector search at 1M chunks with a bucket filter (recall@10, p95);
- server: one structured question at a time through `ragent serve`, its run queue woken by each run and left polling;
- cold: `ragent ask` wall time from the shell (annotations only, needing the embedder, and `--server`), before/after;
- llm: the blind recipes set by the rules, by `auto` with the local 0.5B and 1.5B models and by the 1.5B in every
  mode (model calls, tokens, seconds, and the wrong answers that look right);
- extraction: the fields found in a document's own text against Kleister-NDA, SROIE, CUAD and invoice2data's
  labels (reporting splits), the rules' documents per second, and what extraction adds to ingest time.

The naive, multihop and answers sections run on the corpus of every shared dataset and the sample corpus (`--home`, by
default the eval folder for that combination, ingested on first use).
"""

from __future__ import annotations

import json
import os
import time
from importlib import import_module
from pathlib import Path

from core.settings import Settings
from evals.eval_corpus import eval_home, ingest_datasets, open_eval_stack
from evals.question_eval import load_questions
from retrievers.engines.embedders.minilm import INT8_DOT_FLAGS, NATIVE_BFLOAT16_FLAGS, chosen_precision, cpu_flags

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


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The processor every figure of the run comes from, and the embedder variant it gets, with why: the same code
    is several times faster where the CPU multiplies bfloat16 natively, so a figure means little without both."""
    text = cpuinfo.read_text(encoding="utf-8") if cpuinfo.exists() else ""
    names = [line.partition(":")[2].strip() for line in text.splitlines() if line.startswith("model name")]
    flags = cpu_flags(cpuinfo)
    setting = Settings.from_env().embeddings
    if setting != "minilm":
        variant, why = setting, "set by RAGENT_EMBEDDINGS"
    else:
        precision, why = chosen_precision(flags)
        variant = f"minilm {precision}"
    return {
        "processor": names[0] if names else "unknown",
        "cores": len(os.sched_getaffinity(0)),
        "vector_flags": sorted(flags & {"avx2", "avx512f", "amx_tile", *NATIVE_BFLOAT16_FLAGS, *INT8_DOT_FLAGS}),
        "embedder": variant,
        "why": why,
    }


def machine_markdown(m: dict) -> str:
    return (
        f"Processor: {m['processor']}, {m['cores']} cores usable, {', '.join(m['vector_flags']) or 'no AVX2'}. "
        f"Embedder: {m['embedder']} ({m['why']})."
    )


def run(out: Path, *, sections: list[str], home: Path | None, scale_sizes: list[int]) -> str:
    out.mkdir(parents=True, exist_ok=True)
    home = corpus_home(home) if {"naive", "multihop", "answers"} & set(sections) else home
    runners = {  # each section's module is imported when it runs: langchain's needs the `bench` extras
        "fusion": ("bench_fusion", lambda m: m.run(out)),
        "langchain": ("bench_langchain", lambda m: m.run(out)),
        "naive": ("bench_naive_rag", lambda m: m.run(home, DEV_QUESTIONS)),
        "multihop": ("bench_multihop", lambda m: m.run(home, "test")),
        "answers": ("bench_answers", lambda m: m.run(home, "test")),
        "verifier": ("bench_verifier", lambda m: m.run()),
        "ingest": ("bench_ingest", lambda m: m.run(out)),
        "scale": ("bench_scale", lambda m: m.run(out, scale_sizes)),
        "annotations_scale": ("bench_annotation_scale", lambda m: m.run(out)),
        "vectors_scale": ("bench_vector_scale", lambda m: m.run(out)),
        "server": ("bench_server", lambda m: m.run(out)),
        "cold": ("bench_cold", lambda m: m.run(out)),
        "llm": ("bench_llm", lambda m: m.run(out)),
        "extraction": ("bench_extraction", lambda m: m.run(out)),
    }
    reports: dict = {"machine": machine()}
    parts = [f"# ragent bench ({time.strftime('%Y-%m-%d')})", machine_markdown(reports["machine"])]
    for name in sections:
        started = time.monotonic()
        module, measure = runners[name]
        section = import_module(f"evals.{module}")
        reports[name] = measure(section)
        parts += [f"## {name} ({time.monotonic() - started:.0f} s)", section.markdown(reports[name])]
        (out / "bench.json").write_text(json.dumps(reports, indent=2, default=str))
        (out / "bench.md").write_text("\n\n".join(parts) + "\n")
    return "\n\n".join(parts)
