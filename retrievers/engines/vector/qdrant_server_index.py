"""Vector index on a Qdrant server through `qdrant-client` (`QDRANT_URL`): the production backend.

The same class runs on qdrant-client's local mode (`location=":memory:"` or `path=...`), which is how the
conformance suite tests it here, since no Qdrant server can run on these machines. Local mode filters in
Python and is slow at scale; it is a test double for the server, not an embedded default.

The embedding model and dimension are stored as collection metadata and checked on open.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from qdrant_client import QdrantClient, models

from core.errors import BackendUnavailable
from core.models import EngineHit, IndexedChunk, SearchFilter, scoped_doc_key
from retrievers.engines.vector.qdrant_payload import (
    ID_PAGE,
    PAYLOAD_INTEGER_FIELDS,
    PAYLOAD_KEYWORD_FIELDS,
    UPSERT_BATCH,
    Condition,
    Match,
    MatchAny,
    check_model_signature,
    chunk_payload,
    filter_conditions,
    model_signature,
)


def _match(key: str, value: str) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def _condition(c: Condition) -> models.FieldCondition:
    if isinstance(c, Match):
        return _match(c.key, c.value)
    if isinstance(c, MatchAny):
        return models.FieldCondition(key=c.key, match=models.MatchAny(any=c.values))
    return models.FieldCondition(key=c.key, range=models.Range(gte=c.gte, lte=c.lte))


def server_filter(f: SearchFilter) -> models.Filter:
    """The SearchFilter as a qdrant-client filter: every condition a `must`, as in `edge_filter`."""
    return models.Filter(must=[_condition(c) for c in filter_conditions(f)])


class QdrantServerVectorIndex:
    """Cosine similarity over chunk embeddings in one Qdrant collection."""

    def __init__(
        self, client: QdrantClient, *, collection: str = "ragent_chunks", exact: bool = False, where: str = "Qdrant"
    ):
        self.client = client
        self.collection = collection
        self.exact = exact
        self.where = where

    @classmethod
    def from_url(cls, url: str, *, api_key: str | None = None, **kwargs: Any) -> QdrantServerVectorIndex:
        client = QdrantClient(url=url, api_key=api_key, timeout=5)
        try:
            client.get_collections()
        except Exception as exc:  # qdrant-client raises transport-specific errors; all mean the same here
            raise BackendUnavailable(
                f"Qdrant at {url} is unreachable ({type(exc).__name__}); "
                "start it or unset QDRANT_URL to use the embedded qdrant-edge index"
            ) from None
        return cls(client, where=f"Qdrant collection at {url}", **kwargs)

    def ensure_model(self, model_name: str, dimension: int) -> None:
        if self.client.collection_exists(self.collection):
            metadata = self.client.get_collection(self.collection).config.metadata or {}
            check_model_signature(metadata, model_name, dimension, f"{self.where} '{self.collection}'")
            return
        self.client.create_collection(
            self.collection,
            vectors_config=models.VectorParams(size=dimension, distance=models.Distance.COSINE),
            metadata=model_signature(model_name, dimension),
        )
        for name in PAYLOAD_KEYWORD_FIELDS:
            self.client.create_payload_index(self.collection, name, models.PayloadSchemaType.KEYWORD)
        for name in PAYLOAD_INTEGER_FIELDS:
            self.client.create_payload_index(self.collection, name, models.PayloadSchemaType.INTEGER)

    def upsert(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None:
        points = [
            models.PointStruct(id=c.chunk_id, vector=list(map(float, v)), payload=chunk_payload(c))
            for c, v in zip(chunks, vectors, strict=True)
        ]
        for start in range(0, len(points), UPSERT_BATCH):
            self.client.upsert(self.collection, points[start : start + UPSERT_BATCH], wait=True)

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        must_not = [_match("content_hash", keep_hash)] if keep_hash is not None else None
        selector = models.Filter(must=[_match("doc_key", scoped_doc_key(scope, doc_id))], must_not=must_not)
        self.client.delete(self.collection, points_selector=models.FilterSelector(filter=selector), wait=True)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        for start in range(0, len(chunk_ids), ID_PAGE):
            selector = models.PointIdsList(points=list(chunk_ids[start : start + ID_PAGE]))
            self.client.delete(self.collection, points_selector=selector, wait=True)

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Scroll pages of ids only (no payload, no vectors); one request per ID_PAGE points."""
        selector = models.Filter(must=[_match("scope", scope)]) if scope is not None else None
        ids: set[str] = set()
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection,
                scroll_filter=selector,
                limit=ID_PAGE,
                offset=offset,
                with_payload=False,
                with_vectors=False,
            )
            ids.update(str(record.id) for record in records)
            if offset is None:
                return ids

    def stored_points(self) -> Iterator[list[tuple[str, str, list[float]]]]:
        """Pages of every point's id, document id and stored vector (`ragent check` reads them all)."""
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection, limit=ID_PAGE, offset=offset, with_payload=["doc_id"], with_vectors=True
            )
            yield [(str(r.id), (r.payload or {}).get("doc_id", ""), r.vector) for r in records]
            if offset is None:
                return

    def optimize(self) -> None:
        """Nothing to do: a Qdrant server builds its HNSW graphs in the background, past its own thresholds."""

    def search(self, vector: Sequence[float], filters: SearchFilter, limit: int) -> list[EngineHit]:
        if limit <= 0:
            return []
        response = self.client.query_points(
            self.collection,
            query=list(map(float, vector)),
            query_filter=server_filter(filters),
            search_params=models.SearchParams(exact=self.exact),
            limit=limit,
            with_payload=["doc_id"],
        )
        return [
            EngineHit(chunk_id=str(p.id), doc_id=p.payload["doc_id"], score=float(p.score)) for p in response.points
        ]

    def count(self, filters: SearchFilter) -> int:
        return self.client.count(self.collection, count_filter=server_filter(filters), exact=True).count

    def stats(self) -> dict[str, Any]:
        info = self.client.get_collection(self.collection)
        return {"engine": "qdrant", "chunks": info.points_count, "exact": self.exact}

    def close(self) -> None:
        self.client.close()
