"""Vector index on Qdrant's in-process engine (`qdrant-edge-py`): the embedded default.

Search is exact (brute force over the filtered points) unless `exact=False` is chosen: qdrant-edge's HNSW
has shown low recall here, and the benchmark measures HNSW recall@10 against exact search before anyone
should turn it on. Every filter field has a payload index, so filtered exact search scans only the points
the filter selects.

The embedding model and dimension are written beside the shard (`embedding_model.json`); opening the
index with another model fails instead of answering with meaningless scores.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Sequence

import qdrant_edge as qe

from retrievers.errors import BackendUnavailable, EmbeddingModelMismatch, IndexUnreadable
from retrievers.disk_usage import disk_usage
from retrievers.models import EngineHit, IndexedChunk, SearchFilter

PAYLOAD_KEYWORD_FIELDS = ("doc_id", "doc_key", "scope", "bucket", "author", "tags", "content_hash")
UPSERT_BATCH = 512
# Point ids per scroll page when enumerating, and per request when deleting by id.
ID_PAGE = 1000


def _match(key: str, value: str) -> qe.FieldCondition:
    return qe.FieldCondition(key=key, match=qe.MatchValue(value))


def edge_filter(f: SearchFilter) -> qe.Filter:
    """The SearchFilter as a qdrant-edge filter: every field a `must` condition."""
    must: list[Any] = [_match("scope", f.scope)]
    if f.bucket is not None:
        must.append(_match("bucket", f.bucket))
    if f.doc_ids is not None:
        must.append(qe.FieldCondition(key="doc_id", match=qe.MatchAny(list(f.doc_ids))))
    if f.authors is not None:
        must.append(qe.FieldCondition(key="author", match=qe.MatchAny(list(f.authors))))
    must += [_match("tags", tag) for tag in f.tags or []]
    if f.created_after is not None or f.created_before is not None:
        must.append(
            qe.FieldCondition(key="created_ts", range=qe.RangeFloat(gte=f.created_after_ts, lte=f.created_before_ts))
        )
    return qe.Filter(must=must)


def chunk_payload(chunk: IndexedChunk) -> dict[str, Any]:
    """The payload both Qdrant adapters store: the filter fields, plus the doc key used for deletes."""
    payload: dict[str, Any] = {
        "doc_id": chunk.doc_id,
        "doc_key": f"{chunk.scope}\x1f{chunk.doc_id}",
        "scope": chunk.scope,
        "bucket": chunk.bucket,
        "content_hash": chunk.content_hash,
        "ordinal": chunk.ordinal,
        "tags": list(chunk.tags),
    }
    if chunk.author:
        payload["author"] = chunk.author
    if chunk.created_ts is not None:
        payload["created_ts"] = chunk.created_ts
    return payload


def check_model_signature(recorded: dict[str, Any], model_name: str, dimension: int, where: str) -> None:
    """Refuse a model other than the one the index was written with."""
    recorded = recorded if isinstance(recorded, dict) else {}
    if recorded != {"model": model_name, "dimension": dimension}:
        raise EmbeddingModelMismatch(
            f"{where} was built with embedding model {recorded.get('model')!r} (dimension {recorded.get('dimension')}), "
            f"not {model_name!r} (dimension {dimension}); re-ingest into a new index or configure the original model"
        )


class QdrantEdgeVectorIndex:
    """Cosine similarity over chunk embeddings in an on-disk qdrant-edge shard."""

    def __init__(self, path: Path, *, exact: bool = True):
        self.path = Path(path)
        self.exact = exact
        self._shard: qe.EdgeShard | None = None
        self._lock = threading.Lock()
        self._signature_file = self.path / "embedding_model.json"

    def ensure_model(self, model_name: str, dimension: int) -> None:
        if self._shard is not None:
            return
        if self._signature_file.exists():
            try:
                recorded = json.loads(self._signature_file.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise IndexUnreadable(f"{self._signature_file} is unreadable ({exc}); it records which embedding model built the index") from None
            check_model_signature(recorded, model_name, dimension, f"vector index {self.path}")
            try:
                self._shard = qe.EdgeShard.load(str(self.path / "shard"))
            except Exception as exc:  # qdrant-edge raises a bare Exception for every storage error
                if "WouldBlock" in str(exc):
                    raise BackendUnavailable(
                        f"the vector index in {self.path} is open in another process (a running ingest or server); "
                        "an embedded index serves one process at a time: stop that process, or use QDRANT_URL for shared access"
                    ) from None
                raise IndexUnreadable(
                    f"the vector index in {self.path} cannot be opened ({exc}); move it aside and run `ragent ingest ... --force` to rebuild it"
                ) from None
            return
        self.path.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine))
        shard = qe.EdgeShard.create(str(self.path / "shard"), config)
        for name in PAYLOAD_KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        shard.update(qe.UpdateOperation.create_field_index("created_ts", qe.PayloadSchemaType.Integer))
        shard.flush()
        self._signature_file.write_text(json.dumps({"model": model_name, "dimension": dimension}))
        self._shard = shard

    @property
    def shard(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("call ensure_model() before using the vector index")
        return self._shard

    def upsert(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None:
        points = [qe.Point(c.chunk_id, list(map(float, v)), chunk_payload(c)) for c, v in zip(chunks, vectors, strict=True)]
        with self._lock:
            for start in range(0, len(points), UPSERT_BATCH):
                self.shard.update(qe.UpdateOperation.upsert_points(points[start : start + UPSERT_BATCH]))
            self.shard.flush()

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        must_not = [_match("content_hash", keep_hash)] if keep_hash is not None else None
        selector = qe.Filter(must=[_match("doc_key", f"{scope}\x1f{doc_id}")], must_not=must_not)
        with self._lock:
            self.shard.update(qe.UpdateOperation.delete_points_by_filter(selector))
            self.shard.flush()

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        with self._lock:
            for start in range(0, len(chunk_ids), ID_PAGE):
                self.shard.update(qe.UpdateOperation.delete_points(list(chunk_ids[start : start + ID_PAGE])))
            self.shard.flush()

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Scroll pages of ids only (no payload, no vectors), in point-id order."""
        selector = qe.Filter(must=[_match("scope", scope)]) if scope is not None else None
        ids: set[str] = set()
        offset = None
        while True:
            records, offset = self.shard.scroll(
                qe.ScrollRequest(offset=offset, limit=ID_PAGE, filter=selector, with_payload=False, with_vector=False)
            )
            ids.update(str(record.id) for record in records)
            if offset is None:
                return ids

    def search(self, vector: Sequence[float], filters: SearchFilter, limit: int) -> list[EngineHit]:
        if limit <= 0:
            return []
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(map(float, vector))),
            filter=edge_filter(filters),
            with_payload=["doc_id"],
            params=qe.SearchParams(exact=self.exact),
        )
        return [EngineHit(chunk_id=str(p.id), doc_id=p.payload["doc_id"], score=float(p.score)) for p in self.shard.query(request)]

    def count(self, filters: SearchFilter) -> int:
        return self.shard.count(qe.CountRequest(filter=edge_filter(filters), exact=True))

    def stats(self) -> dict[str, Any]:
        return {"engine": "qdrant-edge", "chunks": self.shard.info().points_count, "bytes_on_disk": disk_usage(self.path), "exact": self.exact}

    def close(self) -> None:
        with self._lock:
            if self._shard is not None:
                self._shard.flush()
                self._shard.close()
                self._shard = None
