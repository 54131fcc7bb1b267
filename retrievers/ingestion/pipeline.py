"""The ingestion pipeline: loader output in, every engine written, one commit per document.

Order of writes for each batch, and why:
1. Unchanged documents (same content hash in Postgres) are skipped, so re-ingesting costs nothing.
2. Chunks are embedded for the whole batch at once (the model is fastest on full batches; the cache makes
   repeated text free, and keeps what a killed run embedded: `cache.STORED_EVERY`).
3. The keyword and vector engines receive the new version's chunks under new chunk ids. They are not
   visible yet: hits are hydrated from Postgres, which does not know these ids.
4. Postgres commits each document (row, chunks, annotations) in its own transaction: the document flips
   to its new version atomically, and a crash before this point leaves the previous version intact.
5. The engines drop the chunks of older versions of the documents that changed.
A crash between 3 and 4 leaves unreachable chunks in the engines, which the next ingest of the same content
overwrites; a crash between 4 and 5, or a new document whose source changed before the next ingest, leaves
them for good. `ragent check --repair` (retrievers.ingestion.consistency) finds and deletes them.

The field catalog is derived from all the rows of a bucket, which costs too much to redo in every commit (half a
second at 20,000 receipts), so each commit only marks its bucket's catalog stale, in its own transaction, and the
run ends by refreshing the stale catalogs of its scopes: also when it fails part-way, and also when it finds every
document unchanged, which is how a run after a killed one brings the catalog level with the rows it committed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from core.models import Chunk, FieldSpec, IndexedChunk, SourceDocument, timestamp
from retrievers.extraction.extractor import AT_INGEST, extracted
from retrievers.extraction.rules.learned_clauses import LearnedClauses
from retrievers.extraction.shipped import declared_specs, with_rules
from retrievers.extraction.stored import field_stamp
from retrievers.ingestion.chunking import chunk_spans
from retrievers.ingestion.documents import finish_pending_deletions
from retrievers.ingestion.progress import IngestDisplay, IngestProgress
from retrievers.loaders.files import Skipped
from retrievers.stack import Stack

CHUNK_OVERLAP_TOKENS = 32
TITLE_TOKEN_BUDGET = 32
BATCH_DOCUMENTS = 16
STAGES = ("extracting", "tokenising", "embedding", "postgres", "keyword index", "vector index")
"""Where an ingest's time goes, as `IngestReport.stage_seconds` counts it: finding fields in the texts, tokenising and
chunking the bodies, embedding the chunks, Postgres (content hashes, document commits, catalogs), and writing each
index."""
SKIPPED_SHOWN = 20
"""How many skipped files and records a report lists with their reasons; the rest are counted. A folder can hold a
million unusable records (a .jsonl of `{}` lines): listing each one made a 200 MB server response and a million-line
summary, while the first few reasons already say what is wrong."""


@dataclass
class IngestReport:
    """What one ingest run did; printed as the run's summary."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0
    annotation_rows: int = 0
    values_extracted: int = 0
    documents_extracted: int = 0
    skipped: list[Skipped] = field(default_factory=list)  # the first SKIPPED_SHOWN of them
    skipped_total: int = 0
    named: dict[str, list[str]] = field(default_factory=lambda: {"added": [], "updated": [], "unchanged": []})
    """The first SKIPPED_SHOWN document ids of each outcome: which documents a folder ingested again changed and
    which were the same (the web page says it of each file it uploaded)."""
    left_behind: list[str] = field(default_factory=list)
    """Documents still ingested from files of the folder that are no longer there (`sources.left_behind`)."""
    left_behind_labelled: list[str] = field(default_factory=list)
    """Those of them with labelled values, which deleting them deletes (a renamed file's new document has none)."""
    pruned: list[str] = field(default_factory=list)
    """Those of them the run deleted (`ragent ingest --prune`)."""
    characters: int = 0
    """Of the documents written (added or updated), counted against the run's `max_chars`."""
    seconds: float = 0.0
    embeddings_computed: int = 0
    embeddings_cached: int = 0
    stage_seconds: Counter[str] = field(default_factory=Counter)
    """Seconds spent in each stage (STAGES); the rest of `seconds` is reading the sources and the loop itself."""

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.stage_seconds[stage] += time.perf_counter() - started

    def stage_shares(self) -> dict[str, float]:
        """Each stage's share of the run's seconds, and `other` for the rest, in the order of STAGES."""
        shares = {stage: self.stage_seconds[stage] / self.seconds for stage in STAGES} if self.seconds else {}
        return {**shares, "other": 1 - sum(shares.values())} if shares else {}

    @property
    def documents(self) -> int:
        return self.added + self.updated + self.unchanged

    def count(self, outcome: str, doc_id: str) -> None:
        """One more document `added`, `updated` or `unchanged`; its id kept while fewer than SKIPPED_SHOWN are."""
        setattr(self, outcome, getattr(self, outcome) + 1)
        if len(self.named[outcome]) < SKIPPED_SHOWN:
            self.named[outcome].append(doc_id)

    def skip(self, item: Skipped) -> None:
        """Count a skipped file or record; keep its reason only while fewer than SKIPPED_SHOWN are kept."""
        self.skipped_total += 1
        if len(self.skipped) < SKIPPED_SHOWN:
            self.skipped.append(item)

    def _left_behind(self) -> list[str]:
        """What the summary says of the folder's files that are gone: deleted with them, or still counted."""
        labelled = self.left_behind_labelled
        if self.pruned:
            said = f"deleted, their files no longer in the folder: {len(self.pruned)} ({_named(self.pruned)})"
            return [said + (f"; with them the labels of {len(labelled)} ({_named(labelled)})" if labelled else "")]
        if self.left_behind:
            n = len(self.left_behind)
            said = (
                f"no longer in the folder: {n} document{'s' if n > 1 else ''} still ingested from it and counted in "
                f"answers ({_named(self.left_behind)}); `--prune` deletes them"
            )
            if labelled:  # a renamed file is a new document: its labels stay with the old one until it is deleted
                said += (
                    f", and the labels of {len(labelled)} ({_named(labelled)}): a file renamed or moved keeps none,"
                    " give them again with --annotations"
                )
            return [said]
        return []

    def summary(self) -> str:
        lines = [
            f"documents: {self.documents} ({self.added} added, {self.updated} updated, {self.unchanged} unchanged)",
            f"chunks: {self.chunks}   annotation rows: {self.annotation_rows}"
            + f"   values found in the text: {self.values_extracted} in {self.documents_extracted} documents",
            f"embeddings: {self.embeddings_computed} computed, {self.embeddings_cached} from cache",
            f"skipped files: {self.skipped_total}",
            *(f"  {s.path}: {s.reason}" for s in self.skipped),
            *(
                [f"  ... and {self.skipped_total - len(self.skipped)} more (only the first {SKIPPED_SHOWN} are listed)"]
                if self.skipped_total > len(self.skipped)
                else []
            ),
            *self._left_behind(),
            f"seconds: {self.seconds:.1f}"
            + (f"   ({self.chunks / self.seconds:.1f} chunks/s)" if self.seconds and self.chunks else ""),
        ]
        if self.chunks:
            lines.append("time: " + ", ".join(f"{stage} {share:.0%}" for stage, share in self.stage_shares().items()))
        return "\n".join(lines)


