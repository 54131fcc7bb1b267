"""Do Postgres, the keyword index and the vector index agree? `check` says, and with `repair` makes them agree.

Postgres is the commit point of ingestion (see `retrievers.ingestion.pipeline`), so it is the truth each engine is
compared with, chunk id by chunk id:
- a chunk Postgres committed that an engine lacks (a lost or restored-from-backup index, a failed write) is
  re-indexed from Postgres: the stored chunk text and document fields are exactly what ingestion gave the
  keyword engine, and the vector engine gets the embedding of the same text, from the on-disk cache when it
  was embedded before;
- a chunk an engine holds that Postgres does not know (a crash between the engine writes and the commit, a
  document deleted from Postgres alone) is deleted from that engine;
- chunk and annotation rows whose document row is missing are deleted from Postgres. The schema's foreign keys
  (ON DELETE CASCADE) make them impossible unless the keys were bypassed; they are counted so that such a
  database is noticed rather than assumed away;
- the field catalog is derived from the annotation rows like the engines from the chunks: a bucket whose catalog
  is not what its rows give (an ingest killed before it refreshed the catalog, so that a predicate on a field the
  rows hold is refused as unknown) has its catalog recomputed from the rows.

Before any of this, each engine's index is sampled for damage (`retrievers.ingestion.engine_damage`: files an engine
cannot read, vectors zeroed, a chunk its own search does not find). A damaged index is reported, and skipped by the
comparison; `repair` moves it aside and opens an empty one, which the comparison then fills with every scope's
committed chunks, like an index lost whole.

Deletes a process left part-way (`retrievers.ingestion.documents`: committed in Postgres, not yet dropped by the
engines) are finished first, with or without `repair`: they are committed work being completed, like ingestion's
next run completing a killed one, not drift.

Every store's chunk ids are held in memory as sets (about 120 bytes an id, so some 400 MB for 1M chunks across
the three stores), and enumerating an engine costs one pass over it (see each adapter's `chunk_ids`).

Run a repair while no ingest is writing: an ingest's chunks sit in the engines for a moment before Postgres
commits them. The embedded qdrant-edge index admits one process at a time, which enforces this on the embedded
stack; with server backends, chunks an engine holds are looked up in Postgres again right before they are
deleted, which narrows that window but cannot close it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from core.models import IndexedChunk
from retrievers.ingestion.documents import finish_pending_deletions
from retrievers.ingestion.engine_damage import find_damage, replace_damaged
from retrievers.ingestion.pipeline import embedded
from retrievers.protocols import KeywordIndex, VectorIndex
from retrievers.stack import Stack

# Chunks re-indexed (and embedded) per round trip, and ids looked up in Postgres per query.
REPAIR_PAGE = 256

MISSING = "committed chunks it lacks"
UNKNOWN = "chunks Postgres does not know"
STALE_CATALOG = "buckets out of date with their rows"
DAMAGED = "damaged index"


@dataclass(frozen=True)
class Drift:
    """One kind of disagreement in one store: how many items were found, and how many the repair fixed."""

    store: str
    kind: str
    found: int
    repaired: int = 0


@dataclass
class CheckReport:
    """What `check` saw (counts per store, drift per store and kind) and, with `repair`, what it fixed."""

    repair: bool
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    drift: list[Drift] = field(default_factory=list)
    finished_deletions: int = 0
    damage: dict[str, str] = field(default_factory=dict)
    """What is wrong with each damaged engine's index."""
    set_aside: dict[str, Path] = field(default_factory=dict)
    """Where each damaged index that was replaced went."""

    @property
    def clean(self) -> bool:
        """No drift at all was found."""
        return all(d.found == 0 for d in self.drift)

    @property
    def consistent(self) -> bool:
        """The stores agree now: nothing was found, or everything found was repaired."""
        return all(d.repaired == d.found for d in self.drift) if self.repair else self.clean

    def table(self) -> str:
        """The short table `ragent check` prints: counts as found, drift per store and kind, a one-line verdict."""
        rows = [f"{'store':<9} {'documents':>9} {'chunks':>8} {'annotations':>11}"]
        for store, counts in self.counts.items():
            cells = [str(counts[name]) if name in counts else "-" for name in ("documents", "chunks", "annotations")]
            rows.append(f"{store:<9} {cells[0]:>9} {cells[1]:>8} {cells[2]:>11}")
        rows += ["", f"{'store':<9} {'drift':<36} {'found':>7} {'repaired':>8}"]
        for d in self.drift:
            rows.append(f"{d.store:<9} {d.kind:<36} {d.found:>7} {d.repaired if self.repair else '-':>8}")
        if self.finished_deletions:
            rows += ["", f"finished {self.finished_deletions} delete(s) an earlier process left part-way"]
        for name, reason in self.damage.items():
            rows += ["", f"{name}: {reason}"]
            if name in self.set_aside:
                rows.append(
                    f"{name}: rebuilt from Postgres; the damaged index is kept in {self.set_aside[name]} "
                    "(delete it once searches work)"
                )
            elif self.repair:
                rows.append(f"{name}: an index on a server is not rebuilt here; delete it there, then repair again")
        rows += ["", self._verdict()]
        return "\n".join(rows)

    def _verdict(self) -> str:
        found = sum(d.found for d in self.drift)
        if self.clean:
            return "consistent: every store agrees"
        if not self.repair and self.damage:
            return f"damaged: the {' and '.join(self.damage)} index; run `ragent check --repair` to rebuild it"
        if not self.repair:
            return f"drift: {found} item(s) disagree; run `ragent check --repair` to fix them"
        repaired = sum(d.repaired for d in self.drift)
        if self.consistent:
            return f"repaired: {repaired} of {found} item(s); the stores agree now"
        return f"repaired {repaired} of {found} item(s); run `ragent check` again once no ingest is running"


