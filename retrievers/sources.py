"""What to ingest, as both `ragent ingest` and the server's ingestion graph ask for it: a folder of the user's
files with its bucket (and an optional annotations file), or a named dataset from the shared data folder, in a
scope."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from retrievers import loaders
from retrievers.errors import InvalidInput
from retrievers.ingest import Ingestor, IngestReport
from retrievers.loaders import files
from retrievers.loaders.files import Skipped
from retrievers.models import DEFAULT_SCOPE, SAMPLE_SCOPE, FieldSpec, SourceDocument
from retrievers.stack import Stack


def dataset_scope(dataset: str | None) -> str:
    """The scope documents go to when none is named: the sample corpus's own, else `default`."""
    return SAMPLE_SCOPE if dataset == "sample" else DEFAULT_SCOPE


def in_scope(items: Iterable[SourceDocument | Skipped], scope: str) -> Iterator[SourceDocument | Skipped]:
    for item in items:
        if scope != DEFAULT_SCOPE and isinstance(item, SourceDocument):
            item.document = item.document.model_copy(update={"scope": scope})
        yield item


def ingest_source(
    stack: Stack,
    *,
    path: Path | None = None,
    bucket: str | None = None,
    annotations: Path | None = None,
    dataset: str | None = None,
    limit: int | None = None,
    scope: str = DEFAULT_SCOPE,
    force: bool = False,
    progress: bool | None = None,
) -> IngestReport:
    specs: Mapping[str, Sequence[FieldSpec]] | None = None
    if dataset:
        if dataset not in loaders.DATASETS:
            raise InvalidInput(f"dataset {dataset!r} is unknown; use one of {', '.join(sorted(loaders.DATASETS))}")
        items = loaders.DATASETS[dataset].load(path or loaders.dataset_path(dataset), limit=limit)
        specs = loaders.field_specs(dataset)
    elif path and bucket:
        items = files.load(path, bucket=bucket, annotations_file=annotations, limit=limit)
    else:
        raise InvalidInput(
            "give a folder and its bucket (`ragent ingest PATH --bucket NAME`) or a dataset (`--dataset NAME`)"
        )
    if bucket:
        stack.store.require_bucket(bucket)
    return Ingestor(stack).ingest(
        in_scope(items, scope), field_specs=specs, total=limit, force=force, progress=progress
    )
