"""Document management across the three stores: list, show and delete documents of a scope.

A delete is crash-safe the way ingestion is (see `retrievers.ingestion.pipeline`), with Postgres as the commit point:
1. One Postgres transaction deletes the documents (their chunks and annotation rows go with them through the
   foreign keys), marks their buckets' catalogs stale and records each document's chunk ids in
   `pending_deletions`. From this commit on, the documents are gone for every reader: hits are hydrated from
   Postgres, so chunks an engine still holds are never returned.
2. Both engines drop the recorded chunks, the stale catalogs are refreshed, and the record is removed.
A process killed before 1 commits leaves the documents whole; killed after, it leaves records that the next delete,
ingest or `ragent check` finishes (`finish_pending_deletions`) before doing anything else, so a check after a kill
finds the stores agreeing. Chunk ids that Postgres knows again by then (the same content ingested anew gets the
same ids) are kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.errors import InvalidInput
from core.models import MAX_DOC_ID_CHARS
from retrievers.protocols import DocumentStore
from retrievers.stack import Stack

ID_PAGE = 1000
"""Chunk ids looked up in Postgres per query when an interrupted delete is finished."""
NAMED_IN_SUMMARY = 20
"""Deleted documents a summary names; the rest are counted."""


@dataclass
class DeleteReport:
    """What one delete did: the documents it removed (with their chunk and annotation row counts), the ids asked
    for that were not documents of the scope, and how many interrupted deletes it finished first."""

    scope: str
    deleted: list[dict[str, Any]] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    finished_earlier: int = 0

    def summary(self) -> str:
        chunks = sum(d["chunks"] for d in self.deleted)
        rows = sum(d["annotation_rows"] for d in self.deleted)
        unnamed = len(self.deleted) - NAMED_IN_SUMMARY
        lines = (
            [
                f"deleted {len(self.deleted)} document(s) of scope {self.scope!r} "
                f"({chunks} chunks, {rows} annotation rows) from Postgres, the keyword and the vector index",
                *(f"  {d['bucket']}/{d['doc_id']}" for d in self.deleted[:NAMED_IN_SUMMARY]),
                *([f"  ... and {unnamed} more"] if unnamed > 0 else []),
            ]
            if self.deleted
            else ["nothing deleted"]
        )
        if self.not_found:
            lines.append(f"not documents of scope {self.scope!r}: {', '.join(self.not_found)}")
        if self.finished_earlier:
            lines.append(f"(finished {self.finished_earlier} delete(s) an earlier process left part-way)")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def checked_doc_ids(doc_ids: Sequence[object]) -> list[str]:
    """Document ids as a command line or a client gives them, each one a document could have (as `Document` checks
    them), in order without repeats: any other would reach Postgres, where a NUL fails the statement."""
    for doc_id in doc_ids:
        if (
            not isinstance(doc_id, str)
            or not 0 < len(doc_id) <= MAX_DOC_ID_CHARS
            or not doc_id.isprintable()
            or doc_id != doc_id.strip()
        ):
            raise InvalidInput(
                f"{str(doc_id)[:60]!r} is not a document id "
                f"(printable text of 1 to {MAX_DOC_ID_CHARS} characters, no spaces around it)"
            )
    return list(dict.fromkeys(doc_ids))


def show_document(store: DocumentStore, scope: str, doc_id: str) -> dict[str, Any]:
    """The whole record of one document: its fields and body, its chunk count and every annotation row."""
    (doc_id,) = checked_doc_ids([doc_id])
    document = store.get_document(scope, doc_id)
    if document is None:
        raise InvalidInput(f"no document {doc_id!r} in scope {scope!r}; `ragent documents list` shows them")
    (listed,), _ = store.list_documents(scope, doc_id=doc_id)
    return {**document, "chunks": listed["chunks"], "annotations": store.document_annotations(scope, doc_id)}


def delete_documents(
    stack: Stack, scope: str, doc_ids: Sequence[str] = (), *, bucket: str | None = None
) -> DeleteReport:
    """Delete `doc_ids` (or every document of `bucket`) of `scope` from all three stores; see the module docstring."""
    if doc_ids and bucket:
        raise InvalidInput("name the documents to delete or one bucket (--bucket), not both")
    if not doc_ids and not bucket:
        raise InvalidInput("nothing to delete: name the documents (their ids) or one bucket (--bucket)")
    if bucket:
        stack.store.require_bucket(bucket)
    doc_ids = checked_doc_ids(doc_ids)
    report = DeleteReport(scope=scope, finished_earlier=finish_pending_deletions(stack))
    report.deleted = stack.store.delete_documents(scope, doc_ids, bucket=bucket)
    gone = {d["doc_id"] for d in report.deleted}
    report.not_found = [d for d in doc_ids if d not in gone]
    finish_pending_deletions(stack, scope)
    return report


def finish_pending_deletions(stack: Stack, scope: str | None = None) -> int:
    """Drop from both engines the chunks of documents deleted from Postgres (except ids Postgres knows again),
    refresh the catalogs the deletes marked stale, then forget the records; returns how many deletes it finished.

    Idempotent: a process killed anywhere in here leaves the records, and the next call does it all again."""
    pending = stack.store.pending_deletions(scope)
    if not pending:
        return 0
    recorded = sorted({chunk_id for p in pending for chunk_id in p["chunk_ids"]})
    known_again = {
        c.chunk_id
        for start in range(0, len(recorded), ID_PAGE)
        for c in stack.store.indexed_chunks(recorded[start : start + ID_PAGE])
    }
    unreachable = [chunk_id for chunk_id in recorded if chunk_id not in known_again]
    stack.keyword.delete_chunks(unreachable)
    stack.vectors.delete_chunks(unreachable)
    for pending_scope in sorted({p["scope"] for p in pending}):
        stack.store.refresh_stale_catalogs(pending_scope)
    stack.store.clear_pending_deletions([p["id"] for p in pending])
    return len(pending)
