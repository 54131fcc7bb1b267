"""Ingestion throughput before and after in one run: MiniLM in float32 through PyTorch, as every ingest ran before
issue 16's work (before: `BEFORE_REVISION`'s code, exported from git), and this checkout's variants (after): float32
and the default (the variant chosen for this processor), or those `--variants` names.

    python -m evals.bench_ingest [--out bench-out] [--documents 20] [--variants minilm-float32 minilm-int8]

Each side ingests the same first DOCUMENTS CUAD contracts as `ragent ingest --dataset cuad --limit N` does,
in a process of its own (so the time counts the imports and the model load, as a user waits for them) with an
empty data folder and an empty embedding cache under OUT (so every chunk is embedded). Reported per variant:
chunks/s from process start to the end of the ingest (and per CPU-second of the process, which other work on
the cores disturbs less), the ingest's own chunks/s, the share of its time in each
stage (tokenising, embedding, Postgres, Tantivy, qdrant-edge), and the embedding stage's chunks/s against the
model's arithmetic limit on this machine: the FLOPs of one chunk of MiniLM-L6 at the mean token length of the
chunks embedded, against the GEMM FLOP/s PyTorch reaches here in the model's own matrix shape (float32, and
bfloat16 for the bfloat16 variant), on all cores.

Quality at the same time: SciFact train nDCG@10 of semantic search (and fused) with each of this checkout's
variants, each in a data folder and an empty embedding cache of its own under OUT (the shared cache may
hold vectors an earlier version computed under the same model name). The gate every variant must pass: semantic
nDCG@10 within QUALITY_TOLERANCE of this checkout's float32.

Writes OUT/ingest.json, OUT/ingest.md and OUT/ingest.png (also the `ingest` section of `ragent bench`). Two cores
may be shared with other work: the report gives the load average, and the ratio of the two runs is the figure to
compare.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.settings import Settings
from evals.bench_retrieval import bench_quality
from evals.exported_revision import PROJECT, exported_revision
from evals.plots import write_plot
from retrievers.engines.embedders.model_names import minilm_precision, minilm_variant_name
from retrievers.ingestion.pipeline import STAGES, Ingestor, embedding_text
from retrievers.loaders import scifact, shared_data_dir
from retrievers.stack import open_stack

BEFORE = "minilm-float32"
VARIANTS = ("minilm-float32", "minilm")
"""This checkout's variants the bench runs by default: float32 (the reference of the quality gate) and the default."""
BEFORE_REVISION = "e612807"
"""The last revision that embedded documents through PyTorch (sentence-transformers)."""
DOCUMENTS = 20
QUALITY_TOLERANCE = 0.005
MINILM_SHAPE = {"layers": 6, "hidden": 384, "intermediate": 1536, "max_tokens": 256}
GEMM_REPEATS = 5


def flops_per_chunk(tokens: float) -> float:
    """Multiply-adds x 2 of one MiniLM-L6 forward pass over `tokens` tokens: per layer the Q, K, V and output
    projections (4 d x d), the feed-forward pair (2 d x ff), and the attention scores and their weighted sum
    (2 tokens x d per token); embeddings, layer norms, softmax and pooling are a fraction of a percent."""
    d, ff = MINILM_SHAPE["hidden"], MINILM_SHAPE["intermediate"]
    per_layer = 2 * tokens * (4 * d * d + 2 * d * ff + 2 * tokens * d)
    return MINILM_SHAPE["layers"] * per_layer