def check(stack: Stack, repair: bool, scope: str | None = None) -> CheckReport:
    """Compare every store with Postgres (in `scope`, or in all scopes) and, with `repair`, fix what differs.

    Idempotent: a second run after a repair finds nothing.
    """
    report = CheckReport(repair=repair, damage=find_damage(stack))
    if repair:
        for name in report.damage:
            if (moved := replace_damaged(stack, name)) is not None:
                report.set_aside[name] = moved
    damaged = report.damage.keys() - report.set_aside.keys()
    # Finishing a delete drops chunks from both engines, which a damaged one cannot; the records wait for the repair.
    report.finished_deletions = 0 if damaged else finish_pending_deletions(stack, scope)
    report.counts["postgres"] = stack.store.counts(scope)
    report.drift += _rows_without_document(stack, repair, scope)
    report.drift.append(_stale_catalogs(stack, repair, scope))
    for name, engine, write in _engines(stack):
        if name in report.damage:
            report.drift.append(Drift(name, DAMAGED, 1, int(name in report.set_aside)))
            if name in damaged:
                continue
        engine_scope = None if name in report.set_aside else scope  # a new index is filled with every scope
        committed = stack.store.chunk_ids(engine_scope)
        held = engine.chunk_ids(engine_scope)
        report.counts[name] = {"chunks": len(held)}
        missing, unknown = committed - held, _still_unknown(stack, held - committed)
        report.drift += [
            Drift(name, MISSING, len(missing), _reindex(stack, missing, write) if repair and missing else 0),
            Drift(name, UNKNOWN, len(unknown), _delete(engine, unknown) if repair and unknown else 0),
        ]
    return report


def _engines(stack: Stack) -> list[tuple[str, KeywordIndex | VectorIndex, Callable[[list[IndexedChunk]], None]]]:
    """Each engine by name, with how chunks rebuilt from Postgres are written back into it."""
    return [
        ("keyword", stack.keyword, stack.keyword.upsert),
        ("vectors", stack.vectors, partial(_upsert_vectors, stack)),
    ]


def _rows_without_document(stack: Stack, repair: bool, scope: str | None) -> list[Drift]:
    found = stack.store.rows_without_document(scope)
    repaired = stack.store.delete_rows_without_document(scope) if repair and any(found.values()) else {}
    return [
        Drift("postgres", f"{table.removesuffix('s')} rows without a document", n, repaired.get(table, 0))
        for table, n in found.items()
    ]


def _stale_catalogs(stack: Stack, repair: bool, scope: str | None) -> Drift:
    stale = stack.store.catalogs_out_of_date(scope)
    if repair:
        for pair in stale:
            stack.store.refresh_catalog(*pair)
    return Drift("catalog", STALE_CATALOG, len(stale), len(stale) if repair else 0)


def _still_unknown(stack: Stack, chunk_ids: set[str]) -> set[str]:
    """The ids Postgres still does not know when asked again: an ingest may have committed some since the first read."""
    committed = {c.chunk_id for page in _pages(chunk_ids) for c in stack.store.indexed_chunks(page)}
    return chunk_ids - committed


def _reindex(stack: Stack, chunk_ids: set[str], write: Callable[[list[IndexedChunk]], None]) -> int:
    """Write the committed chunks among `chunk_ids` into one engine, rebuilt from Postgres; returns how many."""
    written = 0
    for page in _pages(chunk_ids):
        chunks = stack.store.indexed_chunks(page)
        write(chunks)
        written += len(chunks)
    return written


def _upsert_vectors(stack: Stack, chunks: list[IndexedChunk]) -> None:
    stack.vectors.upsert(chunks, embedded(stack, chunks))


def _delete(engine: KeywordIndex | VectorIndex, chunk_ids: set[str]) -> int:
    engine.delete_chunks(sorted(chunk_ids))
    return len(chunk_ids)


def _pages(chunk_ids: set[str]) -> Iterator[Sequence[str]]:
    ordered = sorted(chunk_ids)
    for start in range(0, len(ordered), REPAIR_PAGE):
        yield ordered[start : start + REPAIR_PAGE]
