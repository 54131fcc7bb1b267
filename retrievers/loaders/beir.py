"""The shared reader of BEIR-format corpora (`corpus.jsonl` lines of `_id`, `title`, `text`), for SciFact and HotpotQA.

These corpora carry no labels: they feed the `generic` bucket for the long-text route, with no annotation rows.
"""

from __future__ import annotations

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
