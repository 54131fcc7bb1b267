"""The rule planner's decompose step: a question's words mapped to intent, buckets and catalog constraints.

No model is involved. What the words can mean comes from the index itself, read through the scope's `Catalog`:
the buckets that hold documents, each bucket's field catalog (names, types, descriptions), the value lists of
its text fields, and, when no word names a bucket, which bucket holds the chunk closest to the question (one
semantic search per bucket: the content decides, not a one-line description). Quantities, dates and demonyms
are read by `phrases`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

from graph.decomposition import Constraint, Decomposition, Intent
from graph.planners.phrases import (
    DEMONYMS,
    NEGATIONS,
    STOPWORDS,
    Quantity,
    date_ranges,
    in_days,
    proper_names,
    quantities,
)
from graph.planners.words import FLAG_STEM_CHARS, STEM_CHARS, has_word, starts_a_word, stem
from retrievers.field_catalog import CatalogField
from tools.catalog import Catalog

BUCKET_WORDS = {
    "contracts": (
        "contract",
        "agreement",
        "nda",
        "non-disclosure",
        "confidentiality",
        "licen",
        "lease",
        "governed",
        "governing law",
    ),
    "invoices": ("invoice", "billed", "bill ", "vat"),
    "receipts": ("receipt", "purchase", "shop", "store", "restaurant", "spent", "bought"),
    "datasheets": (
        "datasheet",
        "component",
        "resistor",
        "capacitor",
        "regulator",
        "transistor",
        "part number",
        "tolerance",
    ),
    "certificates": ("certificate", "certified", "certification", "iso 9001", "iso 14001", "accreditation"),
    "generic": ("study", "studies", "abstract", "paper", "article", "research"),
}
MONEY_FIELD_WORDS = ("total", "amount", "price", "cost", "paid", "spent", "spend", "worth", "value", "sum")
NAME_FIELDS = ("parties", "party", "company", "issuer", "holder", "manufacturer", "customer", "partner_name", "author")
GENERIC_FIELD_TOKENS = {"days", "date", "period", "of", "on", "for", "the", "name", "number"}
DATE_FIELD_WORDS = {
    "agreement_date": ("signed", "agreement", "dated", "executed"),
    "effective_date": ("effective", "start", "commence", "began"),
    "expiration_date": ("expir", "end", "terminat"),
    "valid_until": ("valid until", "expir", "valid through", "lapse"),
    "valid_from": ("valid from", "issued", "granted"),
    "date_due": ("due",),
}
NOT_NAMES = {
    "state",
    "states",
    "commonwealth",
    "republic",
    "province",
    "law",
    "laws",
    "court",
    "courts",
    "united",
    "kingdom",
    "inc",
    "ltd",
    "llc",
    "corp",
    "company",
    "sdn bhd",
    "rm",
    "usd",
    "eur",
    "gbp",
}
VALUE_BUCKET_MARGIN = 0.1
"""How much closer (cosine) another bucket's content may be before a value the question names no longer picks its
bucket: on the shared corpora, Wikipedia questions that merely mention a state or a nationality are 0.2 to 0.3 closer
to the Wikipedia paragraphs than to the contracts, while terse field questions ("What is in EUR?") are within 0.1."""
_CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][\w&'.-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*)*)")
_WORD = re.compile(r"[a-z0-9]+")


def _name_tokens(name: str) -> list[str]:
    return [t for t in name.split("_") if t not in GENERIC_FIELD_TOKENS]


FIELD_WORD_SYNONYMS = {
    "term": ("term", "last", "duration", "runs for", "valid for", "in force"),
    "notice": ("notice", "warning", "advance"),
    "renewal": ("renew",),
    "total": ("total", "paid", "spent", "cost"),
    "amount": ("amount", "worth", "value of"),
}


def _says(text: str, token: str) -> bool:
    """Whether the question says one word of a field's name: by its stem or a synonym, or, for a word with a digit
    in it, exactly; such a word is an identifier, and "f9999" is a stem of "f99999" but not the same field."""
    if any(c.isdigit() for c in token):
        return re.search(rf"\b{re.escape(token)}\b", text) is not None
    return has_word(text, token) or any(has_word(text, w) for w in FIELD_WORD_SYNONYMS.get(token, ()))


def _mention_score(text: str, f: CatalogField) -> float:
    """Share of a field's name words that the question says (or says by a synonym)."""
    tokens = _name_tokens(f.name)
    return sum(_says(text, t) for t in tokens) / len(tokens) if tokens else 0.0


