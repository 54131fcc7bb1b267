"""What the words of a question can mean in one scope, read from the catalog: the words that name each bucket, the
words that name each field, and the values of each text field (as `ValueIndex`es).

Nothing here is written for a corpus: a bucket a user adds, with its own fields and aliases
(`ragent catalog describe`), is read the same way as the shipped ones. Built once per planner (one run step), so
value indexes are built at most once per field per step, and only for the buckets a question reaches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz import fuzz

from core.models import FieldSpec
from english.lexicon import STOPWORDS
from english.mentions import Mention, find_mentions, fuzzy_mentions
from english.value_match import ValueIndex, normalise
from graph.decomposition import Candidate
from graph.planners.catalog_view import CatalogView
from retrievers.postgres.field_catalog import CatalogField

__all__ = ["BucketWords", "Mention", "Vocabulary", "find_mentions"]

FLAGS_MEANT = 2
"""Yes/no fields offered for words that name no field."""
FLAG_SPELLING = 80
"""rapidfuzz's ratio from which a word is a misspelling of a yes/no field's name or of a word of it ("audti" for
"audit" 80, "insurence" 89); "new" and "renewal" score 60, "term" and "termination" 53."""
FLAG_MEANING_FLOOR = 0.4
"""The cosine (MiniLM) from which a yes/no field's description is close enough to a question to be offered: on the
contracts' clauses, the field a question describes in other words scores 0.5-0.75 ("jointly owning something they
develop": joint_ip_ownership 0.57), the fields it does not describe mostly under 0.45; offered, not taken, since the
nearest is not always the one meant ("a non-compete restriction" is closer to the exceptions to one)."""


_WHEN_TRUE = re.compile(r"^(?:true|yes)\s+(?:when|if)\b", re.IGNORECASE)
"""A flag's description opening "True when ...", said after its Yes as "when ..."."""


