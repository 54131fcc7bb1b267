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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from retrievers.disk_usage import disk_usage
from retrievers.errors import BackendUnavailable, IndexUnreadable
from retrievers.models import EngineHit, IndexedChunk, SearchFilter, scoped_doc_key
from retrievers.qdrant_payload import (
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


def _match(key: str, value: str) -> qe.FieldCondition:
    return qe.FieldCondition(key=key, match=qe.MatchValue(value))


def _condition(c: Condition) -> qe.FieldCondition:
    if isinstance(c, Match):
        return _match(c.key, c.value)
    if isinstance(c, MatchAny):
        return qe.FieldCondition(key=c.key, match=qe.MatchAny(c.values))
    return qe.FieldCondition(key=c.key, range=qe.RangeFloat(gte=c.gte, lte=c.lte))


def edge_filter(f: SearchFilter) -> qe.Filter:
    """The SearchFilter as a qdrant-edge filter: every condition a `must`."""
    return qe.Filter(must=[_condition(c) for c in filter_conditions(f)])


SIGNATURE_FILE = "embedding_model.json"
"""The embedding model's name and dimension, beside the shard (`check_model_signature`)."""


def recorded_model(path: Path) -> str | None:
    """The model name the index in `path` records, or None where there is no index (or an unreadable record, which
    opening the index reports)."""
    try:
        recorded = json.loads((path / SIGNATURE_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return recorded.get("model") if isinstance(recorded, dict) else None


class QdrantEdgeVectorIndex:
    """Cosine similarity over chunk embeddings in an on-disk qdrant-edge shard."""

    def __init__(self, path: Path, *, exact: bool = True):
        self.path = Path(path)
        self.exact = exact
        self._shard: qe.EdgeShard | None = None
        self._lock = threading.Lock()
        self._signature_file = self.path / SIGNATURE_FILE

    def ensure_model(self, model_name: str, dimension: int) -> None:
        if self._shard is not None:
            return
        if self._signature_file.exists():
            try:
                recorded = json.loads(self._signature_file.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise IndexUnreadable(
                    f"{self._signature_file} is unreadable ({exc}); it records which embedding model built the index"
                ) from None
            check_model_signature(recorded, model_name, dimension, f"vector index {self.path}")
            try:
                self._shard = qe.EdgeShard.load(str(self.path / "shard"))
            except Exception as exc:  # qdrant-edge raises a bare Exception for every storage error
                if "WouldBlock" in str(exc):
                    raise BackendUnavailable(
                        f"the vector index in {self.path} is open in another process (a running ingest or server); "
                        "an embedded index serves one process at a time: "
                        "stop that process, or use QDRANT_URL for shared access"
                    ) from None
                raise IndexUnreadable(
                    f"the vector index in {self.path} cannot be opened ({exc}); "
                    "move it aside and run `ragent ingest ... --force` to rebuild it"
                ) from None
            return
        self.path.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine))
        shard = qe.EdgeShard.create(str(self.path / "shard"), config)
        for name in PAYLOAD_KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        for name in PAYLOAD_INTEGER_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Integer))
        shard.flush()
        self._signature_file.write_text(json.dumps(model_signature(model_name, dimension)))
        self._shard = shard

    @property
    def shard(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("call ensure_model() before using the vector index")
        return self._shard

    def upsert(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None:
        points = [
            qe.Point(c.chunk_id, list(map(float, v)), chunk_payload(c)) for c, v in zip(chunks, vectors, strict=True)
        ]
        with self._lock:
            for start in range(0, len(points), UPSERT_BATCH):
                self.shard.update(qe.UpdateOperation.upsert_points(points[start : start + UPSERT_BATCH]))
            self.shard.flush()

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        must_not = [_match("content_hash", keep_hash)] if keep_hash is not None else None
        selector = qe.Filter(must=[_match("doc_key", scoped_doc_key(scope, doc_id))], must_not=must_not)
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
        return [
            EngineHit(chunk_id=str(p.id), doc_id=p.payload["doc_id"], score=float(p.score))
            for p in self.shard.query(request)
        ]

    def count(self, filters: SearchFilter) -> int:
        return self.shard.count(qe.CountRequest(filter=edge_filter(filters), exact=True))

    def stats(self) -> dict[str, Any]:
        return {
            "engine": "qdrant-edge",
            "chunks": self.shard.info().points_count,
            "bytes_on_disk": disk_usage(self.path),
            "exact": self.exact,
        }

    def close(self) -> None:
        with self._lock:
            if self._shard is not None:
                self._shard.flush()
                self._shard.close()
                self._shard = None
