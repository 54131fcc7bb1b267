"""Fusion before and after on the same run: SciFact train queries, document-level nDCG@10 and recall@100.

    python -m evals.bench_fusion [--out bench-out]

Writes `OUT/fusion.json` and `OUT/fusion.md` (also the `fusion` section of `ragent bench`). The corpus goes into
its own data folder under OUT (`scifact`, shared with `evals.bench_retrieval`; unchanged documents are skipped and
embeddings come from the shared cache), then every train query is ranked by keyword and semantic search alone,
by reciprocal-rank fusion (the fused default before) and by the weighted fusion of normalised scores (the
default now), each through `Retriever` as the tools call it. The test split is not read here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evals.bench_retrieval import _stack, bench_quality, quality_rows
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import scifact, shared_data_dir


def run(out: Path) -> dict:
    corpus = shared_data_dir() / scifact.SHARED_FOLDER
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is absent: the fusion benchmark needs ../shared/data/scifact")
    stack = _stack(out, "scifact", fresh=False)
    try:
        Ingestor(stack).ingest(scifact.load(corpus), progress=False)
        return bench_quality(stack, corpus)
    finally:
        stack.close()


def markdown(report: dict) -> str:
    lines = [
        f"SciFact {report['split']} queries ({report['queries']}), document-level, exact vector search:",
        "",
        "| ranking | nDCG@10 | recall@100 |",
        "|---|---|---|",
        *quality_rows(report),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report = run(args.out)
    (args.out / "fusion.json").write_text(json.dumps(report, indent=2))
    (args.out / "fusion.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
