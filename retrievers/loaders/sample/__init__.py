"""A sample corpus this project writes itself: 47 documents across the six default buckets, all annotated.

Generated deterministically from the tables in this package (no dataset is copied), so it is the same on
every machine and can be ingested anywhere in seconds. It is built to exercise what the agent must do:
filters (authors, tags, created_at), annotation predicates and aggregates (notice periods, totals, validity
dates, component parameters), exact identifiers (invoice and part numbers), paraphrases ("sixty (60) days'
prior written notice" and "two months' notice"), near-duplicates, and documents long enough for several chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, islice, zip_longest
from pathlib import Path

from core.models import FieldSpec, SourceDocument
from retrievers.loaders.sample import certificates, contracts, datasheets, generic, invoices, receipts

_BUCKET_MODULES = (contracts, invoices, receipts, datasheets, certificates, generic)
BUCKETS = tuple(module.BUCKET for module in _BUCKET_MODULES)
FIELDS: dict[str, list[FieldSpec]] = {module.BUCKET: module.FIELDS for module in _BUCKET_MODULES}
SHARED_FOLDER = None  # generated, not read from ../shared/data


def load(path: Path | None = None, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The sample documents, taking the buckets in turn so that even a small `limit` covers all six.

    `path` is accepted so that every loader is called the same way, and ignored: nothing is read from disk.
    """
    in_turn = chain.from_iterable(zip_longest(*(module.documents() for module in _BUCKET_MODULES)))
    return islice((document for document in in_turn if document is not None), limit)
