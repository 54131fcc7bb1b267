"""Keyword (BM25) index on Tantivy, on disk: the embedded default.

The query text is run through the same analyzer as the indexed text and turned into term queries (each the
best of title and body, see TITLE_TIE_BREAKER), rather than handed to Tantivy's query parser, so that user
text with quotes, colons or brackets is searched as words and never fails as query syntax. Filters are Tantivy
queries with a constant score of zero, ANDed with the text query: they restrict the match set without changing the
BM25 ranking.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tantivy

from core.errors import BackendUnavailable
from core.models import EngineHit, IndexedChunk, SearchFilter, scoped_doc_key
from retrievers.engines.damaged import IndexDamaged, engine_reason, said_as_damage
from retrievers.engines.disk_usage import disk_usage

ANALYZER = "en_bm25"
_WRITER_HEAP_BYTES = 64_000_000
_WRITER_WAIT_S = 30.0
# Each query term scores as its best field (text or title) plus this share of the other: a term found in both
# is not counted twice. Measured on SciFact train queries: nDCG@10 0.664 summing both fields, 0.690 with 0.3.
TITLE_TIE_BREAKER = 0.3
_NESTED_IO_ERROR = re.compile(r'error: "(?P<error>[^".]+).*?filepath: "(?P<file>[^"]+)"')
"""Tantivy's open error is the debug dump of an IO error: its message's first sentence and its file say it all."""


def _english_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for name in ("chunk_id", "doc_id"):
        builder.add_text_field(name, stored=True, tokenizer_name="raw")
    for name in ("doc_key", "scope", "bucket", "author", "tags", "content_hash"):
        builder.add_text_field(name, stored=False, tokenizer_name="raw")
    builder.add_integer_field("created_ts", stored=False, indexed=True, fast=True)
    builder.add_text_field("title", stored=False, tokenizer_name=ANALYZER)
    builder.add_text_field("text", stored=False, tokenizer_name=ANALYZER)
    return builder.build()


class TantivyKeywordIndex:
    """BM25 over chunk text and titles, with scope, bucket, doc ids, authors, tags and dates as filters."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._schema = _schema()
        self._what = f"the keyword index in {self.path}"
        try:
            self._index = tantivy.Index(self._schema, path=str(self.path), reuse=True)
        except (ValueError, OSError) as exc:
            nested = _NESTED_IO_ERROR.search(str(exc))
            reason = f"{nested['file']}: {nested['error']}" if nested else engine_reason(exc)
            raise IndexDamaged(self._what, f"cannot be opened: {reason}") from None
        self._analyzer = _english_analyzer()
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        self._write_lock = threading.Lock()

    # -- writing -------------------------------------------------------------------------------------

    def upsert(self, chunks: Sequence[IndexedChunk]) -> None:
        if not chunks:
            return
        with self._writing() as writer:
            for chunk in chunks:
                writer.delete_documents_by_term("chunk_id", chunk.chunk_id)
                writer.add_document(self._to_document(chunk))

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        clauses = [(tantivy.Occur.Must, self._term("doc_key", scoped_doc_key(scope, doc_id)))]
        if keep_hash is not None:
            clauses.append((tantivy.Occur.MustNot, self._term("content_hash", keep_hash)))
        with self._writing() as writer:
            writer.delete_documents_by_query(tantivy.Query.boolean_query(clauses))

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        with self._writing() as writer:
            for chunk_id in chunk_ids:
                writer.delete_documents_by_term("chunk_id", chunk_id)

    @contextmanager
    def _writing(self) -> Iterator[tantivy.IndexWriter]:
        """The index's one writer for a batch of changes, committed and made visible to new searchers at the end."""
        with self._write_lock, self._damage_said():
            writer = self._writer()
            yield writer
            writer.commit()
            writer.wait_merging_threads()
        self._index.reload()

    def _writer(self) -> tantivy.IndexWriter:
        """Tantivy allows one writer per index across processes; another process's writer holds it per batch
        only, so wait for it a while before giving up."""
        deadline = time.monotonic() + _WRITER_WAIT_S
        while True:
            try:
                return self._index.writer(_WRITER_HEAP_BYTES, 1)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise BackendUnavailable(
                        f"the keyword index in {self.path} is being written by another process "
                        f"for over {_WRITER_WAIT_S:.0f} s; "
                        "let that ingest finish, then run this one again"
                    ) from None
                time.sleep(0.2)

    def _to_document(self, chunk: IndexedChunk) -> tantivy.Document:
        doc = tantivy.Document(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            doc_key=scoped_doc_key(chunk.scope, chunk.doc_id),
            scope=chunk.scope,
            bucket=chunk.bucket,
            content_hash=chunk.content_hash,
            title=chunk.title,
            text=chunk.text,
        )
        if chunk.author:
            doc.add_text("author", chunk.author)
        for tag in chunk.tags:
            doc.add_text("tags", tag)
        if chunk.created_ts is not None:
            doc.add_integer("created_ts", chunk.created_ts)
        return doc

    # -- reading -------------------------------------------------------------------------------------

    def search(self, query: str, filters: SearchFilter, limit: int) -> list[EngineHit]:
        text_query = self._text_query(query)
        if text_query is None or limit <= 0:
            return []
        with self._damage_said():
            searcher = self._index.searcher()
            result = searcher.search(self._filtered(text_query, filters), limit, count=False)
            hits = []
            for score, address in result.hits:
                doc = searcher.doc(address)
                hits.append(EngineHit(chunk_id=doc["chunk_id"][0], doc_id=doc["doc_id"][0], score=float(score)))
        return hits

    def count(self, filters: SearchFilter, query: str | None = None) -> int:
        text_query = self._text_query(query) if query else tantivy.Query.all_query()
        if text_query is None:
            return 0
        with self._damage_said():
            return self._index.searcher().search(self._filtered(text_query, filters), 1, count=True).count

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Every live document read from the doc store (the term dictionary still lists deleted chunks until a
        merge); about half a second per 100k chunks here. Reading every document is also `ragent check`'s read of
        every segment's doc store (`retrievers.ingestion.engine_damage`)."""
        with self._damage_said():
            searcher = self._index.searcher()
            if searcher.num_docs == 0:
                return set()
            query = self._term("scope", scope) if scope is not None else tantivy.Query.all_query()
            result = searcher.search(query, searcher.num_docs, count=False)
            return {searcher.doc(address)["chunk_id"][0] for _, address in result.hits}

    def _text_query(self, query: str) -> tantivy.Query | None:
        """Each analysed term as the best of its title and body matches; None when no term survives analysis."""
        terms = list(dict.fromkeys(self._analyzer.analyze(query)))
        if not terms:
            return None
        return tantivy.Query.boolean_query(
            [
                (
                    tantivy.Occur.Should,
                    tantivy.Query.disjunction_max_query(
                        [self._term("text", t), self._term("title", t)], TITLE_TIE_BREAKER
                    ),
                )
                for t in terms
            ]
        )

    def stats(self) -> dict[str, Any]:
        with self._damage_said():
            chunks = self._index.searcher().num_docs
        return {"engine": "tantivy", "chunks": chunks, "bytes_on_disk": disk_usage(self.path)}

    def _damage_said(self):
        """Tantivy's ValueError for a file it cannot read, as `IndexDamaged` naming the repair."""
        return said_as_damage(self._what, ValueError)

    def close(self) -> None:
        """Nothing to release: writers are opened and closed per batch so that other processes can write."""

    def _filtered(self, query: tantivy.Query, filters: SearchFilter) -> tantivy.Query:
        clauses = [(tantivy.Occur.Must, query)]
        clauses += [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(q, 0.0)) for q in self._filter_queries(filters)
        ]
        return tantivy.Query.boolean_query(clauses)

    def _filter_queries(self, f: SearchFilter) -> list[tantivy.Query]:
        queries = [self._term("scope", f.scope)]
        if f.bucket is not None:
            queries.append(self._term("bucket", f.bucket))
        if f.doc_ids is not None:
            queries.append(tantivy.Query.term_set_query(self._schema, "doc_id", list(f.doc_ids)))
        if f.authors is not None:
            queries.append(tantivy.Query.term_set_query(self._schema, "author", list(f.authors)))
        queries += [self._term("tags", tag) for tag in f.tags or []]
        if f.created_after is not None or f.created_before is not None:
            queries.append(
                tantivy.Query.range_query(
                    self._schema, "created_ts", tantivy.FieldType.Integer, f.created_after_ts, f.created_before_ts
                )
            )
        return queries

    def _term(self, field: str, value: str) -> tantivy.Query:
        return tantivy.Query.term_query(self._schema, field, value)
