"""The shared reader of BEIR-format corpora (`corpus.jsonl` lines of `_id`, `title`, `text`), for SciFact and HotpotQA,
and of their queries and relevance judgements (`queries.jsonl`, `qrels/<split>.tsv`), which `ragent adapt` trains on
and the evaluations score with.

These corpora carry no labels: they feed the `generic` bucket for the long-text route, with no annotation rows.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from core.models import Document, SourceDocument
from retrievers.loaders.common import read_jsonl, require_file


def load_corpus(path: Path, *, bucket: str, tag: str, limit: int | None = None) -> Iterator[SourceDocument]:
    """The documents of `path/corpus.jsonl`, tagged `tag`, lazily."""
    corpus = require_file(path / "corpus.jsonl", f"{tag} BEIR")
    documents = (
        SourceDocument(
            document=Document(
                doc_id=record["_id"],
                bucket=bucket,
                title=record.get("title") or "",
                tags=[tag],
                source=str(corpus),
                body=record["text"],
            )
        )
        for record in read_jsonl(corpus)
    )
    return islice(documents, limit)


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
