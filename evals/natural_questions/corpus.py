"""The corpus the natural set's gold is computed on, as the loaders produce it: every document of the seven
datasets by doc_id, with its `properties` labels and its other annotation rows, and the SciFact and HotpotQA qrels
and queries that the qa items take their relevant documents from.

`CORPUS` is the one store of documents: `__main__` fills it once before any question is asked, and every other
module reads that same dict (it is never rebound). A doc_id that two datasets share stops the run, since gold over
the union would be ambiguous.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from retrievers.loaders import DATASETS, dataset_path

ALL_DATASETS = ["cuad", "hotpotqa", "invoices", "kleister_nda", "sample", "scifact", "sroie"]


@dataclass
class Doc:
    dataset: str
    doc_id: str
    bucket: str
    title: str
    body: str
    props: dict[str, Any]
    items: list[dict[str, Any]]
    """Rows of other kinds: invoice line items, datasheet parameters."""


def load_corpus() -> dict[str, Doc]:
    corpus: dict[str, Doc] = {}
    for name in ALL_DATASETS:
        path = None if name == "sample" else dataset_path(name)
        for source in DATASETS[name].load(path):
            document = source.document
            props: dict[str, Any] = {}
            items = []
            for row in source.annotations:
                if row.kind == "properties":
                    props.update(row.row)
                else:
                    items.append(dict(row.row))
            if document.doc_id in corpus:
                raise SystemExit(f"doc_id {document.doc_id} appears twice; gold over the union would be ambiguous")
            corpus[document.doc_id] = Doc(
                name, document.doc_id, document.bucket, document.title, document.body, props, items
            )
    return corpus


def read_qrels(dataset: str, split: str) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = defaultdict(set)
    with (dataset_path(dataset) / "qrels" / f"{split}.tsv").open(encoding="utf-8") as lines:
        for record in csv.DictReader(lines, delimiter="\t"):
            if int(record["score"]) > 0:
                qrels[record["query-id"]].add(record["corpus-id"])
    return qrels


def read_queries(dataset: str) -> dict[str, str]:
    with (dataset_path(dataset) / "queries.jsonl").open(encoding="utf-8") as lines:
        return {(r := json.loads(line))["_id"]: r["text"] for line in lines if line.strip()}


CORPUS: dict[str, Doc] = {}
"""Every document of the seven corpora by doc_id, filled by `__main__.main` before any question is asked."""


def in_bucket(bucket: str) -> list[Doc]:
    return [d for d in CORPUS.values() if d.bucket == bucket]
