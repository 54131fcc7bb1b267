"""SciFact (BEIR format): 5,183 scientific abstracts for the `generic` bucket; no annotations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.models import FieldSpec, SourceDocument
from retrievers.loaders.beir import load_corpus

BUCKET = "generic"
SHARED_FOLDER = "scifact"
FIELDS: list[FieldSpec] = []


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The abstracts under `path` (the `scifact` folder), lazily."""
    return load_corpus(path, bucket=BUCKET, tag="scifact", limit=limit)
