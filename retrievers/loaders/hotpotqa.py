"""HotpotQA (pooled BEIR set of the IRCoT 500-question subsample): 4,858 Wikipedia paragraphs for the `generic`
bucket; no annotations. Its questions are multi-hop, so the answer needs two paragraphs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.models import FieldSpec, SourceDocument
from retrievers.loaders.beir import load_corpus

BUCKET = "generic"
SHARED_FOLDER = "hotpotqa"
FIELDS: list[FieldSpec] = []


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The paragraphs under `path` (the `hotpotqa` folder), lazily."""
    return load_corpus(path, bucket=BUCKET, tag="hotpotqa", limit=limit)
