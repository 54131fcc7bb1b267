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
from retrievers.models import DEFAULT_SCOPE, SAMPLE_SCOPE, AnnotationRow, FieldSpec, SourceDocument
from retrievers.stack import Stack


def dataset_scope(dataset: str | None) -> str:
    """The scope documents go to when none is named: the sample corpus's own, else `default`."""
    return SAMPLE_SCOPE if dataset == "sample" else DEFAULT_SCOPE


def in_scope(items: Iterable[SourceDocument | Skipped], scope: str) -> Iterator[SourceDocument | Skipped]:
    for item in items:
        if scope != DEFAULT_SCOPE and isinstance(item, SourceDocument):
            item.document = item.document.model_copy(update={"scope": scope})
        yield item


def keeping_stored_annotations(
    items: Iterable[SourceDocument | Skipped], stack: Stack
) -> Iterator[SourceDocument | Skipped]:
    """A folder ingested again without its annotations file: a document that brings no rows of its own keeps the
    rows stored for it. Without this, re-ingesting a folder to add a file deleted every label of the others; rows
    are replaced by an annotations file, or by a JSON document's own."""
    for item in items:
        if isinstance(item, SourceDocument) and not item.annotations:
            stored = stack.store.document_annotations(item.document.scope, item.document.doc_id)
            item.annotations = [AnnotationRow(kind=r["kind"], row=r["row"], raw=r["raw"]) for r in stored]
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
    items = in_scope(items, scope)
    if not dataset and annotations is None:
        items = keeping_stored_annotations(items, stack)
    return Ingestor(stack).ingest(items, field_specs=specs, total=limit, force=force, progress=progress)