def _named(doc_ids: list[str]) -> str:
    shown = ", ".join(doc_ids[:SKIPPED_SHOWN])
    return shown + (f" and {len(doc_ids) - SKIPPED_SHOWN} more" if len(doc_ids) > SKIPPED_SHOWN else "")


def embedding_text(chunk: IndexedChunk) -> str:
    """What the embedder sees of a chunk: the document title, then the chunk text (chunks are windowed short by the
    title's tokens for this). Re-indexing a chunk must embed exactly this, or it would miss the embedding cache."""
    return f"{chunk.title}\n{chunk.text}" if chunk.title else chunk.text


def embedded(stack: Stack, chunks: Sequence[IndexedChunk]) -> list[list[float]]:
    """The chunks' vectors, each scope's from the cache of that scope (`CachedEmbedder.embed_documents`)."""
    vectors: dict[str, list[float]] = {}
    for scope in dict.fromkeys(c.scope for c in chunks):
        mine = [c for c in chunks if c.scope == scope]
        found = stack.embedder.embed_documents([embedding_text(c) for c in mine], scope)
        vectors.update(zip((c.chunk_id for c in mine), found, strict=True))
    return [vectors[c.chunk_id] for c in chunks]


def _batches(
    items: Iterable[SourceDocument | Skipped], report: IngestReport, size: int
) -> Iterator[list[SourceDocument]]:
    batch: list[SourceDocument] = []
    for item in items:
        if isinstance(item, Skipped):
            report.skip(item)
            continue
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _past_request(max_chars: int) -> str:
    return (
        f"past the {max_chars:,} characters one ingest may write (RAGENT_INGEST_MAX_REQUEST_CHARS); ingest again to "
        "take the rest (what went in is unchanged then and costs nothing)"
    )


