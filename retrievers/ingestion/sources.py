"""What to ingest, as both `ragent ingest` and the server's ingestion graph ask for it: a folder of the user's
files with its bucket (and an optional annotations file), or a named dataset from the shared data folder, in a
scope."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from pathlib import Path

from core.errors import InvalidInput
from core.models import AnnotationRow, FieldSpec, SourceDocument
from core.scope import DEFAULT_SCOPE
from retrievers import loaders
from retrievers.extraction.extractor import without_extracted
from retrievers.ingestion.documents import delete_documents
from retrievers.ingestion.limits import within_limits
from retrievers.ingestion.pipeline import Ingestor, IngestReport
from retrievers.ingestion.progress import IngestProgress
from retrievers.loaders import files
from retrievers.loaders.files import Skipped
from retrievers.stack import Stack


def in_scope(items: Iterable[SourceDocument | Skipped], scope: str) -> Iterator[SourceDocument | Skipped]:
    for item in items:
        if scope != DEFAULT_SCOPE and isinstance(item, SourceDocument):
            item.document = item.document.model_copy(update={"scope": scope})
        yield item


def recorded_as(
    items: Iterable[SourceDocument | Skipped], name: Callable[[str], str]
) -> Iterator[SourceDocument | Skipped]:
    """Each document with its source file recorded under `name(source)`: where the file will be kept, for files
    read where they are only staged (the web page's uploads, `graph.uploads`)."""
    for item in items:
        if isinstance(item, SourceDocument):
            item.document = item.document.model_copy(update={"source": name(item.document.source)})
        yield item


FOLDER_BATCH = 500
"""Documents of a folder ingest compared with what the scope stores in one statement."""


def against_stored(
    items: Iterable[SourceDocument | Skipped],
    stack: Stack,
    scope: str,
    *,
    moved_from: Callable[[str], str] | None = None,
    ingested: Mapping[str, set[str]] | None = None,
) -> Iterator[SourceDocument | Skipped]:
    """A folder's documents, compared with the documents the scope already holds:
    - a file (or a record of one) already ingested under another id, from a folder above or below this one
      (`ingested`: {source: doc_ids}, the folder's documents by the file they came from), is skipped, saying its id:
      an ingest of a folder's parent counted every document twice, and its report then offered to prune the first
      copies, labels and all;
    - one ingested from another file (ids are paths within the folder given: `report.pdf` of `2023/` and of
      `2024/`) is not replaced: the file is skipped, saying which file the document came from; a file is the same
      when `moved_from` says it was moved from there (the server's inbox became a folder per scope);
    - one in another bucket is not moved: the file is skipped, saying which bucket holds it (a mistyped `--bucket`
      moved every document of a folder and dropped their fields, and the ingest said "updated");
    - a document that brings no rows of its own (no annotations file given, or one that does not name it) keeps the
      rows stored for it: re-ingesting a folder to add a file once deleted every label of the others, and so did an
      annotations file correcting one document's label. Only their labelled values are kept: the extracted ones are
      found again in the text (which may have changed).
    Sources recorded as relative paths (before they were made absolute) are not compared."""
    items = iter(items)
    while batch := list(islice(items, FOLDER_BATCH)):
        ids = [item.document.doc_id for item in batch if isinstance(item, SourceDocument)]
        stored = stack.store.stored_origins(scope, ids) if ids else {}
        for item in batch:
            if isinstance(item, SourceDocument) and (twin := _ingested_as(item.document, ingested or {})):
                yield Skipped(
                    item.document.doc_id,
                    f"{item.document.source} is already ingested as {twin!r} (from a folder above or below this "
                    "one); ingest that folder again, or delete it first (`ragent documents delete`)",
                )
                continue
            origin = stored.get(item.document.doc_id) if isinstance(item, SourceDocument) else None
            if origin is not None:
                source, bucket, rows = origin
                new, doc_id = item.document.source, item.document.doc_id
                if Path(source).is_absolute() and source not in (new, moved_from(new) if moved_from else new):
                    yield Skipped(
                        doc_id,
                        f"the scope's document {doc_id!r} came from {source}, another file; ingest the "
                        "folder that holds both, into another scope, or delete it first (`ragent documents delete`)",
                    )
                    continue
                if bucket != item.document.bucket:
                    yield Skipped(
                        doc_id,
                        f"the scope's document {doc_id!r} is in bucket {bucket}: ingest it into {bucket}, or delete it "
                        f"first (`ragent documents delete {shlex.quote(doc_id)}`) to put it in {item.document.bucket}",
                    )
                    continue
                if not item.annotations:
                    item.annotations = without_extracted([AnnotationRow.model_validate(row) for row in rows])
            yield item


def _ingested_as(document: SourceDocument, ingested: Mapping[str, set[str]]) -> str | None:
    """The id the scope holds `document`'s file or record under, when another: ids are places under the folder
    ingested, so the same file read from the folder's parent is "sub/a.txt" where it was "a.txt" (a record: the
    same place in its file)."""
    held = ingested.get(document.source, set())
    if document.doc_id in held:
        return None
    place = _place_in_file(document.doc_id)
    return next((doc_id for doc_id in sorted(held) if _place_in_file(doc_id) == place), None)


def _place_in_file(doc_id: str) -> str:
    """A document's id without the folders before its file: what stays the same whichever folder above the file was
    ingested ("sub/docs.jsonl:7" and "docs.jsonl:7"; "sub/a.txt" and "a.txt")."""
    return doc_id.rsplit("/", 1)[-1]


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
    max_request_chars: int | None = None,
    moved_from: Callable[[str], str] | None = None,
    recorded: Callable[[str], str] | None = None,
    progressed: Callable[[IngestProgress], None] | None = None,
    prune: bool = False,
) -> IngestReport:
    """The documents of a folder or dataset ingested into `scope`, each held to the data folder's ingest limits
    (`core.settings.IngestLimits`); `max_request_chars` bounds what this one ingest writes (a server's request);
    `moved_from` as `against_stored` takes it; `recorded`, where a folder's files will be kept (`recorded_as`).
    A whole folder's ingest also reports the documents still ingested from its files that are no longer there
    (`left_behind`), and deletes them with `prune`."""
    whole_folder = bool(path) and not dataset and limit is None and recorded is None
    if prune and not whole_folder:
        raise InvalidInput("--prune deletes what a whole folder no longer holds: give the folder, without --limit")
    limits = stack.settings.ingest_limits
    specs: Mapping[str, Sequence[FieldSpec]] | None = None
    if dataset:
        if dataset not in loaders.DATASETS:
            raise InvalidInput(f"dataset {dataset!r} is unknown; use one of {', '.join(sorted(loaders.DATASETS))}")
        items = loaders.DATASETS[dataset].load(path or loaders.dataset_path(dataset), limit=limit)
        specs = loaders.field_specs(dataset)
    elif path and bucket:
        items = files.load(path, bucket=bucket, annotations_file=annotations, limit=limit, max_file_mb=limits.file_mb)
    else:
        raise InvalidInput(
            "give a folder and its bucket (`ragent ingest PATH --bucket NAME`) or a dataset (`--dataset NAME`)"
        )
    if bucket:
        stack.store.require_bucket(bucket)
    items = in_scope(within_limits(items, limits), scope)
    if recorded is not None:
        items = recorded_as(items, recorded)
    stored = stack.store.documents_under(scope, str(path.resolve())) if path and not dataset else {}
    if not dataset:
        ingested: dict[str, set[str]] = {}
        for doc_id, source in stored.items():
            ingested.setdefault(source, set()).add(doc_id)
        items = against_stored(items, stack, scope, moved_from=moved_from, ingested=ingested)
    report = Ingestor(stack).ingest(
        items,
        field_specs=specs,
        total=limit,
        force=force,
        progress=progress,
        progressed=progressed,
        max_chars=max_request_chars,
    )
    if whole_folder:
        report.left_behind = left_behind(stored)  # what this ingest added came from files that are there
        report.left_behind_labelled = _labelled(stack, scope, report.left_behind)
        if prune and report.left_behind and not report.documents:
            raise InvalidInput(
                f"{path} holds no document now: --prune would delete all {len(report.left_behind)} documents ingested "
                "from it (an unmounted drive looks the same); delete them with `ragent documents delete` if meant"
            )
        if prune and report.left_behind:
            report.pruned = [d["doc_id"] for d in delete_documents(stack, scope, report.left_behind).deleted]
    return report