@dataclass(frozen=True)
class BucketView:
    """One bucket of the catalog, as the decomposer reads it."""

    name: str
    catalog: Catalog

    @property
    def fields(self) -> list[CatalogField]:
        return self.catalog.fields(self.name)

    def typed(self, *types: str) -> list[CatalogField]:
        return [f for f in self.fields if f.type in types]

    def values(self, f: CatalogField) -> list[tuple[str, int]]:
        return self.catalog.values(self.name, f.name)


class RuleDecomposer:
    """question -> Decomposition, from the catalog: buckets, field catalogs, value lists, closeness of content."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    @cached_property
    def buckets(self) -> dict[str, BucketView]:
        return {name: BucketView(name, self.catalog) for name in self.catalog.buckets}

    def decompose(self, question: str) -> Decomposition:
        text = " ".join(question.split())
        lowered = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text.lower())
        buckets = self._buckets(text, lowered)
        constraints: list[Constraint] = []
        used: list[tuple[int, int]] = []
        for bucket in buckets:
            constraints += self._constraints(self.buckets[bucket], text, lowered, used)
        intent = _intent(lowered, bool(constraints))
        aggregate, group_by = self._aggregate(intent, lowered, [self.buckets[b] for b in buckets])
        untaken = _blanked(lowered, used + [m.span() for c in constraints if (m := _flag_mention(lowered, c.field))])
        show = self._shown_fields(
            buckets, _without_bucket_words(untaken, buckets), {c.field for c in constraints} | set(group_by)
        )
        return Decomposition(
            question=text,
            intent=intent,
            buckets=buckets,
            constraints=constraints,
            topic_terms=_topic_terms(lowered, used, buckets, {c.field for c in constraints}),
            sub_queries=_sub_queries(text, intent),
            aggregate=aggregate,
            group_by=group_by,
            show_fields=show if intent in ("lookup", "list") else [],
        )

    # -- buckets --------------------------------------------------------------------------------------

    def _buckets(self, text: str, lowered: str) -> list[str]:
        """A bucket the words name; else the one bucket whose values the question names, unless its content is
        clearly farther from the question than another bucket's (a value is a weak sign on its own: "Virginia"
        in "Virginia Woolf" or "American" in "American Beauty" also match governing-law values); else the
        bucket whose content is closest."""
        named = [
            b
            for b, words in BUCKET_WORDS.items()
            if b in self.buckets and any(starts_a_word(lowered, w) for w in words)
        ]
        if named:
            return named[:2]
        by_values = [b for b, view in self.buckets.items() if self._value_hits(view, lowered)]
        closeness = self.catalog.closeness(text) if len(self.buckets) > 1 else {}
        closest = max(closeness, key=closeness.get) if closeness else None
        if len(by_values) == 1 and (
            closest is None or closeness.get(by_values[0], -1.0) >= closeness[closest] - VALUE_BUCKET_MARGIN
        ):
            return by_values
        return [closest or ("generic" if "generic" in self.buckets else next(iter(self.buckets)))]

    # -- constraints ----------------------------------------------------------------------------------

    def _constraints(self, view: BucketView, text: str, lowered: str, used: list[tuple[int, int]]) -> list[Constraint]:
        found: dict[str, Constraint] = {}

        def add(f: CatalogField, op: str, value, span: tuple[int, int], source: str) -> None:
            found.setdefault(f.name, Constraint(bucket=view.name, field=f.name, op=op, value=value, source_text=source))
            used.append(span)

        for q in quantities(lowered):
            target = self._numeric_field(view, lowered, q)
            if target is not None:
                scale = in_days(q) / q.value if q.unit and target.name.endswith("_days") and q.value else 1.0
                low = round(q.value * scale, 2)
                value = [low, round(q.high * scale, 2)] if q.op == "between" else low
                add(target, q.op, value, q.span, q.text)
        date_fields = view.typed("date")
        unnamed = _without_bucket_words(lowered, [view.name])
        for d in date_ranges(lowered):
            if date_fields:
                add(self._date_field(date_fields, unnamed), d.op, d.value, d.span, d.text)
        for f in view.typed("boolean"):
            match = _flag_mention(lowered, f.name)
            if match:
                negated = NEGATIONS.search(lowered[max(0, match.start() - 25) : match.start()]) is not None
                add(f, "=", not negated, match.span(), match.group(0))
        named_values: dict[str, tuple[CatalogField, list[str], list[tuple[int, int]]]] = {}
        for f, value_set, span in self._value_hits(view, lowered):
            entry = named_values.setdefault(f.name, (f, [], []))
            entry[1].extend(v for v in value_set if v not in entry[1])
            entry[2].append(span)
        for f, values, spans in named_values.values():
            for span in spans[1:]:
                used.append(span)
            source = " / ".join(text[s:e] for s, e in spans)
            add(f, "=" if len(values) == 1 else "in", values[0] if len(values) == 1 else values, spans[0], source)
        for name_text, span in _names(text, used):
            target = self._name_field(view, name_text, lowered)
            if target is not None:
                add(target, "~", name_text, span, name_text)
        return list(found.values())

    def _numeric_field(self, view: BucketView, lowered: str, q: Quantity) -> CatalogField | None:
        numeric = view.typed("integer", "number")
        if q.unit:
            candidates = [f for f in numeric if f.name.endswith("_days")]
        else:
            candidates = [f for f in numeric if not f.name.endswith("_days")]
            if not q.money:
                candidates = [f for f in candidates if _mention_score(lowered, f) > 0] or [
                    f for f in candidates if any(w in f.name for w in MONEY_FIELD_WORDS)
                ]
        if not candidates:
            return None
        return max(
            candidates,
            key=lambda f: (_mention_score(lowered, f), any(w in f.name for w in MONEY_FIELD_WORDS), f.doc_count),
        )

    def _date_field(self, date_fields: list[CatalogField], lowered: str) -> CatalogField:
        def score(f: CatalogField) -> tuple[int, bool, int]:
            words = DATE_FIELD_WORDS.get(f.name, tuple(_name_tokens(f.name)))
            return (sum(starts_a_word(lowered, w) for w in words), f.name == "date", f.doc_count)

        return max(date_fields, key=score)

    def _value_hits(self, view: BucketView, lowered: str) -> list[tuple[CatalogField, list[str], tuple[int, int]]]:
        """Text values the question names (or a country its demonym names), one field per value, best field first."""
        countries = [
            (country, m.span()) for word, country in DEMONYMS.items() if (m := re.search(rf"\b{word}\b", lowered))
        ]
        hits: dict[str, tuple[CatalogField, list[str], tuple[int, int], float]] = {}
        for f in view.typed("string"):
            if f.name in NAME_FIELDS:
                continue
            values = view.values(f)
            for value, documents in values:
                if len(value) < 3 or value.lower() in STOPWORDS:
                    continue
                match = re.search(rf"\b{re.escape(value.lower().replace('-', ' '))}s?\b", lowered)
                if match:
                    key = value.lower()
                    rank = _mention_score(lowered, f) * 1000 + documents
                    if key not in hits or rank > hits[key][3]:
                        hits[key] = (f, [value], match.span(), rank)
            for country, span in countries:
                named = [v for v, _ in values if country.lower() in v.lower()]
                if named:
                    rank = _mention_score(lowered, f) * 1000 + len(named)
                    if country not in hits or rank > hits[country][3]:
                        hits[country] = (f, named, span, rank)
        longest_first = sorted(hits.values(), key=lambda h: h[2][1] - h[2][0], reverse=True)
        kept: list[tuple[CatalogField, list[str], tuple[int, int]]] = []
        for f, values, span, _ in longest_first:
            if not any(span[0] < s[1] and s[0] < span[1] for _, _, s in kept):
                kept.append((f, values, span))
        return kept

    def _name_field(self, view: BucketView, name: str, lowered: str) -> CatalogField | None:
        """The name-like text field whose values contain `name` most often."""
        best, best_count = None, 0
        for f in view.typed("string"):
            if f.name not in NAME_FIELDS:
                continue
            count = sum(name.lower() in v.lower() for v, _ in view.values(f))
            if count > best_count or (count == best_count and count and _mention_score(lowered, f) > 0):
                best, best_count = f, count
        return best

    def _shown_fields(self, buckets: list[str], lowered: str, asked: set[str]) -> list[str]:
        """Fields the question asks to see ("what is the governing law of...", "when was it signed")."""
        return [
            f.name
            for b in buckets
            for f in self.buckets[b].fields
            if f.name not in asked
            and f.type != "boolean"
            and (
                _mention_score(lowered, f) == 1.0
                or (f.type == "date" and any(starts_a_word(lowered, w) for w in DATE_FIELD_WORDS.get(f.name, ())))
            )
        ]

    # -- aggregates -------------------------------------------------------------------------------------

    def _aggregate(self, intent: Intent, lowered: str, views: list[BucketView]) -> tuple[str | None, list[str]]:
        if intent not in ("count", "sum") or not views:
            return None, []
        view = views[0]
        grouping = re.search(
            r"\b(?:per|for each|for every|grouped by|broken down by|split by|by each)\s+(\w+(?:\s\w+)?)", lowered
        )
        group_by = [f.name for f in view.fields if grouping and _mention_score(grouping.group(1), f) > 0][:1]
        if intent == "count":
            return "count", group_by
        function = (
            "avg"
            if re.search(r"\b(average|mean)\b", lowered)
            else "max"
            if re.search(r"\b(highest|largest|maximum|biggest|most expensive)\b", lowered)
            else "min"
            if re.search(r"\b(lowest|smallest|minimum|cheapest)\b", lowered)
            else "sum"
        )
        numeric = view.typed("integer", "number")
        if not numeric:
            return "count", group_by
        target = max(
            numeric,
            key=lambda f: (_mention_score(lowered, f), any(w in f.name for w in MONEY_FIELD_WORDS), f.doc_count),
        )
        return f"{function}({target.name})", group_by


def _flag_mention(lowered: str, name: str) -> re.Match | None:
    """Where a yes/no field is named: its words in order, each by its stem, close together
    ("termination for convenience" and "terminated for convenience"; "non compete" and "noncompete")."""
    words = [w for w in name.split("_") if len(w) > 2 or w in ("ip",)]
    stems = [re.escape(stem(w, FLAG_STEM_CHARS)) if len(w) >= STEM_CHARS else re.escape(w) for w in words]
    spaced = r"\w*(?:\W+\w+){0,2}?\W+".join(stems)
    return re.search(rf"\b{spaced}\w*", lowered) or re.search(rf"\b{''.join(stems)}\w*", lowered)


def _intent(lowered: str, constrained: bool) -> Intent:
    if re.search(r"\b(how many|number of|count)\b", lowered):
        return "count"
    if re.search(
        r"\b(sum of|in total|altogether|how much (?:did|was|were|have|has|do)|"
        r"total (?:amount|value|spend|spent|paid|cost)|"
        r"what (?:is|was) the total|average|mean|highest|lowest|largest|smallest|biggest|maximum|minimum|"
        r"most expensive|cheapest)\b",
        lowered,
    ):
        return "sum"
    if re.search(r"\b(summari[sz]e|summary|overview)\b", lowered):
        return "summarize"
    if re.search(r"\b(compare|comparison|difference between|versus|vs)\b", lowered):
        return "compare"
    if re.search(
        r"^(which|list|show|find|give me|get|"
        r"what (?:contracts|receipts|invoices|documents|certificates|datasheets|agreements))\b",
        lowered,
    ) or re.search(r"\ball (?:the )?\w+ (?:that|with|where|governed|signed|from)\b", lowered):
        return "list"
    if re.search(
        r"^(what is the|what's the|what was the|when (?:was|is|did|does)|who (?:is|was|are|were|signed))\b", lowered
    ):
        return "lookup"
    return "list" if constrained else "qa"


BUCKET_NOUNS = {
    "contracts": ("contract", "agreement", "nda"),
    "invoices": ("invoice",),
    "receipts": ("receipt",),
    "datasheets": ("datasheet",),
    "certificates": ("certificate",),
}


def _names(text: str, used: list[tuple[int, int]]) -> list[tuple[str, tuple[int, int]]]:
    """Capitalised phrases (not the question's first word, not a bucket word) that nothing else took."""
    names = []
    for m in _CAPITALISED.finditer(text):
        phrase = m.group(1).strip(" .")
        if len(phrase) < 3 or any(m.start() < e and s < m.end() for s, e in used):
            continue
        if phrase.lower() in STOPWORDS | NOT_NAMES or any(
            starts_a_word(phrase.lower(), w) for words in BUCKET_WORDS.values() for w in words
        ):
            continue
        names.append((phrase, m.span()))
    return names


def _without_bucket_words(lowered: str, buckets: list[str]) -> str:
    """The question without the nouns that name its buckets ("agreement" would otherwise ask for agreement_date)."""
    for word in (w for b in buckets for w in BUCKET_NOUNS.get(b, ())):
        lowered = re.sub(rf"\b{re.escape(word)}\w*", " ", lowered)
    return lowered


def _blanked(lowered: str, spans: list[tuple[int, int]]) -> str:
    """The text with the given spans replaced by spaces (offsets unchanged)."""
    return "".join(" " if any(s <= i < e for s, e in spans) else ch for i, ch in enumerate(lowered))


def _topic_terms(lowered: str, used: list[tuple[int, int]], buckets: list[str], fields: set[str]) -> list[str]:
    """Content words the constraints did not take: not a bucket word, not a word of a constrained field's name."""
    kept = _blanked(lowered, used)
    bucket_words = {w.strip() for b in buckets for w in BUCKET_WORDS.get(b, ())} | {
        t for f in fields for t in f.split("_")
    }
    return list(
        dict.fromkeys(
            w
            for w in _WORD.findall(kept)
            if w not in STOPWORDS and len(w) > 2 and not any(w.startswith(b) for b in bucket_words) and not w.isdigit()
        )
    )


_CHOICE = re.compile(r"[,:]\s*(?P<first>[^,:]+?)\s+or\s+(?P<second>[^,:?]+?)\s*\??\s*$")
_SHARED = re.compile(r"\b(?:both|same|in common|share|shared)\b", re.IGNORECASE)


def _side(text: str) -> str:
    """A side as it is searched: without quotes, question mark or leading article."""
    return re.sub(r"^(?:the|a|an)\s+", "", text.strip(" \"'“”?"), flags=re.IGNORECASE)


def _named_sides(text: str) -> list[str]:
    """The two things a question sets side by side, each to be searched on its own: the choice it ends on ("Who
    is older, Annie Morton or Terry Richardson?"), two names it offers with 'or', or two names it joins with
    'and' while asking what they share ("Were Scott Derrickson and Ed Wood of the same nationality?")."""
    choice = _CHOICE.search(text)
    if choice:
        return [_side(choice.group("first")), _side(choice.group("second"))]
    names = proper_names(text)
    for first, second in pairwise(names):
        joint = text[first.span[1] : second.span[0]].strip(" ,\"'“”").lower()
        if joint == "or" or (joint == "and" and _SHARED.search(text)):
            return [first.text, second.text]
    return []


def _sub_queries(text: str, intent: Intent) -> list[str]:
    """A comparison splits into its sides; a question that sets two named things side by side is searched as asked
    and for each of them (one passage rarely covers both); any other question is searched as asked."""
    if intent == "compare":
        parts = re.split(
            r"\b(?:and|versus|vs\.?|with)\b",
            re.sub(r"^(compare|what is the difference between)\s+", "", text, flags=re.I),
        )
        sides = [p.strip(" ?,.") for p in parts if len(p.strip(" ?,.")) > 2]
        if len(sides) >= 2:
            return sides
    return list(dict.fromkeys([text, *_named_sides(text)]))