def gemm_flops_per_s() -> dict[str, float]:
    """The best of GEMM_REPEATS products in the feed-forward layer's shape (a batch of 32 full windows times the
    384 x 1536 weight), in float32 and in bfloat16, both through PyTorch (the library the model runs in: NumPy's
    float32 product was slower than PyTorch's, which then ran at 158% of that "limit"), on every core."""
    import torch

    rows = 32 * MINILM_SHAPE["max_tokens"]
    shape = (rows, MINILM_SHAPE["hidden"], MINILM_SHAPE["intermediate"])
    flops = 2 * shape[0] * shape[1] * shape[2]
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape[:2], dtype=np.float32)
    b = rng.standard_normal(shape[1:], dtype=np.float32)
    fa, fb = torch.from_numpy(a), torch.from_numpy(b)
    ta, tb = fa.bfloat16(), fb.bfloat16()
    result = {}
    for label, product in (("float32", lambda: fa @ fb), ("bfloat16", lambda: ta @ tb)):
        product()
        best = float("inf")
        for _ in range(GEMM_REPEATS):
            started = time.perf_counter()
            product()
            best = min(best, time.perf_counter() - started)
        result[label] = flops / best
    return result


def ingest_child(home: Path, cache: Path, documents: int) -> dict:
    """Run in the child process: the ingest `ragent ingest --dataset cuad --limit N` runs, then the statistics of
    the chunks it embedded (after the clock has stopped)."""
    from retrievers.ingestion.sources import ingest_source

    settings = replace(Settings.from_env(), home=home, cache_dir=cache)
    stack = open_stack(settings)
    try:
        report = ingest_source(stack, dataset="cuad", limit=documents, progress=False)
        finished, cpu_seconds = time.time(), time.process_time()
        chunks = stack.store.indexed_chunks(sorted(stack.store.chunk_ids()))
        tokens = [
            min(len(stack.embedder.token_spans(embedding_text(c))) + 2, MINILM_SHAPE["max_tokens"]) for c in chunks
        ]
        return {
            "model": stack.embedder.model_name,
            "finished_at": finished,
            "cpu_seconds": cpu_seconds,
            "documents": report.documents,
            "chunks": report.chunks,
            "embeddings_computed": report.embeddings_computed,
            "ingest_seconds": report.seconds,
            "stage_seconds": {stage: report.stage_seconds[stage] for stage in STAGES},
            "mean_tokens": float(np.mean(tokens)),
        }
    finally:
        stack.close()


