"""Is each engine's index sound? `ragent check` samples both, and `--repair` replaces a damaged one with an empty
index that the consistency check then fills from Postgres.

Comparing chunk ids (`retrievers.ingestion.consistency`) cannot see a damaged file: a zeroed vector storage still
lists every id (and answers every search, with scores of 0.0), a keyword doc store with overwritten blocks fails
only when a hit is read. So each engine is made to read everything it holds and to answer for each bucket:
- keyword: every stored document of every segment is read (its chunk ids), and in every scope and bucket the
  bucket's longest chunk is searched for by its own words (terms, postings and filter fields), limited to its
  document: it must come back;
- vectors: every point's vector and document id is read (about 5 s per 100k chunks here); each stored vector must
  have unit length (the engine stores cosine vectors normalised, so a zeroed or overwritten one shows), and in every
  scope and bucket the sampled chunk is searched for by its own stored vector, limited to its document: it must come
  back with a similarity of 1.
A chunk an engine lacks is drift, not damage: the searches sample only chunks the engine holds.

The engines are index-wide, so they are sampled in every scope whatever scope `check` was given, and a rebuilt index
is filled with every scope's chunks. An embedded index is replaced by moving its folder aside (kept, named in the
report, for the user to delete once searches work) and opening a new one in its place; an index on a server
(OpenSearch, Qdrant) is not replaced here.
"""

from __future__ import annotations

import time
from contextlib import suppress
from pathlib import Path

import numpy as np

from core.errors import IndexUnreadable
from core.models import IndexedChunk, SearchFilter
from retrievers.engines.damaged import IndexDamaged
from retrievers.engines.deferred import DeferredVectors
from retrievers.protocols import KeywordIndex, VectorIndex
from retrievers.stack import Stack, embedded_vectors_dir, make_keyword_index, make_vector_index

NORM_TOLERANCE = 1e-3
"""How far a stored vector's length may be from 1 (float32 rounding is about 1e-7)."""
SELF_SIMILARITY = 0.99
"""The least similarity a chunk's search by its own stored vector must give it back with."""
NEAREST = 10


def find_damage(stack: Stack) -> dict[str, str]:
    """What is wrong with each damaged engine ("keyword", "vectors"), in one readable phrase each."""
    samples = stack.store.indexed_chunks(stack.store.bucket_samples())
    found = {"keyword": _keyword_damage(stack.keyword, samples), "vectors": _vector_damage(stack.vectors, samples)}
    return {name: reason for name, reason in found.items() if reason}


def _keyword_damage(keyword: KeywordIndex, samples: list[IndexedChunk]) -> str | None:
    try:
        held = keyword.chunk_ids()
        for chunk in samples:
            if chunk.chunk_id not in held:
                continue
            own_document = _own_document(chunk)
            hits = keyword.search(chunk.text, own_document, max(1, keyword.count(own_document)))
            if chunk.chunk_id not in {h.chunk_id for h in hits}:
                return f"a search of {_bucket(chunk)} by a chunk's own words does not find it ({chunk.chunk_id})"
    except IndexUnreadable as damage:
        return _reason(damage)
    return None


def _vector_damage(vectors: VectorIndex, samples: list[IndexedChunk]) -> str | None:
    try:
        wanted = {c.chunk_id: c for c in samples}
        stored, total, wrong, unlabelled = {}, 0, 0, 0
        for page in vectors.stored_points():
            if not page:
                continue
            lengths = np.linalg.norm(np.asarray([vector for _, _, vector in page], dtype=np.float64), axis=1)
            total += len(page)
            wrong += int(np.count_nonzero(~(np.abs(lengths - 1.0) <= NORM_TOLERANCE)))
            unlabelled += sum(1 for _, doc_id, _ in page if not doc_id)
            stored.update((chunk_id, vector) for chunk_id, _, vector in page if chunk_id in wanted)
        if wrong:
            return f"{wrong} of {total} stored vectors are not of unit length (zeroed or overwritten storage)"
        if unlabelled:
            return f"{unlabelled} of {total} points have no document id (damaged payload storage)"
        for chunk_id, vector in stored.items():
            chunk = wanted[chunk_id]
            hits = vectors.search(vector, _own_document(chunk), NEAREST)
            if not any(h.chunk_id == chunk_id and h.score >= SELF_SIMILARITY for h in hits):
                return f"a search of {_bucket(chunk)} by a chunk's own vector does not find it ({chunk_id})"
    except IndexUnreadable as damage:
        return _reason(damage)
    return None


def replace_damaged(stack: Stack, name: str) -> Path | None:
    """Move the damaged embedded index `name` aside and open an empty one in its place; where the damaged one went.
    None for an index on a server, which is not replaced here."""
    settings = stack.settings
    if name == "keyword":
        if settings.opensearch_url:
            return None
        stack.keyword.close()
        moved = _move_aside(settings.home / "tantivy")
        stack.keyword = make_keyword_index(settings)
        return moved
    if settings.qdrant_url:
        return None
    # The embedder is made before the record of the model that built the index moves away with it: `minilm` keeps
    # the variant the folder was built with (`retrievers.stack.recorded_minilm_precision`), and its cached vectors.
    _ = stack.embedder.model_name
    with suppress(IndexUnreadable):
        stack.vectors.close()
    moved = _move_aside(embedded_vectors_dir(settings))
    stack.vectors = DeferredVectors(make_vector_index(settings), stack.embedder)
    return moved


def _move_aside(folder: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder.with_name(f"{folder.name}.damaged-{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = folder.with_name(f"{folder.name}.damaged-{stamp}-{number}")
    return folder.rename(target)


def _own_document(chunk: IndexedChunk) -> SearchFilter:
    return SearchFilter(scope=chunk.scope, bucket=chunk.bucket, doc_ids=[chunk.doc_id])


def _bucket(chunk: IndexedChunk) -> str:
    return f"bucket {chunk.bucket!r} of scope {chunk.scope!r}"


def _reason(damage: IndexUnreadable) -> str:
    """What is wrong, without the advice to run the repair that is being run or suggested already."""
    return damage.reason if isinstance(damage, IndexDamaged) else str(damage)