class Ingestor:
    """Writes loader output into the stack's engines; see the module docstring for the order of writes."""

    def __init__(self, stack: Stack):
        self.stack = stack
        self._schemas: dict[str, list[FieldSpec]] = {}
        # Candidate sentences are embedded past the embedding cache: they are not chunks, and counting them would
        # misreport the chunks an ingest embedded.
        self._learned = LearnedClauses(stack.embedder.inner)

    def _schema(self, bucket: str) -> list[FieldSpec]:
        """The fields declared for `bucket` (its shipped schema declared first), with the user's words for them, read
        once per ingest."""
        if bucket not in self._schemas:
            self._schemas[bucket] = declared_specs(self.stack.store, bucket)
        return self._schemas[bucket]

    def ingest(
        self,
        items: Iterable[SourceDocument | Skipped],
        *,
        field_specs: Mapping[str, Sequence[FieldSpec]] | None = None,
        total: int | None = None,
        progress: bool | None = None,
        force: bool = False,
        max_chars: int | None = None,
        progressed: Callable[[IngestProgress], None] | None = None,
    ) -> IngestReport:
        """Ingest every document; `field_specs` declares annotation fields by bucket (each found by its shipped rule
        where there is one: `with_rules`); `progress=None` shows a bar on a terminal and plain lines elsewhere
        (`IngestDisplay`), and `progressed` gets the counts after every batch; `force` rewrites unchanged documents
        too (to rebuild an engine's index from the sources); `max_chars` bounds the characters of the documents
        written, each one past it skipped with the reason."""
        report = IngestReport()
        self._schemas.clear()
        started = time.perf_counter()
        hits_before, misses_before = self.stack.embedder.hits, self.stack.embedder.misses
        finish_pending_deletions(self.stack)  # a delete left part-way drops its chunks before any are written again
        for bucket, specs in (field_specs or {}).items():
            self.stack.store.record_field_specs(bucket, with_rules(bucket, specs))
        scopes: set[str] = set()
        try:
            display = IngestDisplay(total, progress, progressed)
            try:
                for batch in _batches(items, report, BATCH_DOCUMENTS):
                    scopes |= {source.document.scope for source in batch}
                    chunks_before = report.chunks
                    self._ingest_batch(batch, report, force, max_chars)
                    display.advance(len(batch), report.chunks - chunks_before)
            finally:
                display.close()
        except BaseException:
            # The error that stopped the run is the one to report; a catalog this cannot refresh stays marked stale
            # for the next ingest or `ragent check --repair`.
            with suppress(Exception):
                self._refresh_stale_catalogs(scopes)
            raise
        with report.timed("postgres"):
            self._refresh_stale_catalogs(scopes)
        with report.timed("vector index"):
            self.stack.vectors.optimize()
        report.embeddings_cached = self.stack.embedder.hits - hits_before
        report.embeddings_computed = self.stack.embedder.misses - misses_before
        report.seconds = time.perf_counter() - started
        return report

    def _refresh_stale_catalogs(self, scopes: set[str]) -> None:
        for scope in sorted(scopes):
            self.stack.store.refresh_stale_catalogs(scope)

    def _ingest_batch(
        self, batch: list[SourceDocument], report: IngestReport, force: bool, max_chars: int | None = None
    ) -> None:
        """Write the batch's new and changed documents, as many as `max_chars` leaves room for."""
        stack = self.stack
        hashes = [s.content_hash() for s in batch]
        current: dict[tuple[str, str], str] = {}
        with report.timed("postgres"):
            for bucket in {s.document.bucket for s in batch}:
                stack.store.require_bucket(bucket)
            for scope in {s.document.scope for s in batch}:
                ids = [s.document.doc_id for s in batch if s.document.scope == scope]
                current.update(((scope, d), h) for d, h in stack.store.content_hashes(scope, ids).items())
        pending = []
        for source, content_hash in zip(batch, hashes, strict=True):
            key = (source.document.scope, source.document.doc_id)
            if current.get(key) == content_hash and not force:
                report.count("unchanged", source.document.doc_id)
            elif max_chars is not None and report.characters + len(source.document.body) > max_chars:
                report.skip(Skipped(source.document.doc_id, _past_request(max_chars)))
            else:
                report.characters += len(source.document.body)
                pending.append((source, content_hash, key in current))
        if not pending:
            return
        with report.timed("postgres"):
            schemas = {source.document.bucket: self._schema(source.document.bucket) for source, *_ in pending}
        stamps = {
            bucket: {spec.name: field_stamp(spec) for spec in specs if spec.found_by in AT_INGEST}
            for bucket, specs in schemas.items()
        }
        with report.timed("extracting"):
            pending = [(self._extracted(source, schemas, report), *rest) for source, *rest in pending]
        with report.timed("tokenising"):
            planned = [
                (source, content_hash, existed, self._chunk(source, content_hash))
                for source, content_hash, existed in pending
            ]
        indexed = [ic for *_, (_, chunk_list) in planned for ic in chunk_list]
        with report.timed("embedding"):
            vectors = embedded(stack, indexed)
        with report.timed("keyword index"):
            stack.keyword.upsert(indexed)
        with report.timed("vector index"):
            stack.vectors.upsert(indexed, vectors)
        for source, content_hash, existed, (chunks, chunk_list) in planned:
            read = {} if source.labels_complete else stamps[source.document.bucket]
            with report.timed("postgres"):
                stack.store.commit_document(source, content_hash, chunks, [ic.chunk_id for ic in chunk_list], read)
            report.chunks += len(chunks)
            report.annotation_rows += len(source.annotations)
            doc = source.document
            if existed:
                report.count("updated", doc.doc_id)
                with report.timed("keyword index"):
                    stack.keyword.delete_document(doc.scope, doc.doc_id, keep_hash=content_hash)
                with report.timed("vector index"):
                    stack.vectors.delete_document(doc.scope, doc.doc_id, keep_hash=content_hash)
            else:
                report.count("added", doc.doc_id)

    def _extracted(
        self, source: SourceDocument, schemas: dict[str, list[FieldSpec]], report: IngestReport
    ) -> SourceDocument:
        """The document with the fields its text gives (`retrievers.extraction`, the learned clauses reading the
        ingest's own embedder), counted in the report."""
        found = extracted(source, schemas[source.document.bucket], learned=self._learned)
        values = sum(len(row.sources) for row in found.annotations) - sum(len(r.sources) for r in source.annotations)
        if values:
            report.values_extracted += values
            report.documents_extracted += 1
        return found

    def _chunk(self, source: SourceDocument, content_hash: str) -> tuple[list[Chunk], list[IndexedChunk]]:
        doc = source.document
        embedder = self.stack.embedder
        title_tokens = min(len(embedder.token_spans(doc.title)), TITLE_TOKEN_BUDGET) if doc.title else 0
        chunks = chunk_spans(
            doc.body, embedder.token_spans(doc.body), embedder.window_tokens - title_tokens, CHUNK_OVERLAP_TOKENS
        )
        indexed = [
            IndexedChunk(
                chunk_id=IndexedChunk.make_id(doc.scope, doc.doc_id, content_hash, c.ordinal),
                doc_id=doc.doc_id,
                scope=doc.scope,
                bucket=doc.bucket,
                content_hash=content_hash,
                ordinal=c.ordinal,
                title=doc.title,
                text=c.text,
                author=doc.author,
                tags=list(doc.tags),
                created_ts=timestamp(doc.created_at),
            )
            for c in chunks
        ]
        return chunks, indexed