def run_variant(out: Path, code: Path, variant: str, documents: int) -> dict:
    """One variant's ingest by the project in `code`, in a fresh process, data folder and embedding cache; chunks/s
    from process start."""
    home, cache = out / f"ingest-{variant}", out / f"ingest-{variant}-cache"
    for folder in (home, cache):
        shutil.rmtree(folder, ignore_errors=True)
    # The shared data is found beside the project, which an exported revision is not.
    env = {
        **os.environ,
        "RAGENT_EMBEDDINGS": variant,
        "PYTHONPATH": str(code),
        "RAGENT_SHARED_DATA": str(shared_data_dir()),
        "RAGENT_POSTGRES_IDLE_STOP_S": "0",  # the folder is deleted after the child: its Postgres stops with it
    }
    command = [sys.executable, "-m", "evals.bench_ingest", "--child", str(home), str(cache), str(documents)]
    started = time.time()
    done = subprocess.run(command, env=env, cwd=code, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {variant} ingest failed:\n{done.stderr[-4000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["variant"] = variant
    result["end_to_end_seconds"] = result.pop("finished_at") - started
    result["end_to_end_chunks_per_s"] = result["chunks"] / result["end_to_end_seconds"]
    result["chunks_per_cpu_s"] = result["chunks"] / result["cpu_seconds"]
    result["ingest_chunks_per_s"] = result["chunks"] / result["ingest_seconds"]
    result["embedding_chunks_per_s"] = result["chunks"] / result["stage_seconds"]["embedding"]
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    return result


def quality(out: Path, variant: str) -> dict:
    """SciFact train nDCG@10 and recall@100 with `variant`, in a data folder of its own under OUT."""
    corpus = shared_data_dir() / scifact.SHARED_FOLDER
    home = out / f"scifact-{variant}"
    shutil.rmtree(home, ignore_errors=True)
    settings = replace(
        Settings.from_env(), home=home, cache_dir=home / "cache", embeddings=variant, postgres_idle_stop_s=0
    )
    stack = open_stack(settings)
    try:
        Ingestor(stack).ingest(scifact.load(corpus), progress=False)
        return {"model": stack.embedder.model_name, **bench_quality(stack, corpus)}
    finally:
        stack.close()


def expected_model(variant: str) -> str:
    """The model name a MiniLM setting embeds with in a new data folder on this processor."""
    from retrievers.engines.embedders.minilm import default_precision
    from retrievers.stack import MINILM_SETTINGS

    return minilm_variant_name(MINILM_SETTINGS.get(variant) or default_precision())


def precision_of(model_name: str) -> str:
    return minilm_precision(model_name) or "float32"


def run(out: Path, documents: int = DOCUMENTS, variants: tuple[str, ...] = VARIANTS, scored: bool = True) -> dict:
    """`scored=False` leaves out SciFact's quality (two full ingests of its corpus: minutes on quiet cores, most of an
    hour on busy ones), for a speed-only run."""
    from evals.bench import machine

    out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    before_code = exported_revision(out, BEFORE_REVISION)
    if before_code is None:
        raise SystemExit(f"the before side needs revision {BEFORE_REVISION} of a git checkout")
    runs = {"before": run_variant(out, before_code, BEFORE, documents)}
    models = set()
    for variant in variants:
        if (model := expected_model(variant)) in models:
            continue  # `minilm` is `minilm-float32` on a processor where float32 is the fastest
        models.add(model)
        runs[variant] = run_variant(out, PROJECT, variant, documents)
    gemm = gemm_flops_per_s()
    for result in runs.values():
        # int8 is bounded by the float32 rate too: on AVX2 alone its products run at about float32's speed
        precision = "bfloat16" if precision_of(result["model"]) == "bfloat16" else "float32"
        flops = flops_per_chunk(result["mean_tokens"])
        result["gemm_precision"] = precision
        result["flops_per_chunk"] = flops
        result["arithmetic_limit_chunks_per_s"] = gemm[precision] / flops
    before = runs["before"]
    for result in runs.values():
        result["ratios"] = {
            measure: result[measure] / before[measure]
            for measure in (
                "end_to_end_chunks_per_s",
                "chunks_per_cpu_s",
                "ingest_chunks_per_s",
                "embedding_chunks_per_s",
            )
        }
    measured: dict[str, dict] = {}  # the quality of each setting, measured once (before's is float32's)
    scores = {
        label: measured.get(setting) or measured.setdefault(setting, quality(out, setting))
        for label, setting in ((label, BEFORE if label == "before" else label) for label in runs if scored)
    }
    reference = scores["before"]["semantic"]["ndcg@10"] if scored else 0.0
    report = {
        "documents": documents,
        "cores": len(os.sched_getaffinity(0)),
        "machine": machine(),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "gemm_flops_per_s": gemm,
        "runs": runs,
        "quality": scores,
        "quality_gate": {
            label: {
                "semantic_ndcg@10_difference": round(q["semantic"]["ndcg@10"] - reference, 4),
                "passed": abs(q["semantic"]["ndcg@10"] - reference) <= QUALITY_TOLERANCE,
            }
            for label, q in scores.items()
            if label != "before"
        },
        "tolerance": QUALITY_TOLERANCE,
    }
    report["plot"] = write_plot("ingest", report, out)
    return report


def markdown(report: dict) -> str:
    from evals.bench import machine_markdown

    runs = report["runs"]
    labels = list(runs)
    stage_names = {"keyword index": "Tantivy", "vector index": "qdrant-edge", "postgres": "Postgres"}
    gemm = report["gemm_flops_per_s"]
    load = report["load_average"]

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(runs[name]) for name in labels) + " |"

    lines = [
        machine_markdown(report["machine"]),
        "",
        f"The first {report['documents']} CUAD contracts, each variant in a process of its own with an empty data "
        f"folder and embedding cache; {report['cores']} cores, load average {load['before'][0]:.1f} before and "
        f"{load['after'][0]:.1f} after (other work shares the cores). Ratios are to before (PyTorch float32).",
        "",
        "| | " + " | ".join(f"{name}: {runs[name]['model']}" for name in labels) + " |",
        "|---|" + "---|" * len(labels),
        row("chunks", lambda r: str(r["chunks"])),
        *(
            row(label, lambda r, key=key: f"{r[key]:.1f} ({r['ratios'][key]:.2f}x)")
            for label, key in (
                ("chunks/s, process start to end of ingest", "end_to_end_chunks_per_s"),
                ("chunks per CPU-second, process start to end of ingest", "chunks_per_cpu_s"),
                ("chunks/s of the ingest (model loaded)", "ingest_chunks_per_s"),
                ("chunks/s of the embedding stage", "embedding_chunks_per_s"),
            )
        ),
        *(
            row(  # the before revision has no extracting stage
                f"share of the ingest: {stage_names.get(stage, stage)}",
                lambda r, stage=stage: f"{r['stage_seconds'].get(stage, 0.0) / r['ingest_seconds']:.1%}",
            )
            for stage in STAGES
        ),
        row("mean tokens per chunk", lambda r: f"{r['mean_tokens']:.0f}"),
        row("GFLOP per chunk", lambda r: f"{r['flops_per_chunk'] / 1e9:.2f}"),
        row(
            "arithmetic limit, chunks/s", lambda r: f"{r['arithmetic_limit_chunks_per_s']:.0f} ({r['gemm_precision']})"
        ),
        row(
            "embedding stage, share of the limit",
            lambda r: f"{r['embedding_chunks_per_s'] / r['arithmetic_limit_chunks_per_s']:.0%}",
        ),
        "",
        f"GEMM measured here in the feed-forward shape (8192 x 384 x 1536), all cores, PyTorch: float32 "
        f"{gemm['float32'] / 1e9:.0f} GFLOP/s, bfloat16 {gemm['bfloat16'] / 1e9:.0f} GFLOP/s.",
    ]
    if not report["quality"]:
        return (
            "\n".join([*lines, "", "SciFact quality: not measured in this run (--speed-only).", "", report["plot"]])
            + "\n"
        )
    lines += [
        "",
        f"SciFact {report['quality']['before']['split']} ({report['quality']['before']['queries']} queries), "
        "document-level nDCG@10 (before: this checkout's float32, the reference of the gate):",
        "",
        "| ranking | " + " | ".join(labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    for mode, reference in report["quality"]["before"].items():
        if isinstance(reference, dict):
            lines.append(
                f"| {mode} | " + " | ".join(f"{report['quality'][n][mode]['ndcg@10']:.4f}" for n in labels) + " |"
            )
    lines.append("")
    for label, gate in report["quality_gate"].items():
        lines.append(
            f"Quality gate for {label} (semantic nDCG@10 within {report['tolerance']} of float32): "
            + ("passed" if gate["passed"] else "FAILED")
            + f" ({gate['semantic_ndcg@10_difference']:+.4f})."
        )
    lines += ["", report["plot"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        home, cache, documents = sys.argv[2:5]
        print(json.dumps(ingest_child(Path(home), Path(cache), int(documents))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument(
        "--variants", nargs="+", default=list(VARIANTS), help="this checkout's RAGENT_EMBEDDINGS values"
    )
    parser.add_argument("--speed-only", action="store_true", help="leave out SciFact's quality gate")
    args = parser.parse_args()
    report = run(args.out, args.documents, tuple(args.variants), scored=not args.speed_only)
    (args.out / "ingest.json").write_text(json.dumps(report, indent=2))
    (args.out / "ingest.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
