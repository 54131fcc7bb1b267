"""A small corpus of chunks with every filterable field varied, and the reference answer for any filter.

The reference (`expected_matches`) is plain Python over this fixed list: it is what every adapter's
pushed-down filters must reproduce exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime

from core.models import IndexedChunk, SearchFilter

_TEXTS = [
    "This agreement is governed by the laws of the State of Delaware.",
    "The supplier shall deliver the goods within thirty days of the purchase order.",
    "Receipt total RM 12.30 paid in cash at the Delaware branch.",
    "Either party may terminate this agreement with ninety days written notice.",
    "The resistor has a tolerance of one percent and a power rating of a quarter watt.",
    "Certificate of conformity issued for the Delaware manufacturing site.",
    "Invoice number INV-2024-0042 is payable within thirty days.",
    "Confidential information shall not be disclosed to any third party.",
]
_AUTHORS = ["acme", "globex", None, "initech"]
_BUCKETS = ["contracts", "receipts", "contracts", "datasheets"]


def _ts(year: int, month: int) -> int:
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp())


def make_chunks() -> list[IndexedChunk]:
    chunks = []
    for i in range(24):
        scope = "tenant_a" if i % 3 else "tenant_b"
        doc_id = f"doc-{i // 2:02d}"
        chunks.append(
            IndexedChunk(
                chunk_id=IndexedChunk.make_id(scope, doc_id, "v1", i % 2),
                doc_id=doc_id,
                scope=scope,
                bucket=_BUCKETS[i % 4],
                content_hash="v1",
                ordinal=i % 2,
                title=f"Document {i // 2}",
                text=_TEXTS[i % len(_TEXTS)] + f" Clause {i}.",
                author=_AUTHORS[i % 4],
                tags=[t for t, on in (("urgent", i % 2 == 0), ("legal", i % 3 == 0), ("2024", i % 5 == 0)) if on],
                created_ts=None if i % 7 == 6 else _ts(2020 + i % 5, 1 + i % 12),
            )
        )
    return chunks


def bulk_chunks(n: int, scope: str = "bulk") -> list[IndexedChunk]:
    """More chunks than one page of an adapter's enumeration or deletion requests (1000 ids), to test paging."""
    return [
        IndexedChunk(
            chunk_id=IndexedChunk.make_id(scope, f"bulk-{i // 4}", "v1", i % 4),
            doc_id=f"bulk-{i // 4}",
            scope=scope,
            bucket="generic",
            content_hash="v1",
            ordinal=i % 4,
            title="",
            text=f"Bulk paragraph number {i}.",
        )
        for i in range(n)
    ]


def matches_filter(chunk: IndexedChunk, f: SearchFilter) -> bool:
    if chunk.scope != f.scope:
        return False
    if f.bucket is not None and chunk.bucket != f.bucket:
        return False
    if f.doc_ids is not None and chunk.doc_id not in f.doc_ids:
        return False
    if f.authors is not None and chunk.author not in f.authors:
        return False
    if f.tags is not None and not set(f.tags) <= set(chunk.tags):
        return False
    if f.created_after is not None and (chunk.created_ts is None or chunk.created_ts < f.created_after_ts):
        return False
    return not (f.created_before is not None and (chunk.created_ts is None or chunk.created_ts > f.created_before_ts))


FILTERS = {
    "scope only": SearchFilter(scope="tenant_a"),
    "other scope": SearchFilter(scope="tenant_b"),
    "bucket": SearchFilter(scope="tenant_a", bucket="contracts"),
    "doc ids any-of": SearchFilter(scope="tenant_a", doc_ids=["doc-01", "doc-04", "doc-09"]),
    "no doc ids": SearchFilter(scope="tenant_a", doc_ids=[]),
    "authors any-of": SearchFilter(scope="tenant_a", authors=["acme", "initech"]),
    "tags all-of": SearchFilter(scope="tenant_a", tags=["urgent", "2024"]),
    "created range": SearchFilter(scope="tenant_a", created_after="2021-06-01", created_before="2023-12-31"),
    "created after only": SearchFilter(scope="tenant_b", created_after="2022-01-01"),
    "everything": SearchFilter(
        scope="tenant_a", bucket="contracts", authors=["acme", "globex"], tags=["urgent"], created_after="2020-01-01"
    ),
    "unknown scope": SearchFilter(scope="nobody"),
}
