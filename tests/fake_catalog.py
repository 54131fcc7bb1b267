"""A catalog without engines, for the planners' phrasing tests: buckets, fields, value lists, closeness and keyword
counts given as data (or computed from documents given as data), behind the interface the planners read
(`graph.planners.catalog_view.CatalogView`, which `tools.catalog.Catalog` implements over Postgres and the tools).

`FakeCatalog.sample()` looks like the shipped sample corpus in one scope: its six buckets with their shipped
descriptions and aliases, the fields the stored rows give (computed by `build_field`, as the store computes them),
their value lists, and the documents' own text for keyword counts and closeness. A test says what it needs beyond
that (`closeness`, `meanings`, `text_hits`) as plain dictionaries; everything is deterministic and runs in
milliseconds, with no Postgres, no index and no model.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from rapidfuzz import fuzz

from core.models import FieldSpec
from retrievers.postgres.field_catalog import CatalogField, build_field
from retrievers.postgres.schema import DEFAULT_BUCKETS
from tools.catalog import BucketInfo

_WORD = re.compile(r"[a-z0-9]+")

SAMPLE_DESCRIPTIONS = DEFAULT_BUCKETS
"""The shipped buckets, each with its description and aliases."""

SAMPLE_MEANINGS = {"confidentiality agreement": ("Non-Disclosure Agreement", 0.72)}
"""What MiniLM says of a kind word's closest kind, where a test needs it (about 0.7 for these two)."""


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


_TESTS = {
    "=": lambda v, value: v == value,
    "!=": lambda v, value: v != value,
    "in": lambda v, value: v in value,
    "not in": lambda v, value: v not in value,
    ">": lambda v, value: v > value,
    ">=": lambda v, value: v >= value,
    "<": lambda v, value: v < value,
    "<=": lambda v, value: v <= value,
    "between": lambda v, value: value[0] <= v <= value[1],
}


