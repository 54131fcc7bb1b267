"""The index's vocabulary in one scope, as planners and tool descriptions read it: the buckets that hold documents,
each bucket's annotation fields, the value lists of its text fields, and which bucket's content is closest to a
question.

Every read runs under the scope's engine timeout (the ToolContext's): an overrunning read raises EngineTimeout
naming the engine, a failed one the driver's error, both of which the graph reports as a readable failure
(`graph.failures`). Reads are kept for the life of the object; `version()` says when the index has changed since, so
that a holder (the agent's services) builds a new one only then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from core.models import FieldSpec
from retrievers.extraction.extractor import AT_INGEST
from retrievers.extraction.stored import field_stamp
from retrievers.postgres.field_catalog import CatalogField
from tools.arguments import QUERY_CHARS_MAX
from tools.context import ToolContext
from tools.registry import run_named

T = TypeVar("T")
_POSTGRES = "Postgres (catalog)"


@dataclass(frozen=True)
class BucketInfo:
    """A bucket as planners see it: `aliases` are the words users say for it (the shipped ones and the user's)."""

    name: str
    description: str
    documents: int
    aliases: tuple[str, ...] = ()


class Catalog:
    def __init__(self, context: ToolContext):
        self.context = context
        self.scope = context.scope
        self._fields: dict[str, list[CatalogField]] = {}
        self._declared: dict[str, list[FieldSpec]] = {}
        self._values: dict[tuple[str, str], list[tuple[str, int]]] = {}
        self._closeness: tuple[str, dict[str, float]] | None = None

    def _read(self, call: Callable[..., T], *args: Any) -> T:
        return self.context.engine(_POSTGRES, call, *args)

    @property
    def embedding_model(self) -> str:
        """The model the vectors of this index were made with (semantic scores are calibrated per model)."""
        return self.context.stack.embedder.model_name

    @cached_property
    def _every_bucket(self) -> dict[str, BucketInfo]:
        store = self.context.stack.store
        described = self._read(store.buckets)
        aliases = self._read(store.bucket_aliases)
        counts = self._read(store.bucket_document_counts, self.scope)
        return {
            name: BucketInfo(name, about, counts.get(name, 0), tuple(aliases.get(name, ())))
            for name, about in described.items()
        }

    @cached_property
    def buckets(self) -> dict[str, BucketInfo]:
        """Buckets holding documents in this scope (every bucket while none does yet), in name order."""
        holding = {name: info for name, info in self._every_bucket.items() if info.documents}
        return holding or self._every_bucket

    @cached_property
    def empty_buckets(self) -> dict[str, BucketInfo]:
        """Buckets that exist but hold no document in this scope, while others do: a question naming one of them
        is about documents this scope does not have."""
        return {name: info for name, info in self._every_bucket.items() if name not in self.buckets}

    def fields(self, bucket: str) -> list[CatalogField]:
        """The bucket's fields in this scope, each with its vocabulary (`aliases`, `role`, `unit`, `unit_field`):
        the loader's, with what users said (`ragent catalog describe`) laid over it."""
        if bucket not in self._fields:
            self._fields[bucket] = (
                self._read(self.context.stack.store.field_catalog, self.scope, bucket) if bucket in self.buckets else []
            )
        return self._fields[bucket]

    def categorical(self, bucket: str) -> list[CatalogField]:
        """Fields with a full (short) value list: the ones a user can narrow by."""
        return [f for f in self.fields(bucket) if f.values is not None]

    def declared(self, bucket: str) -> list[FieldSpec]:
        """The fields the bucket declares (its schema), whether or not a document of the scope has a value: a
        question may name one that no rule reads from a folder without labels."""
        if bucket not in self._declared:
            self._declared[bucket] = self._read(self.context.stack.store.field_specs, bucket)
        return self._declared[bucket]

    def values(self, bucket: str, field: str) -> list[tuple[str, int]]:
        """Distinct text values of a field with their document counts, most common first."""
        if (bucket, field) not in self._values:
            self._values[bucket, field] = self._read(self.context.stack.store.field_values, self.scope, bucket, field)
        return self._values[bucket, field]

    def unread(self, bucket: str, field: str) -> int:
        """How many documents of the bucket were not read yet for `field` as it is declared now, when its text
        finds it without the model (rules, labelled lines, a pattern): a field declared or changed after they were
        ingested, which `ragent extract` reads; 0 for a field of labels or of the model."""
        spec = next((s for s in self.declared(bucket) if s.name == field), None)
        if spec is None or spec.found_by not in AT_INGEST:
            return 0
        return self._read(self.context.stack.store.count_to_extract, self.scope, bucket, {field: field_stamp(spec)})

    def version(self) -> tuple:
        """What changes when this catalog would read differently (`PostgresStore.catalog_version`)."""
        return self._read(self.context.stack.store.catalog_version, self.scope)

    def documents(self, doc_ids: list[str]) -> dict[str, str]:
        """Which of `doc_ids` are documents of this scope, with their buckets (a question that names a document by
        its id is about that document)."""
        return self._read(self.context.stack.store.document_buckets, self.scope, doc_ids) if doc_ids else {}

    def documents_titled(self, words: list[str], limit: int = 2) -> dict[str, list[tuple[str, str, str]]]:
        """For each of `words` (lower-case letters and digits), up to `limit` documents of this scope (id, bucket,
        title) whose title or id holds it, spaces and punctuation aside: a question that names a document by its
        company or title is about that document when a word finds one only."""
        return self._read(self.context.stack.store.documents_titled, self.scope, words, limit) if words else {}

    def documents_matching(
        self, bucket: str, predicates: dict, doc_ids: list[str] | None = None, limit: int = 50
    ) -> tuple[list[tuple[str, str | None, dict]], bool]:
        """The documents of the bucket (among `doc_ids` when given) with a row passing `predicates`, each once as
        (id, title, its first such row), up to `limit` rows read (through the tools' annotations_search), and
        whether more rows match than were read: which documents a name of the question matches (none known when
        the search fails)."""
        among = {"doc_id": doc_ids} if doc_ids else {}
        arguments = {"bucket": bucket, "predicates": predicates, "top_k": limit, **among}
        envelope = run_named("annotations_search", arguments, self.context)
        found: dict[str, tuple[str, str | None, dict]] = {}
        for hit in envelope.rows():
            found.setdefault(hit.doc_id, (hit.doc_id, hit.metadata.title, hit.row))
        return list(found.values()), envelope.total_is_lower_bound or envelope.total_hits > limit

    def text_hits(self, bucket: str, words: str, filters: dict | None = None) -> int | None:
        """How many chunks of the bucket hold any of `words` (the keyword index's count, through the tools), in the
        documents whose annotations pass `filters` when given: how common words are in the documents themselves;
        None when the search fails (a keyword index that is down holds no fewer words)."""
        arguments = {"bucket": bucket, "query": words[:QUERY_CHARS_MAX], "top_k": 1}
        envelope = run_named("search_text", arguments | ({"filters": filters} if filters else {}), self.context)
        return envelope.total_hits if envelope.status in ("ok", "no_results") else None

    def documents_holding(self, bucket: str, word: str, doc_id: str | None = None, limit: int = 20) -> list[str] | None:
        """The documents of the bucket (or `doc_id` alone) whose text holds `word`, in the order of their best chunk,
        when at most `limit` chunks do (one keyword search, through the tools); None when more do or the search
        fails: a name no title or field holds still names the one document whose text holds it ("Brett Haumann",
        the executive of an employment agreement whose parties the rules did not read)."""
        arguments = {"bucket": bucket, "query": word[:QUERY_CHARS_MAX], "top_k": limit} | (
            {"doc_id": doc_id} if doc_id else {}
        )
        envelope = run_named("search_text", arguments, self.context)
        if envelope.status not in ("ok", "no_results") or envelope.total_is_lower_bound or envelope.total_hits > limit:
            return None
        return list(dict.fromkeys(hit.doc_id for hit in envelope.passages()))

    def nearest_in_meaning(self, phrase: str, values: list[str]) -> tuple[str, float] | None:
        """The value closest in meaning to `phrase` by the index's embedder, with its cosine ("confidentiality
        agreement" and "Non-Disclosure Agreement"); None for no values. Every text is embedded as a query (short
        phrases, each cached), which MiniLM computes without loading PyTorch."""
        if not values:
            return None
        scores = self.meaning_scores(phrase, values)
        best = max(range(len(values)), key=scores.__getitem__)
        return values[best], scores[best]

    def meaning_scores(self, phrase: str, values: list[str]) -> list[float]:
        """Each value's cosine with `phrase` by the index's embedder, each text embedded as a query (cached)."""
        embedder = self.context.stack.embedder
        query, *candidates = (embedder.embed_query(text) for text in (phrase, *values))
        return [sum(a * b for a, b in zip(query, c, strict=True)) for c in candidates]

    def closeness(self, question: str) -> dict[str, float]:
        """Each bucket's best chunk score for the question (one semantic search per bucket, through the tools);
        nothing when a search fails, so that the question still gets a bucket and the searches that follow report
        the failure. The last question's scores are kept: a decomposition may ask for them more than once (the
        bucket of a question no word names, then the bucket with amounts for a sum)."""
        if self._closeness and self._closeness[0] == question:
            return self._closeness[1]
        scores = {}
        for name in self.buckets:
            envelope = run_named(
                "search_semantic", {"bucket": name, "query": question[:QUERY_CHARS_MAX], "top_k": 1}, self.context
            )
            if envelope.status not in ("ok", "low_confidence", "no_results"):
                return {}
            if passages := envelope.passages():
                scores[name] = passages[0].score
        self._closeness = (question, scores)
        return scores