def _labelled(stack: Stack, scope: str, doc_ids: list[str]) -> list[str]:
    """Those of `doc_ids` with labelled values (not only values found in their text): deleting them deletes labels
    no file holds (a renamed file's document is a new one, without them: an outside probe's labels lost so)."""
    origins = stack.store.stored_origins(scope, doc_ids) if doc_ids else {}
    return sorted(
        doc_id
        for doc_id, (_, _, rows) in origins.items()
        if without_extracted([AnnotationRow.model_validate(row) for row in rows])
    )


def left_behind(stored: Mapping[str, str]) -> list[str]:
    """Of the scope's documents ingested from files under a folder (`stored`: {doc_id: source}), those the files no
    longer hold: a file deleted or moved away, or a record deleted from a .jsonl or .json file that stays
    (`files.record_ids`), stays ingested, and its values stay in every count, until it is deleted (an outside probe
    moved a file out of a folder, and its next ingest said nothing of it). A file that cannot be read now says
    nothing of its documents."""
    held: dict[str, set[str] | None] = {}
    gone = []
    for doc_id, source in stored.items():
        path = Path(source)
        if not path.exists():
            gone.append(doc_id)
            continue
        if source not in held:
            held[source] = files.record_ids(path)
        ids = held[source]
        if ids is not None and doc_id not in ids and _place_in_file(doc_id) not in ids:
            gone.append(doc_id)  # a record's place is under the folder it was ingested from, maybe a subfolder
    return sorted(gone)