def _passes(row: Mapping[str, Any], filters: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether an annotation row passes `{field: {op, value}}` (the tools' predicates, read plainly)."""
    for name, condition in filters.items():
        held = row.get(name)
        held = held if isinstance(held, list) else [] if held is None else [held]
        op, value = condition["op"], condition.get("value")
        test = _TESTS.get(op)
        if test is None:
            return False
        try:
            passed = all(test(v, value) for v in held) if op in ("!=", "not in") else any(test(v, value) for v in held)
        except TypeError:
            return False
        if not passed:
            return False
    return True


def _ordered(counts: Counter) -> Counter:
    """The counts in a fixed order of their values (the store reads them in its own), so ties sort alike."""
    return Counter(dict(sorted(counts.items(), key=lambda kv: repr(kv[0]))))


_LABELLED = FieldSpec(name="labelled", type="string")


class FakeCatalog:
    """The planners' view of one scope, from data. `documents` maps a bucket to its documents, each
    `(doc_id, text, rows)` with `rows` its annotation rows as `(kind, row)`; `specs` the loaders' field specs."""

    embedding_model = "fake"

    def __init__(
        self,
        documents: Mapping[str, list[tuple[str, str, list[tuple[str, dict]]]]],
        *,
        specs: Mapping[str, list[FieldSpec]] | None = None,
        descriptions: Mapping[str, tuple[str, Iterable[str]]] | None = None,
        closeness: Mapping[str, Mapping[str, float]] | None = None,
        meanings: Mapping[str, tuple[str, float]] | None = None,
        text_hits: Mapping[tuple[str, str], int | None] | None = None,
        scope: str = "default",
    ):
        self.scope = scope
        self._documents = {bucket: list(docs) for bucket, docs in documents.items()}
        self._specs = {bucket: {s.name: s for s in ss} for bucket, ss in (specs or {}).items()}
        described = descriptions or SAMPLE_DESCRIPTIONS
        every = sorted({*described, *self._documents})
        self._every = {
            name: BucketInfo(
                name,
                described.get(name, ("", ()))[0],
                len(self._documents.get(name, [])),
                tuple(described.get(name, ("", ()))[1]),
            )
            for name in every
        }
        self._closeness = dict(closeness or {})
        self._meanings = dict(SAMPLE_MEANINGS if meanings is None else meanings)
        self._text_hits = dict(text_hits or {})
        self._fields: dict[str, list[CatalogField]] = {}
        self.reads: list[tuple[str, tuple]] = []
        """Every closeness and keyword read asked of this catalog, in order (what a test may check)."""

    @classmethod
    def sample(cls, *, without: Iterable[str] = (), **data: Any) -> FakeCatalog:
        """The shipped sample corpus, but the buckets `without` (left empty: they exist and hold nothing here)."""
        from retrievers.loaders import field_specs, sample

        left_out = set(without)
        documents: dict[str, list] = {name: [] for name in SAMPLE_DESCRIPTIONS}
        for source in sample.load():
            doc = source.document
            if doc.bucket not in left_out:
                text = f"{doc.title}\n{doc.body}"
                documents[doc.bucket].append((doc.doc_id, text, [(a.kind, a.row) for a in source.annotations]))
        return cls(documents, specs=field_specs("sample"), **data)

    # -- the catalog's vocabulary ------------------------------------------------------------------------------

    @property
    def buckets(self) -> dict[str, BucketInfo]:
        holding = {name: info for name, info in self._every.items() if info.documents}
        return holding or dict(self._every)

    @property
    def empty_buckets(self) -> dict[str, BucketInfo]:
        return {name: info for name, info in self._every.items() if name not in self.buckets}

    def fields(self, bucket: str) -> list[CatalogField]:
        """As the store computes a bucket's catalog: values of list fields counted one by one, in kind and field
        order."""
        if bucket not in self._fields:
            counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
            multi: dict[tuple[str, str], bool] = defaultdict(bool)
            docs: dict[tuple[str, str], set[str]] = defaultdict(set)
            for doc_id, _, rows in self._documents.get(bucket, []) if bucket in self.buckets else []:
                for kind, row in rows:
                    for name, value in row.items():
                        if value is None:
                            continue
                        docs[kind, name].add(doc_id)
                        multi[kind, name] |= isinstance(value, list)
                        for v in value if isinstance(value, list) else [value]:
                            if v is not None:
                                counts[kind, name][v] += 1
            specs = self._specs.get(bucket, {})
            self._fields[bucket] = [
                build_field(
                    kind,
                    name,
                    _ordered(counts[kind, name]),
                    len(docs[kind, name]),
                    multi[kind, name],
                    specs.get(name),
                    # a field found in the text (its spec says how) has every value extracted here
                    extracted_count=len(docs[kind, name]) if specs.get(name, _LABELLED).found_by != "labels" else 0,
                )
                for kind, name in sorted(counts)
            ]
        return self._fields[bucket]

    def declared(self, bucket: str) -> list[FieldSpec]:
        return list(self._specs.get(bucket, {}).values())

    def categorical(self, bucket: str) -> list[CatalogField]:
        return [f for f in self.fields(bucket) if f.values is not None]

    def values(self, bucket: str, field: str) -> list[tuple[str, int]]:
        """Distinct text values with the documents holding each, most common first (then by value)."""
        holding: dict[str, set[str]] = defaultdict(set)
        for doc_id, _, rows in self._documents.get(bucket, []):
            for _, row in rows:
                value = row.get(field)
                for v in value if isinstance(value, list) else [value]:
                    if isinstance(v, str):
                        holding[v].add(doc_id)
        return sorted(((v, len(ids)) for v, ids in holding.items()), key=lambda vn: (-vn[1], vn[0]))

    def version(self) -> tuple:
        return (sum(len(d) for d in self._documents.values()),)

    def documents(self, doc_ids: list[str]) -> dict[str, str]:
        wanted = set(doc_ids)
        return {
            doc_id: bucket
            for bucket, docs in self._documents.items()
            if bucket in self.buckets
            for doc_id, _, _ in docs
            if doc_id in wanted
        }

    def documents_titled(self, words: list[str], limit: int = 2) -> dict[str, list[tuple[str, str, str]]]:
        """Up to `limit` documents whose id (the fake documents' only title) holds each word, spaces and
        punctuation aside, as the store compares them."""
        held = [
            (doc_id, bucket, re.sub(r"[\W_]+", "", doc_id.lower()))
            for bucket, docs in self._documents.items()
            if bucket in self.buckets
            for doc_id, _, _ in docs
        ]
        return {
            w: [(doc_id, bucket, doc_id) for doc_id, bucket, title in sorted(held) if w in title][:limit] for w in words
        }

    def documents_matching(
        self, bucket: str, predicates: dict, doc_ids: list[str] | None = None, limit: int = 50
    ) -> tuple[list[tuple[str, str | None, dict]], bool]:
        """The documents with a row passing `predicates` (among `doc_ids`), in id order, once each with their id as
        title, as annotations_search finds them."""
        rows = [
            (doc_id, doc_id, row)
            for doc_id, _, rows in sorted(self._documents.get(bucket, []))
            if doc_ids is None or doc_id in doc_ids
            for _, row in rows
            if _passes(row, predicates)
        ]
        found: dict[str, tuple[str, str | None, dict]] = {}
        for doc_id, title, row in rows[:limit]:
            found.setdefault(doc_id, (doc_id, title, row))
        return list(found.values()), len(rows) > limit

    # -- reads of the documents' content ------------------------------------------------------------------------

    def text_hits(self, bucket: str, words: str, filters: dict | None = None) -> int | None:
        """The documents of the bucket holding any of `words` (as whole words, without case), among those whose
        rows pass `filters`; a count given as data for `(bucket, words)` wins."""
        self.reads.append(("text_hits", (bucket, words, filters)))
        if (bucket, words) in self._text_hits:
            return self._text_hits[bucket, words]
        wanted = _words(words)
        return sum(
            1
            for _, text, rows in self._documents.get(bucket, [])
            if (not filters or any(_passes(row, filters) for _, row in rows)) and wanted & _words(text)
        )

    def documents_holding(self, bucket: str, word: str, doc_id: str | None = None, limit: int = 20) -> list[str] | None:
        """The documents of the bucket (or `doc_id` alone) whose text holds `word` as a whole word, without case (a
        fake document is one chunk)."""
        self.reads.append(("documents_holding", (bucket, word, doc_id)))
        held = [
            d for d, text, _ in self._documents.get(bucket, []) if _words(word) <= _words(text) and doc_id in (None, d)
        ]
        return held if len(held) <= limit else None

    def nearest_in_meaning(self, phrase: str, values: list[str]) -> tuple[str, float] | None:
        """A meaning given as data when the value is offered, else the closest value by spelling, its score
        scaled down so that spelling alone rarely passes for meaning."""
        if not values:
            return None
        if phrase in self._meanings and self._meanings[phrase][0] in values:
            return self._meanings[phrase]
        scores = self.meaning_scores(phrase, values)
        best = max(range(len(values)), key=scores.__getitem__)
        return values[best], scores[best]

    def meaning_scores(self, phrase: str, values: list[str]) -> list[float]:
        """The meaning given as data for its value, the others by spelling as `nearest_in_meaning` says."""
        given = self._meanings.get(phrase)
        return [given[1] if given and given[0] == v else fuzz.token_set_ratio(phrase, v) / 200 for v in values]

    def closeness(self, question: str) -> dict[str, float]:
        """Scores given as data for the question, else the share of the question's words (three letters or more)
        that the bucket's closest document holds."""
        self.reads.append(("closeness", (question,)))
        if question in self._closeness:
            return dict(self._closeness[question])
        asked = {w for w in _words(question) if len(w) > 2}
        scores = {}
        for bucket in self.buckets:
            docs = self._documents.get(bucket, [])
            if docs and asked:
                scores[bucket] = round(max(len(asked & _words(text)) for _, text, _ in docs) / len(asked), 4)
        return scores
