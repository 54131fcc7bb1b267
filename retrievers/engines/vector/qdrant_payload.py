"""What both Qdrant adapters write and read, so that points written by either read the same.

qdrant-edge (embedded) and qdrant-client (server) have separate model classes, so what they share is plain
data: the payload layout and its indexed fields, the filter as conditions on that payload, the embedding-model
guard, and the batch sizes. Each adapter turns the conditions into its own library's filter classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import EmbeddingModelMismatch
from core.models import IndexedChunk, SearchFilter, scoped_doc_key
from retrievers.engines.embedders.model_names import embeddings_setting

PAYLOAD_KEYWORD_FIELDS = ("doc_id", "doc_key", "scope", "bucket", "author", "tags", "content_hash")
PAYLOAD_INTEGER_FIELDS = ("created_ts",)
UPSERT_BATCH = 512
# Point ids per scroll page when enumerating, and per request when deleting by id.
ID_PAGE = 1000


def chunk_payload(chunk: IndexedChunk) -> dict[str, Any]:
    """The payload of a chunk's point: the filter fields, plus the doc key used for deletes."""
    payload: dict[str, Any] = {
        "doc_id": chunk.doc_id,
        "doc_key": scoped_doc_key(chunk.scope, chunk.doc_id),
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


@dataclass(frozen=True, slots=True)
class Match:
    """The payload field holds `value` (for a list field such as tags: among its values)."""

    key: str
    value: str


@dataclass(frozen=True, slots=True)
class MatchAny:
    """The payload field holds one of `values`."""

    key: str
    values: list[str]


@dataclass(frozen=True, slots=True)
class Range:
    """The payload field lies between `gte` and `lte`, both inclusive; None is open."""

    key: str
    gte: int | None
    lte: int | None


Condition = Match | MatchAny | Range


def filter_conditions(f: SearchFilter) -> list[Condition]:
    """The SearchFilter as conditions that must all hold: scope always, tags all-of, doc ids and authors any-of."""
    must: list[Condition] = [Match("scope", f.scope)]
    if f.bucket is not None:
        must.append(Match("bucket", f.bucket))
    if f.doc_ids is not None:
        must.append(MatchAny("doc_id", list(f.doc_ids)))
    if f.authors is not None:
        must.append(MatchAny("author", list(f.authors)))
    must += [Match("tags", tag) for tag in f.tags or []]
    if f.created_after is not None or f.created_before is not None:
        must.append(Range("created_ts", f.created_after_ts, f.created_before_ts))
    return must


def model_signature(model_name: str, dimension: int) -> dict[str, Any]:
    """What an index records about the embedding model that wrote it."""
    return {"model": model_name, "dimension": dimension}


def check_model_signature(recorded: dict[str, Any], model_name: str, dimension: int, where: str) -> None:
    """Refuse a model other than the one the index was written with."""
    recorded = recorded if isinstance(recorded, dict) else {}
    if recorded != model_signature(model_name, dimension):
        setting = embeddings_setting(str(recorded.get("model")))
        original = f"set {setting} to use it" if setting else "configure the original model"
        raise EmbeddingModelMismatch(
            f"{where} was built with embedding model {recorded.get('model')!r} "
            f"(dimension {recorded.get('dimension')}), "
            f"not {model_name!r} (dimension {dimension}); {original}, or re-ingest into a new data folder "
            "(RAGENT_HOME) with this model"
        )
