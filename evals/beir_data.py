"""Queries and relevance judgements of a BEIR-format dataset (`queries.jsonl`, `qrels/<split>.tsv`)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from retrievers.loaders.common import read_jsonl


def load_qrels(path: Path, split: str) -> dict[str, set[str]]:
    """query id -> ids of the documents judged relevant (score > 0)."""
    relevant: dict[str, set[str]] = defaultdict(set)
    with (path / "qrels" / f"{split}.tsv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if int(row["score"]) > 0:
                relevant[row["query-id"].strip()].add(row["corpus-id"].strip())
    return dict(relevant)


def load_queries(path: Path, ids: set[str]) -> dict[str, str]:
    """query id -> text, for the ids asked for (query metadata holds the labels and is never read)."""
    return {q["_id"]: q["text"] for q in read_jsonl(path / "queries.jsonl") if q["_id"] in ids}
