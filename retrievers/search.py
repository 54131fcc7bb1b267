"""Keyword, semantic and fused search over the stack, with hits hydrated from the document store.

Engines return chunk ids and scores; the document store turns them into text, offsets and document fields.
Hydration is also the visibility check of ingestion: a chunk that Postgres has not committed (or has already
replaced) is not returned, so a reader never sees half of a document's new version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.models import EngineHit, SearchFilter
from retrievers.fusion import DEFAULT_FUSION, FusionMethod, fuse
from retrievers.stack import Stack

FUSION_DEPTH = 100


@dataclass(frozen=True)
class SearchHit:
    chunk_id: str
    doc_id: str
    score: float
    text: str
    start: int
    end: int
    bucket: str
    title: str
    author: str | None
    tags: list[str]
    created_at: datetime | None
    source: str


class Retriever:
    """The three kinds of text search the tools offer, all with the same pushed-down filters."""

    def __init__(self, stack: Stack):
        self.stack = stack

    def keyword(self, query: str, filters: SearchFilter, limit: int) -> list[SearchHit]:
        return self._hydrate(self.stack.keyword.search(query, filters, limit), filters)

    def semantic(self, query: str, filters: SearchFilter, limit: int) -> list[SearchHit]:
        vector = self.stack.embedder.embed_query(query)
        return self._hydrate(self.stack.vectors.search(vector, filters, limit), filters)

    def fused(
        self,
        query: str,
        filters: SearchFilter,
        limit: int,
        depth: int = FUSION_DEPTH,
        method: FusionMethod = DEFAULT_FUSION,
    ) -> list[SearchHit]:
        """The top `depth` chunks of each engine fused by `method` (see retrievers.fusion); the score is the fused
        score. Every caller (the fused_search tool, `ragent search fused`, the evals) takes the default."""
        keyword = self.stack.keyword.search(query, filters, depth)
        semantic = self.stack.vectors.search(self.stack.embedder.embed_query(query), filters, depth)
        return self._hydrate(fuse(keyword, semantic, method)[:limit], filters)

    def _hydrate(self, hits: list[EngineHit], filters: SearchFilter) -> list[SearchHit]:
        rows = self.stack.store.chunks_by_id(filters.scope, [h.chunk_id for h in hits])
        return [
            SearchHit(
                chunk_id=h.chunk_id,
                doc_id=h.doc_id,
                score=h.score,
                text=row["text"],
                start=row["start_char"],
                end=row["end_char"],
                bucket=row["bucket"],
                title=row["title"],
                author=row["author"],
                tags=row["tags"],
                created_at=row["created_at"],
                source=row["source"],
            )
            for h in hits
            if (row := rows.get(h.chunk_id)) is not None
        ]
