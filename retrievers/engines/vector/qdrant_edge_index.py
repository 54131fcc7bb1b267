"""Vector index on Qdrant's in-process engine (`qdrant-edge-py`): the embedded default.

Search is exact below HNSW_THRESHOLD points and through HNSW above it, both decided by Qdrant's own planner
from two thresholds set to that many points' worth of vectors: a segment is HNSW-indexed (by `optimize`, which
ingestion runs when it ends) only past `indexing_threshold`, and a query whose filter selects fewer points than
`full_scan_threshold` scans those points exactly through the payload index, even in an indexed segment. So a
small corpus, or a narrow filter on a large one, is answered exactly and fast; a wide filter on a large corpus
(a bucket of 1M chunks) walks the graph. The bucket payload index builds the graph's per-value links
(`enable_hnsw`), so a bucket filter keeps the walk inside the bucket; the other filter fields are left out, as
their links would multiply the build time: the scope is on every query and mostly one value (its links would
copy the whole graph), and document ids, tags, authors and dates are selective (scanned exactly) or combined
with a bucket. `exact=True` (RAGENT_EXACT_VECTOR_SEARCH) forces brute force everywhere. `evals.bench_vector_scale`
measures recall@10 against exact search and the latency at 1M chunks.

The embedding model and dimension are written beside the shard (`embedding_model.json`); opening the
index with another model fails instead of answering with meaningless scores.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from core.errors import BackendUnavailable
from core.models import EngineHit, IndexedChunk, SearchFilter, scoped_doc_key
from retrievers.engines.damaged import IndexDamaged, engine_reason, said_as_damage
from retrievers.engines.disk_usage import disk_usage
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

HNSW_THRESHOLD = 50_000
"""Points below which a search scans exactly: 50k 384-d cosine products take a few milliseconds, and an HNSW
graph over fewer points is not worth its build time."""
HNSW_M = 16
HNSW_EF_CONSTRUCT = 128
HNSW_EF = 512
"""Graph parameters measured in evals.bench_vector_scale (recall@10 against exact search at 1M chunks): at 200k points
ef=128 gave recall@10 0.925, ef=512 0.983 at under 2 ms."""
ACORN = qe.AcornSearchParams(enable=True)
"""Filtered graph walks also look at neighbours' neighbours (ACORN), when the filter passes few enough points that
plain HNSW would lose its way: with a bucket filter on 200k points (graph forced), recall@10 went from 0.57 to 0.998
at ef 512, and at 1M chunks without it the bucket-filtered recall was 0.80 (evals.bench_vector_scale)."""
GRAPH_FILTER_FIELDS = ("bucket",)
"""Payload fields whose values get links of their own in the HNSW graph, so that filtering on them keeps recall."""


def _kilobytes(points: int, dimension: int) -> int:
    """Qdrant's thresholds are in kilobytes of float32 vectors."""
    return max(1, points * dimension * 4 // 1024)


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

    def __init__(self, path: Path, *, exact: bool = False, hnsw_threshold: int = HNSW_THRESHOLD):
        self.path = Path(path)
        self.exact = exact
        self.hnsw_threshold = hnsw_threshold
        self._shard: qe.EdgeShard | None = None
        self._lock = threading.Lock()
        self._signature_file = self.path / SIGNATURE_FILE
        self._what = f"the vector index in {self.path}"

    def ensure_model(self, model_name: str, dimension: int) -> None:
        if self._shard is not None:
            return
        if self._signature_file.exists():
            try:
                recorded = json.loads(self._signature_file.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise IndexDamaged(
                    self._what, f"{SIGNATURE_FILE}, the record of the model that built it, is unreadable: {exc}"
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
                raise IndexDamaged(self._what, f"cannot be opened: {engine_reason(exc)}") from None
            return
        self.path.mkdir(parents=True, exist_ok=True)
        threshold_kb = _kilobytes(self.hnsw_threshold, dimension)
        config = qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine),
            hnsw_config=qe.HnswIndexConfig(
                m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=threshold_kb, payload_m=HNSW_M
            ),
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=threshold_kb),
        )
        shard = qe.EdgeShard.create(str(self.path / "shard"), config)
        for name in PAYLOAD_KEYWORD_FIELDS:
            params = qe.KeywordIndexParams(enable_hnsw=name in GRAPH_FILTER_FIELDS)
            shard.update(qe.UpdateOperation.create_field_index(name, params))
        for name in PAYLOAD_INTEGER_FIELDS:
            params = qe.IntegerIndexParams(lookup=True, range=True, enable_hnsw=False)
            shard.update(qe.UpdateOperation.create_field_index(name, params))
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
        with self._lock, self._damage_said():
            for start in range(0, len(points), UPSERT_BATCH):
                self.shard.update(qe.UpdateOperation.upsert_points(points[start : start + UPSERT_BATCH]))
            self.shard.flush()

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        must_not = [_match("content_hash", keep_hash)] if keep_hash is not None else None
        selector = qe.Filter(must=[_match("doc_key", scoped_doc_key(scope, doc_id))], must_not=must_not)
        with self._lock, self._damage_said():
            self.shard.update(qe.UpdateOperation.delete_points_by_filter(selector))
            self.shard.flush()

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        with self._lock, self._damage_said():
            for start in range(0, len(chunk_ids), ID_PAGE):
                self.shard.update(qe.UpdateOperation.delete_points(list(chunk_ids[start : start + ID_PAGE])))
            self.shard.flush()

    def optimize(self) -> None:
        """Build the HNSW graph of every segment past the threshold (and merge small segments): qdrant-edge runs no
        optimizer in the background, so ingestion calls this when it ends. Quick when nothing changed."""
        if self.exact:
            return
        with self._lock, self._damage_said():
            self.shard.optimize()

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Scroll pages of ids only (no payload, no vectors), in point-id order."""
        selector = qe.Filter(must=[_match("scope", scope)]) if scope is not None else None
        ids: set[str] = set()
        offset = None
        while True:
            with self._damage_said():
                records, offset = self.shard.scroll(
                    qe.ScrollRequest(
                        offset=offset, limit=ID_PAGE, filter=selector, with_payload=False, with_vector=False
                    )
                )
            ids.update(str(record.id) for record in records)
            if offset is None:
                return ids

    def stored_points(self) -> Iterator[list[tuple[str, str, list[float]]]]:
        """Pages of every point's id, document id and stored vector: a read of every segment's vectors and payload
        (`ragent check`, about 5 s per 100k chunks here)."""
        offset = None
        while True:
            with self._damage_said():
                records, offset = self.shard.scroll(
                    qe.ScrollRequest(offset=offset, limit=ID_PAGE, with_payload=["doc_id"], with_vector=True)
                )
            yield [(str(r.id), (r.payload or {}).get("doc_id", ""), r.vector) for r in records]
            if offset is None:
                return

    def search(self, vector: Sequence[float], filters: SearchFilter, limit: int) -> list[EngineHit]:
        if limit <= 0:
            return []
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(map(float, vector))),
            filter=edge_filter(filters),
            with_payload=["doc_id"],
            params=qe.SearchParams(exact=True) if self.exact else qe.SearchParams(hnsw_ef=HNSW_EF, acorn=ACORN),
        )
        with self._damage_said():
            points = self.shard.query(request)
        return [EngineHit(chunk_id=str(p.id), doc_id=p.payload["doc_id"], score=float(p.score)) for p in points]

    def count(self, filters: SearchFilter) -> int:
        with self._damage_said():
            return self.shard.count(qe.CountRequest(filter=edge_filter(filters), exact=True))

    def stats(self) -> dict[str, Any]:
        """`exact` says whether every search scans exactly: forced, or no segment has an HNSW graph yet."""
        with self._damage_said():
            info = self.shard.info()
        return {
            "engine": "qdrant-edge",
            "chunks": info.points_count,
            "hnsw_indexed_chunks": info.indexed_vectors_count,
            "bytes_on_disk": disk_usage(self.path),
            "exact": self.exact or info.indexed_vectors_count == 0,
        }

    def close(self) -> None:
        """Flush and close the shard; it counts as closed even when a damaged one fails to flush."""
        with self._lock:
            shard, self._shard = self._shard, None
            if shard is not None:
                with self._damage_said():
                    shard.flush()
                    shard.close()

    def _damage_said(self):
        """qdrant-edge's bare Exception for storage it cannot read, as `IndexDamaged` naming the repair."""
        return said_as_damage(self._what, Exception)