@dataclass
class BucketWords:
    """One bucket's vocabulary."""

    name: str
    catalog: CatalogView
    _indexes: dict[str, ValueIndex] = field(default_factory=dict)

    @cached_property
    def aliases(self) -> list[str]:
        info = self.catalog.buckets[self.name]
        return list(dict.fromkeys([self.name, self.name.rstrip("s"), *info.aliases]))

    @property
    def fields(self) -> list[CatalogField]:
        return self.catalog.fields(self.name)

    def typed(self, *types: str) -> list[CatalogField]:
        return [f for f in self.fields if f.type in types]

    def role(self, role: str) -> list[CatalogField]:
        return [f for f in self.fields if f.role == role]

    def get(self, name: str) -> CatalogField | None:
        return next((f for f in self.fields if f.name == name), None)

    def field_words(self, f: CatalogField | FieldSpec) -> list[str]:
        """The words that name a field: its aliases, and its name read as words ("notice_period_days" -> "notice
        period") unless those are only generic words."""
        named = " ".join(w for w in f.name.split("_") if w not in ("days", "of", "the", "is"))
        return list(dict.fromkeys([*f.aliases, *([named] if named else [])]))

    def field_mentions(self, lowered: str, f: CatalogField) -> list[Mention]:
        """Where the question names the field. A word that names the bucket ("order" in a bucket of purchase
        orders) names the field only when it is one of the field's own words ("shop" for a receipt's company), not
        when it merely shares a stem with one ("ordered" of ordered_on)."""
        own = {w.removesuffix("s") for alias in self.aliases for w in [normalise(alias)] if " " not in w}
        return [
            m
            for m in find_mentions(lowered, self.field_words(f))
            if (said := normalise(m.text).removesuffix("s")) not in own or normalise(m.alias) == said
        ]

    @cached_property
    def short_values(self) -> list[str]:
        """The values of the short-listed text fields (a governing law, a kind), normalised: whole values a question
        may name in passing, which hint at the bucket."""
        return [
            normalise(v)
            for f in self.typed("string")
            if f.values is not None
            for v in f.values
            if isinstance(v, str) and len(v) > 2 and v.lower() not in STOPWORDS
        ]

    @cached_property
    def kind(self) -> CatalogField | None:
        """The field that says what kind of document each one is (contract_type, doc_type): a text field users call
        "type" or "kind"."""
        kinds = [f for f in self.typed("string") if {"type", "kind"} & {a.lower() for a in f.aliases}]
        return max(kinds, key=lambda f: f.doc_count) if kinds else None

    @cached_property
    def generic_words(self) -> set[str]:
        """Words that name the bucket as a whole, not a kind of document in it: its name, the words its description
        opens with ("Component datasheets: ..."), the words of its non-flag fields ("part" of part_number), and the
        words most of its kinds share ("agreement" in every contract type). Any other alias ("NDA", "lease") names
        a kind of document."""
        words = {self.name, self.name.rstrip("s")}
        headline = self.catalog.buckets[self.name].description.split(":")[0]
        words |= {w.rstrip("s") for w in normalise(headline).split()}
        words |= self.field_words_but_flags
        if self.kind is not None:
            kinds = [set(normalise(v).split()) for v in self.values(self.kind).values]
            words |= {w for k in kinds for w in k if sum(w in other for other in kinds) * 2 >= len(kinds)}
        return words | {w + "s" for w in words}

    @cached_property
    def unvalued(self) -> list[FieldSpec]:
        """Fields the bucket declares that no document of the scope has a value for: in a folder without labels, a
        yes/no clause no rule reads ("price restrictions"). A question naming one asks about something unrecorded,
        and its words are no name."""
        valued = {f.name for f in self.fields}
        return [spec for spec in self.catalog.declared(self.name) if spec.name not in valued]

    @cached_property
    def unvalued_words(self) -> frozenset[str]:
        """The words of the unvalued fields' names and aliases."""
        return frozenset(w for spec in self.unvalued for w in self.field_words_of(spec))

    def field_words_of(self, f: CatalogField | FieldSpec) -> list[str]:
        """Each word of the phrases that name a field (`field_words`), normalised."""
        return [w for phrase in self.field_words(f) for w in normalise(phrase).split()]

    @cached_property
    def field_words_all(self) -> frozenset[str]:
        """The words of the bucket's field names and aliases."""
        return self._words_of(self.fields)

    @cached_property
    def field_words_but_flags(self) -> frozenset[str]:
        """The same without yes/no fields: their words are taken before values are read, and "joint" of
        joint_ip_ownership also starts "Joint Venture"."""
        return self._words_of([f for f in self.fields if f.type != "boolean"])

    def _words_of(self, fields: list[CatalogField]) -> frozenset[str]:
        return frozenset(w for f in fields for w in self.field_words_of(f))

    def flags_meant(self, question: str, top: int = FLAGS_MEANT, floor: float = FLAG_MEANING_FLOOR) -> list[Candidate]:
        """The `top` yes/no fields with values closest in meaning to `question` (by their names and descriptions),
        from a cosine of `floor`, as their Yes: what a question that names no field may describe in its own words
        ("contesting the other side's intellectual property" for covenant_not_to_sue), for the human to choose
        among."""
        flags = [f for f in self.typed("boolean") if f.doc_count]
        about = [f"{f.name.replace('_', ' ')}: {f.description}".rstrip(": ") for f in flags]
        scores = self.catalog.meaning_scores(question, about) if flags else []
        ranked = sorted(zip(scores, flags, strict=True), key=lambda sf: -sf[0])
        return [
            Candidate(field=f.name, value=True, about=_WHEN_TRUE.sub("when", f.description) or None)
            for score, f in ranked[:top]
            if score >= floor
        ]

    def flags_spelt(self, phrase: str, cutoff: float = FLAG_SPELLING) -> list[Candidate]:
        """The yes/no fields whose name, or a word of it, a word left over is a misspelling of ("vegitarian" for
        vegetarian, "audti" for audit_rights), as their Yes: meaning (`flags_meant`) does not see through a typo,
        and a user-added bucket's fields may have no description to be close to."""
        said = phrase.lower()
        found = []
        for f in self.typed("boolean"):
            words = f.name.split("_")
            score = max(fuzz.ratio(said, w) for w in [" ".join(words), *words])
            if f.doc_count and score >= cutoff:
                found.append((score, f))
        return [
            Candidate(field=f.name, value=True, about=_WHEN_TRUE.sub("when", f.description) or None)
            for _, f in sorted(found, key=lambda sf: -sf[0])[:FLAGS_MEANT]
        ]

    def values(self, f: CatalogField) -> ValueIndex:
        if f.name not in self._indexes:
            self._indexes[f.name] = ValueIndex(self.catalog.values(self.name, f.name), f.role)
        return self._indexes[f.name]


class Vocabulary:
    """Every bucket's vocabulary in a scope."""

    def __init__(self, catalog: CatalogView):
        self.catalog = catalog
        self.buckets = {name: BucketWords(name, catalog) for name in catalog.buckets}

    def named_buckets(self, lowered: str) -> list[tuple[str, list[Mention]]]:
        """Buckets the question names by an alias (or a misspelling of one), in the order first named."""
        named = []
        for name, words in self.buckets.items():
            mentions = find_mentions(lowered, words.aliases, whole=True) or fuzzy_mentions(lowered, words.aliases)
            if mentions:
                named.append((name, mentions))
        return sorted(named, key=lambda n: min(m.span[0] for m in n[1]))

    @cached_property
    def bucket_words(self) -> set[str]:
        """Every word of every bucket alias, normalised."""
        return {w for b in self.buckets.values() for alias in b.aliases for w in normalise(alias).split()}
