"""Reads of the index's content made while a question is read: which bucket's content is closest to it
(`closeness`), how common words are in the documents (`text_hits`) and which documents hold a name's word
(`documents_holding`). They run searches outside the run's tool `Budget`, so each is recorded (what was read,
where, the searches it ran, the answer and its time) and their searches capped per decomposition: a closeness read
runs one semantic search per bucket of the scope and counts as that many, a keyword read as one. Once the cap is
reached a read is not made and its answer is unknown, as when the index cannot answer. The record goes into the
decomposition (`Decomposition.catalog_reads`), which `ragent ask --explain` shows."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graph.decomposition import CatalogRead
from graph.planners.catalog_view import CatalogView

T = TypeVar("T")
UNKNOWN = "unknown"


@dataclass
class ReadLog:
    """The reads of one decomposition, and how many searches they may run."""

    cap: int
    reads: list[CatalogRead] = field(default_factory=list)

    @property
    def spent(self) -> bool:
        return sum(r.searches for r in self.reads if r.answer != UNKNOWN) >= self.cap


_current: ContextVar[ReadLog | None] = ContextVar("catalog_reads", default=None)


@contextmanager
def recorded(cap: int) -> Iterator[ReadLog]:
    """Reads made through a `RecordedCatalog` in this block (this thread or task only) go to the log returned."""
    log = ReadLog(cap)
    token = _current.set(log)
    try:
        yield log
    finally:
        _current.reset(token)


class RecordedCatalog:
    """A `CatalogView` whose content reads are recorded and capped under the current `recorded` block; its other
    reads (buckets, fields, value lists: the catalog's own tables) pass through. Outside a block, reads pass
    through unrecorded."""

    def __init__(self, catalog: CatalogView):
        self.catalog = catalog

    def __getattr__(self, name: str) -> Any:
        return getattr(self.catalog, name)

    def closeness(self, question: str) -> dict[str, float]:
        """A second closeness read of the same question runs no search: the catalog keeps the last question's."""
        log = _current.get()
        again = log is not None and any(
            r.read == "closeness" and r.words == question and r.answer != UNKNOWN for r in log.reads
        )
        said = CatalogRead(read="closeness", words=question, searches=0 if again else len(self.catalog.buckets))
        return self._read(said, lambda: self.catalog.closeness(question), {})

    def text_hits(self, bucket: str, words: str, filters: dict | None = None) -> int | None:
        said = CatalogRead(read="text_hits", bucket=bucket, words=words, filters=filters)
        return self._read(said, lambda: self.catalog.text_hits(bucket, words, filters), None)

    def documents_holding(self, bucket: str, word: str, doc_id: str | None = None, limit: int = 20) -> list[str] | None:
        filters = {"doc_id": doc_id} if doc_id else None
        said = CatalogRead(read="documents_holding", bucket=bucket, words=word, filters=filters)
        return self._read(said, lambda: self.catalog.documents_holding(bucket, word, doc_id, limit), None)

    @staticmethod
    def _read(said: CatalogRead, call: Callable[[], T], unknown: T) -> T:
        log = _current.get()
        if log is None:
            return call()
        if log.spent:
            log.reads.append(said.model_copy(update={"answer": UNKNOWN}))
            return unknown
        start = time.perf_counter()
        answer = call()
        log.reads.append(
            said.model_copy(update={"answer": answer, "ms": round((time.perf_counter() - start) * 1000, 2)})
        )
        return answer
