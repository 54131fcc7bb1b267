"""The rule planner's decompose step: a question's words mapped to intent, buckets and catalog constraints.

No model is involved, and no word list written for a corpus: what the words can mean comes from the index itself,
through the scope's `Vocabulary` (the catalog's buckets and their aliases, each field's aliases, role and unit, the
value lists of text fields) and, when no word names a bucket, which bucket holds the chunk closest to the question.
English itself (quantities, dates, currencies, negation, superlatives, grouping words) is read by `phrases`,
`currencies` and `intents`.

A word that looks like a condition but maps to nothing (a shop no receipt names, a currency no invoice is in) is
kept in `unmapped` with the nearest values the catalog holds: a count, sum or list cannot be computed without it,
so the planner asks instead of answering from passages.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import date, timedelta
from itertools import pairwise
from typing import Any

from english.currencies import CurrencyMention, currency_mentions, currency_words
from english.dates import DateRange, date_ranges, relative_dates
from english.lexicon import DEMONYMS, NEGATIONS, STOPWORDS
from english.names import proper_names
from english.quantities import in_days, quantities
from english.value_match import QUALITY, normalise
from english.words import FLAG_STEM_CHARS, STEM_CHARS, singular, stem
from graph.decomposition import STRUCTURED_INTENTS, Candidate, Constraint, Decomposition, Unmapped
from graph.planners.another_question import another_bucket_or_noun, condition_left_out
from graph.planners.intents import Reading, read_intent
from graph.planners.vocabulary import BucketWords, Mention, Vocabulary, find_mentions
from retrievers.annotation_filters import bounds_of
from retrievers.field_catalog import CatalogField
from tools.catalog import Catalog

VALUE_BUCKET_MARGIN = 0.1
"""How much closer (cosine) another bucket's content may be before a value the question names no longer picks its
bucket: on the shared corpora, Wikipedia questions that merely mention a state or a nationality are 0.2 to 0.3 closer
to the Wikipedia paragraphs than to the contracts, while terse field questions ("What is in EUR?") are within 0.1."""
NAME_SLOT = {"from", "at", "by", "with", "of", "for"}
AMOUNT_SLOT = {"in", "average", "avg", "mean", "total", "sum"}
"""Where a sum's words name what it adds up in ("in doubloons") or what it adds up ("the average tip"): a word there
that nothing took is a currency or an amount the index does not hold."""
CLAUSE_WORDS = {"clause", "clauses", "provision", "provisions"}
"""Words just before these name a clause ("an arbitration clause"): when no yes/no field takes them, no field
records that clause, and a count or list of the documents would ignore it."""
_QUESTION_START = re.compile(
    r"^(?:what|which|why|how|who|whom|when|where|does|do|did|is|are|was|were|can|could|should)\b"
)
MAX_PHRASE_WORDS = 6
NEAREST = 3
KIND_MEANING = 0.6
"""Cosine (MiniLM) a kind word needs with a kind value to mean it: "confidentiality agreement" and "Non-Disclosure
Agreement" score about 0.7, "lease" and the closest contract type below 0.5."""
COMMON_WORD = 50
"""A lowercase word that names a value only by being one of its words ("fall" in "Quaker Fabric Corporation Of Fall
River") is taken for that name only when the documents' text does not hold it more than this many times as often as
the value's documents: on the shipped corpora "gardenia" is in 2 receipt passages per GARDENIA receipt and
"microsoft" in 28 contract passages per Microsoft contract, while "fall" is in 206 per Fall River one and
"distributor" in 500 per contract with a party so named."""
CURRENCY_SHARE = 0.05
"""Share of a bucket's documents whose text must write a currency before amounts recorded without one are taken to
be in it: SROIE's receipts write "RM" on 734 of 973, while "euro" (a street name) is on 6 and "yen" (a name) on 2."""
MAX_NAMED_VALUES = 200
"""More values than this for one phrase is a word too common to be a name ("sdn bhd"): it is not a constraint."""
_MONTH_WORD = re.compile(
    r"\b(?:january|february|march|april|june|july|august|september|sept|october|november|december)\b"
)
"""Month names (not "may", a verb), checked for a year beside them."""
_TOKEN = re.compile(r"[\w$€£¥₹][\w'’&.$€£/-]*")
_DOC_ID = re.compile(r"(?<![\w-])[A-Za-z0-9][\w.-]*\d[\w.-]*(?![\w-])|(?<![\w-])[a-z]+_\w+")
FILLER = {
    "clause", "clauses", "provision", "provisions", "one", "ones", "kind", "kinds", "type", "types", "go", "got",
    "get", "have", "has", "had", "do", "did", "does", "we", "our", "us", "ever", "also", "only", "just", "thing",
    "things", "stuff", "anything", "something", "made", "came", "come", "comes", "up", "right", "rights", "s",
    "s'", "state", "states", "law", "laws", "under", "been", "being", "there", "here", "any", "some", "them",
    "those", "these", "add", "adds", "altogether", "bill", "bills", "w/o", "year", "years", "month", "months",
    "day", "days", "week", "weeks", "date", "dates", "breakdown", "everything", "all", "every", "each", "per",
    "please", "single",
}  # fmt: skip
"""Words that fill a question out without being a condition; never reported as unmapped."""


def _spans_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


_COMPARISON_WORDS = re.compile(
    r"\b(?:at least|at most|(?:no |not )?(?:more|less|fewer|greater) than|a (?:minimum|maximum) of)\b"
)
"""Comparisons that only bound a number or a date (not "over" or "under", which also say "under New York law")."""
_LOWER_BOUNDS, _UPPER_BOUNDS = (">", ">="), ("<", "<=")
_RANGE_OPS = {*_LOWER_BOUNDS, *_UPPER_BOUNDS, "between"}


def joined_bounds(first: Constraint, second: Constraint, field_type: str) -> Constraint | str:
    """A lower and an upper bound the question sets on one field ("at least 3 and at most 4", "after 2015 and before
    2020", "more than 10 and less than 20") as the one condition a field takes, `between`; else why they cannot be
    one. An excluded end of a whole-number or date field moves in to the next value ("more than 3 and less than 6"
    is between 4 and 5); a field of decimals has no next value, and its end stays excluded (`bounds`)."""
    lower = next((c for c in (first, second) if c.op in _LOWER_BOUNDS), None)
    upper = next((c for c in (first, second) if c.op in _UPPER_BOUNDS), None)
    both = f"{first.source_text!r} and {second.source_text!r}"
    if lower is None or upper is None:
        return f"{both} both bound {first.field}; ask with one range ('between X and Y') or one bound"
    low, high = _included_end(lower, field_type, +1), _included_end(upper, field_type, -1)
    bounds = "[]"
    if low is None or high is None:  # decimals: no next value to move an excluded end to
        low, high = lower.value, upper.value
        bounds = bounds_of(lower.op, upper.op)
    if low > high or (low == high and bounds != "[]"):
        return f"no {first.field} can be {both}"
    said = f"{lower.source_text} and {upper.source_text}"
    return first.model_copy(update={"op": "between", "value": [low, high], "bounds": bounds, "source_text": said})


def _included_end(bound: Constraint, field_type: str, step: int) -> Any:
    """The bound as an included end: itself when its operator includes it, else the next whole number or day past
    it in the direction `step`; None on a field of decimals, which has no next value."""
    if bound.op in (">=", "<="):
        return bound.value
    if field_type == "integer":
        return math.floor(bound.value) + 1 if step > 0 else math.ceil(bound.value) - 1
    if field_type == "date":
        return (date.fromisoformat(bound.value) + timedelta(days=step)).isoformat()
    return None


class RuleDecomposer:
    """question -> Decomposition, from the catalog: buckets, field catalogs, value lists, closeness of content."""

    def __init__(self, catalog: Catalog, today: date | None = None):
        self.catalog = catalog
        self.vocabulary = Vocabulary(catalog)
        self.today = today or date.today()

    def decompose(self, question: str, within: list[str] | None = None) -> Decomposition:
        """`within`: the buckets a follow-up question stays in unless its words name another. A reading that would
        answer another question than the one asked (another bucket's documents, a condition left out) is returned
        with what could not be used as `unmapped`, so that the run asks."""
        d = self._read(question, within)
        if absent := another_bucket_or_noun(d, self.vocabulary, self.catalog):
            return d.model_copy(update={"unmapped": [absent]})
        if other := self._bucket_instead(d):
            d = self._read(question, within, forced=other)
        if not d.unmapped and not within and (left_out := condition_left_out(d, self.vocabulary)):
            return d.model_copy(update={"unmapped": [left_out]})
        return d

    def _bucket_instead(self, d: Decomposition) -> str | None:
        """Another bucket to read the question in: the one holding every name left unmatched (unless the question
        says its bucket by name), or, for a sum in a bucket without amounts, the closest bucket with some."""
        names_left = d.unmapped and not any(u.why for u in d.unmapped)
        if names_left and not self._names_a_bucket_by_name(d) and (holding := self._bucket_holding(d)):
            return holding
        if d.intent == "sum" and d.aggregate is None:
            return self._bucket_with_amounts(d)
        return None

    def _bucket_with_amounts(self, d: Decomposition) -> str | None:
        """For a sum or average asked of a bucket chosen by closeness that holds no amount ("How much did we spend
        at Starbuks?" is close to a Wikipedia paragraph): the closest bucket that has an amount field."""
        if d.constraints or d.doc_ids or self.vocabulary.named_buckets(d.question.lower()):
            return None
        with_amounts = [b for b, view in self.vocabulary.buckets.items() if view.role("money")]
        closeness = self.catalog.closeness(d.question)
        ranked = sorted(with_amounts, key=lambda b: closeness.get(b, -1.0), reverse=True)
        return ranked[0] if ranked else None

    def _names_a_bucket_by_name(self, d: Decomposition) -> bool:
        """The question says a bucket's own name ("receipts", "contract"), not just a word of it ("bill"): then an
        unmatched name is looked for in that bucket only ("receipts from ab" is not the contracts of Ameris Bancorp,
        whose initials are AB)."""
        lowered = d.question.lower()
        return any(find_mentions(lowered, [b, b.rstrip("s")], whole=True) for b in self.vocabulary.buckets)

    def _bucket_holding(self, d: Decomposition) -> str | None:
        """The one other bucket whose values every unmapped phrase names: "largest gardenia bill" says "bill"
        (an invoice word) of a shop whose receipts are in another bucket. Not for words whose `why` says what the
        index lacks (a currency the amounts are not in, a word no document holds): they name no value."""
        holding = []
        for name, view in self.vocabulary.buckets.items():
            if name in d.buckets:
                continue
            fields = view.typed("string")
            if all(any(view.values(f).match(normalise(u.text).split(), STOPWORDS) for f in fields) for u in d.unmapped):
                holding.append(name)
        return holding[0] if len(holding) == 1 else None

    def _read(self, question: str, within: list[str] | None, forced: str | None = None) -> Decomposition:
        """One reading: document ids, buckets (`forced` when another bucket holds the unmapped names), intent,
        constraints per bucket, what is left unmapped, and what the answer shows."""
        text = " ".join(question.split())
        lowered = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text.lower())
        used: list[tuple[int, int]] = []
        doc_ids = self._doc_ids(text, used)
        buckets, mentions = ([forced], []) if forced else self._buckets(text, lowered, within, doc_ids)
        views = [self.vocabulary.buckets[b] for b in buckets]
        reading = read_intent(lowered, views)
        if doc_ids and reading.intent not in ("qa", "summarize"):
            reading = Reading("lookup")
        elif reading.intent is None and _opens_with_a_field(lowered, views):
            reading = replace(reading, intent="lookup")  # "VAT number on the Free invoice?"
        elif reading.intent is None and mentions and not _QUESTION_START.match(lowered):
            reading = replace(reading, intent="list")  # "starbucks receipts": a bucket named, nothing asked
        used += reading.spans
        unmapped: list[Unmapped] = []
        constraints: list[Constraint] = []
        for view in views:
            named = [m for bucket, ms in mentions for m in ms if bucket == view.name]
            constraints += self._constraints(view, text, lowered, used, named, unmapped)
        intent = reading.intent or ("list" if constraints else "qa")
        understood = used + [m.span for _, ms in mentions for m in ms]
        if intent in STRUCTURED_INTENTS and not doc_ids:
            value_spans = [
                s for s in used if any(c.source_text and text[s[0] : s[1]] in c.source_text for c in constraints)
            ]
            unmapped += self._unmapped(
                text,
                lowered,
                understood,
                views,
                [m.span for _, ms in mentions for m in ms],
                value_spans,
                NAME_SLOT | (AMOUNT_SLOT if intent == "sum" else set()),
            )
            about_text = not (constraints or reading.order_by or reading.group_by) and _content(lowered, understood)
            documents_asked = intent == "count" and mentions or intent == "list" and unmapped and mentions
            if about_text and intent in ("list", "count") and not documents_asked:
                # "which came out later, X or Y", "which magazine started first, X or Y", "over how many centuries
                # were the tombs built?", a claim that says "count": no bucket, value, order or grouping named, so
                # words to search for, not a list or a count of documents
                intent, unmapped = "qa", []
        else:
            unmapped = []
        if intent not in STRUCTURED_INTENTS and not doc_ids:
            fields = set().union(*(view.field_words_all for view in views))
            unmapped = self._absent(
                [w for w in _asked_about(lowered, understood) if w not in fields], buckets, constraints
            )
        reading = replace(reading, intent=intent)
        if intent == "sum" and not reading.measure:
            unmapped.append(Unmapped(text=f"an amount to add up in {', '.join(buckets)}"))
        if intent in ("qa", "summarize") and mentions and not (constraints or doc_ids):
            buckets = self._with_closest(text, buckets)
        show = self._shown_fields(views, lowered, used, {c.field for c in constraints}, reading)
        aggregate, group_by, unit_field = self._aggregate(reading, views, constraints)
        return Decomposition(
            question=text,
            intent=intent,
            buckets=buckets,
            constraints=constraints,
            topic_terms=_topic_terms(lowered, understood),
            sub_queries=_sub_queries(text, intent),
            aggregate=aggregate,
            group_by=group_by,
            unit_field=unit_field,
            order_by=reading.order_by,
            limit=reading.limit,
            show_fields=show if intent in ("list", "lookup") else [],
            doc_ids=sorted(doc_ids),
            unmapped=unmapped,
        )

    # -- documents and buckets ----------------------------------------------------------------------------

    def _doc_ids(self, text: str, used: list[tuple[int, int]]) -> dict[str, str]:
        """Document ids the question names ("receipt X51005361907", "cuad_042"), with their buckets."""
        candidates = {m.group(0).rstrip(".?"): m.span() for m in _DOC_ID.finditer(text)}
        if not candidates:
            return {}
        found = self.catalog.documents(list(candidates))
        for doc_id in found:
            used.append(candidates[doc_id])
        return found

    def _buckets(
        self, text: str, lowered: str, within: list[str] | None, doc_ids: dict[str, str]
    ) -> tuple[list[str], list[tuple[str, list[Mention]]]]:
        """The buckets, and where the words name them. The bucket of a document the question names; a bucket the
        words name; else the one bucket whose values the question names, unless its content is clearly farther
        from the question than another bucket's (a value is a weak sign on its own: "Virginia" in "Virginia Woolf"
        also matches a governing law); else the bucket whose content is closest."""
        if doc_ids:
            return list(dict.fromkeys(doc_ids.values())), []
        named = self.vocabulary.named_buckets(lowered)
        if named:
            return [b for b, _ in named][:2], named[:2]
        if within := [b for b in within or () if b in self.vocabulary.buckets]:
            return within, []
        by_values = [b for b, view in self.vocabulary.buckets.items() if self._names_a_value(view, lowered)]
        closeness = self.catalog.closeness(text) if len(self.vocabulary.buckets) > 1 else {}
        closest = max(closeness, key=closeness.get) if closeness else None
        if len(by_values) == 1 and (
            closest is None or closeness.get(by_values[0], -1.0) >= closeness[closest] - VALUE_BUCKET_MARGIN
        ):
            return by_values, []
        buckets = self.vocabulary.buckets
        return [closest or ("generic" if "generic" in buckets else next(iter(buckets)))], []

    def _with_closest(self, text: str, buckets: list[str]) -> list[str]:
        """A question for text that names a bucket ("why did the invoice export job stop?") may be answered by a
        document of another (the postmortem among the memos): the bucket whose content is closest is searched too."""
        closeness = self.catalog.closeness(text) if len(self.vocabulary.buckets) > 1 else {}
        closest = max(closeness, key=closeness.get) if closeness else None
        return buckets if closest is None or closest in buckets else [*buckets, closest]

    def _names_a_value(self, view: BucketWords, lowered: str) -> bool:
        """Whether the question names a whole value of one of the bucket's short-listed fields (a governing law, a
        currency, a kind of document), or a currency its currency field holds ("Indian rupees"): the sign that
        picks a bucket no word names."""
        for f in view.role("currency"):
            held = set(view.values(f).values)
            if any(set(m.codes) & held for m in currency_mentions(lowered, held)):
                return True
        said = f" {normalise(lowered)} "
        return any(f" {value} " in said or f" {value}s " in said for value in view.short_values)

    # -- constraints ----------------------------------------------------------------------------------------

    def _constraints(
        self,
        view: BucketWords,
        text: str,
        lowered: str,
        used: list,
        mentions: list[Mention],
        unmapped: list[Unmapped],
    ) -> list[Constraint]:
        found: dict[str, Constraint] = {}

        def add(f: CatalogField, op: str, value, span: tuple[int, int], source: str) -> None:
            used.append(span)
            said = Constraint(bucket=view.name, field=f.name, op=op, value=value, source_text=source)
            before = found.setdefault(f.name, said)
            if before is said or not {before.op, op} <= _RANGE_OPS:
                return
            joined = joined_bounds(before, said, f.type)  # a field takes one condition: one range, or a question
            if isinstance(joined, Constraint):
                found[f.name] = joined
            else:
                unmapped.append(Unmapped(text=source, why=joined))

        self._kinds(view, lowered, mentions, add, used, unmapped)
        self._dates(view, lowered, add, used, unmapped)
        self._quantities(view, lowered, add, used, unmapped)
        self._dangling_comparisons(lowered, unmapped)
        self._currencies(view, text, add, used, unmapped)
        self._flags(view, lowered, add, used)
        self._values(view, text, lowered, add, used)
        return list(found.values())

    def _kinds(self, view: BucketWords, lowered: str, mentions: list[Mention], add, used: list, unmapped) -> None:
        """A bucket word that names a kind of document ("NDAs", "leases"), or the words just before a bucket word
        ("distributor agreements", "joint venture agreements"), constrain the bucket's kind field to the kinds they
        match, by their words or, failing that, by meaning ("confidentiality agreements" are Non-Disclosure
        Agreements). A kind word that matches none, in a bucket where every document has a kind, is unmapped: no
        document is of that kind (a bucket with documents of no recorded kind, such as abstracts beside memos, may
        still hold them, so there the word only names the bucket)."""
        kind = view.kind
        if kind is None:
            return
        index = view.values(kind)
        kinds: list[str] = []
        said: list[tuple[tuple[int, int], str]] = []
        for m in mentions:
            before = list(_TOKEN.finditer(lowered[: m.span[0]]))[-3:]
            for start in range(len(before) + 1):
                span = (before[start].start() if start < len(before) else m.span[0], m.span[1])
                if any(_spans_overlap(span, s) for s in used):
                    continue
                words = [singular(w) for w in normalise(lowered[span[0] : span[1]]).split()]
                if set(words) <= view.generic_words or words[0] in STOPWORDS:
                    continue
                match = index.match(words, view.generic_words, fuzzy=False)
                if match:
                    kinds += [v for v in match.values if v not in kinds]
                    said.append((span, lowered[span[0] : span[1]]))
                    break
                if start < len(before):
                    continue
                meant = self.catalog.nearest_in_meaning(" ".join(words), index.values)
                if meant and meant[1] >= KIND_MEANING:
                    kinds.append(meant[0])
                    said.append((span, lowered[span[0] : span[1]]))
                elif kind.doc_count >= self.catalog.buckets[view.name].documents:
                    nearest = [Candidate(field=kind.name, value=v) for v in index.nearest(m.text)]
                    unmapped.append(Unmapped(text=m.text, nearest=nearest))
        if kinds:
            for span, _ in said[1:]:
                used.append(span)
            add(kind, *_equal_or_in(kinds), said[0][0], " / ".join(text for _, text in said))

    def _currencies(self, view: BucketWords, text: str, add, used: list, unmapped: list[Unmapped]) -> None:
        """A currency named ("US dollars", "€", "rupees") constrains the bucket's currency field. Over a bucket whose
        amounts carry no currency field it can only say what the amounts are in, and is taken so only when that
        can be true (`_not_amounts_in`); otherwise it is unmapped: a figure "in yen" over amounts in ringgit would be a
        wrong answer that looks like one."""
        fields = view.role("currency")
        if not fields and not view.role("money"):
            return
        held = set(view.values(fields[0]).values) if fields else set()
        mentions = [m for m in currency_mentions(text, held) if not any(_spans_overlap(m.span, s) for s in used)]
        if not fields:
            used += [m.span for m in mentions]
            for m in mentions:
                if why := self._not_amounts_in(view, m):
                    unmapped.append(Unmapped(text=m.text, why=why))
            return
        codes = list(dict.fromkeys(code for m in mentions for code in m.codes))
        if codes:
            source = " / ".join(m.text for m in mentions)
            add(fields[0], *_equal_or_in(codes), mentions[0].span, source)
            used += [m.span for m in mentions[1:]]

    def _not_amounts_in(self, view: BucketWords, mention: CurrencyMention) -> str | None:
        """Why the amounts of a bucket with no currency field cannot be in the currency named, or None when they may
        be. A currency the catalog gives the money field (`ragent catalog describe ... --unit MYR`) decides;
        without one, the documents' own text must write the currency in at least CURRENCY_SHARE of them (SROIE's
        receipts print "RM" on three in four; "euro" is on six of 973, in a street name)."""
        units = {f.unit for f in view.role("money") if f.unit}
        if units:
            return (
                None if units & set(mention.codes) else f"the amounts of {view.name} are in {', '.join(sorted(units))}"
            )
        documents = self.catalog.buckets[view.name].documents
        written = self.catalog.text_hits(view.name, " ".join(currency_words(mention.codes)))
        if written is None or written >= CURRENCY_SHARE * documents:
            return None  # written in it, or the keyword index cannot say
        return (
            f"no currency is recorded with the amounts of {view.name}, and their text does not say they are in "
            f"{mention.text} ({', '.join(mention.codes)}); amounts are not converted"
        )

    def _dates(self, view: BucketWords, lowered: str, add, used: list, unmapped: list[Unmapped]) -> None:
        date_fields = view.typed("date")
        if not date_fields:
            return
        ranges = relative_dates(lowered, self.today)
        measured = [q.span for q in quantities(lowered) if q.unit or q.money]  # "more than 2000 days" is no year
        ranges += [
            d
            for d in date_ranges(lowered)
            if not any(_spans_overlap(d.span, r.span) for r in ranges)
            and not any(_spans_overlap(d.span, q) for q in measured)
        ]
        for d in ranges:
            if not any(_spans_overlap(d.span, s) for s in used):
                add(self._date_field(view, date_fields, lowered, d), d.op, d.value, d.span, d.text)
        for m in _MONTH_WORD.finditer(lowered):
            if not any(_spans_overlap(m.span(), r.span) for r in ranges) and not any(
                _spans_overlap(m.span(), s) for s in used
            ):
                unmapped.append(Unmapped(text=f"{m.group(0)} (of which year?)"))  # a month needs a year
                used.append(m.span())

    def _date_field(
        self, view: BucketWords, date_fields: list[CatalogField], lowered: str, d: DateRange
    ) -> CatalogField:
        """The date field the question's words name (nearest to the date first), else the most common one."""

        return max(date_fields, key=lambda f: (_nearness(view.field_mentions(lowered, f), d.span), f.doc_count))

    def _quantities(self, view: BucketWords, lowered: str, add, used: list, unmapped: list[Unmapped]) -> None:
        for q in quantities(lowered):
            if any(_spans_overlap(q.span, s) for s in used):
                continue
            numeric = view.typed("integer", "number")
            if q.unit:
                candidates = [f for f in numeric if f.unit == "days" or f.name.endswith("_days")]
            else:
                candidates = [f for f in numeric if f.unit != "days" and not f.name.endswith("_days")]
                if not q.money:
                    candidates = [f for f in candidates if view.field_mentions(lowered, f)] or [
                        f for f in candidates if f.role == "money"
                    ]
            if not candidates:
                unmapped.append(Unmapped(text=q.text))  # "more than two parties": no number field says it
                continue
            target = max(
                candidates,
                key=lambda f: (
                    _nearness(view.field_mentions(lowered, f), q.span),
                    f.role == "money",
                    "duration" in f.aliases,
                    f.kind == "properties",  # the document's own amount before a line item's
                    f.doc_count,
                ),
            )
            scale = in_days(q) / q.value if q.unit and q.value else 1.0
            low = round(q.value * scale, 2)
            value = [low, round(q.high * scale, 2)] if q.op == "between" else low
            add(target, q.op, value, q.span, q.text)
            self._measured_in(view, target, lowered, q.span, add, used, unmapped)

    def _dangling_comparisons(self, lowered: str, unmapped: list[Unmapped]) -> None:
        """A comparison with no number or date this planner can read after it ("at least X", "at most ??", "less
        than half") bounds nothing, and the figure would silently count without it: unmapped, so the run asks."""
        read = [q.span for q in quantities(lowered)]
        read += [d.span for d in (*date_ranges(lowered), *relative_dates(lowered, self.today))]
        for m in _COMPARISON_WORDS.finditer(lowered):
            if not any(_spans_overlap(m.span(), span) for span in read):
                after = re.match(r"\s*[^\s?.,;]*", lowered[m.end() :]).group()
                unmapped.append(
                    Unmapped(
                        text=(m.group() + after).strip(), why="no number or date this can compare with is read after it"
                    )
                )

    def _measured_in(self, view: BucketWords, target: CatalogField, lowered: str, span, add, used, unmapped) -> None:
        """The unit said after a number ("above 20 V", "20 volts"), as a constraint on the field that records the
        number's unit: 400 mV is not above 20 V. A unit the field's rows never hold is unmapped (the rows cannot
        say which are in it). Currencies are read apart (`_currencies`)."""
        unit_field = view.get(target.unit_field) if target.unit_field else None
        said = _UNIT_AFTER.match(lowered, span[1])
        if unit_field is None or unit_field.role == "currency" or not said:
            return
        word = said.group(1)
        held = {str(v).lower(): str(v) for v, _ in self.catalog.values(view.name, unit_field.name)}
        unit = held.get(UNIT_WORDS.get(word, word))
        if unit is not None:
            add(unit_field, "=", unit, said.span(1), word)
        elif word in UNIT_WORDS:
            unmapped.append(
                Unmapped(
                    text=said.group(0).strip(),
                    why=f"no {target.name} of {view.name} is recorded in {word} "
                    f"(units held: {', '.join(held.values())})",
                )
            )
            used.append(said.span(1))

    def _flags(self, view: BucketWords, lowered: str, add, used: list) -> None:
        """A yes/no field named by its words or aliases; false when a negation stands just before it."""
        for f in view.typed("boolean"):
            mentions = [m for m in _flag_mentions(view, f, lowered) if not any(_spans_overlap(m.span, s) for s in used)]
            if mentions:
                m = mentions[0]
                negated = NEGATIONS.search(lowered[max(0, m.span[0] - 25) : m.span[0]]) is not None
                add(f, "=", not negated, m.span, m.text)

    def _values(self, view: BucketWords, text: str, lowered: str, add, used: list) -> None:
        """Text values the phrases of the question name (a country also by its demonym), longest phrases first, one
        field per phrase: the field the question's words name, then a field of names or kinds before free text,
        then the best match, then the most documents. Phrases naming values of one field joined by "or", "and" or a
        comma are alternatives ("Kestrel or Silverleaf"); side by side, they are one name ("Popular bookstore": the
        values both match, or the first phrase's when none does)."""
        generic = self.vocabulary.bucket_words | view.field_words_but_flags | STOPWORDS | FILLER
        fields = [f for f in view.typed("string") if f.role != "currency"]
        mentioned = {f.name for f in fields if view.field_mentions(lowered, f)}
        named: dict[str, tuple[CatalogField, list[str], list[tuple[int, int]], list[str]]] = {}
        first_said: dict[str, int] = {}
        for words, span in _phrases(lowered, used, generic):
            if any(_spans_overlap(span, s) for s in used):
                continue
            best = None
            said = text[span[0] : span[1]]
            name_like = len(words) > 1 or any(c.isupper() for c in said)
            for f in fields:
                match = view.values(f).match(words, generic, fuzzy=name_like)
                if match and len(match.values) <= MAX_NAMED_VALUES:
                    rank = (
                        f.name in mentioned,
                        f.role != "text",
                        QUALITY[match.how],
                        match.whole,
                        f.doc_count,
                    )
                    if best is None or rank > best[0]:
                        best = (rank, f, match.values)
            if best is not None and not name_like and not self._named_rather_than_said(view, words, best):
                best = None
            if best is None:
                country = DEMONYMS.get(" ".join(words))
                best = self._demonym(view, fields, lowered, country) if country else None
            if best is None:
                continue
            _, f, values = best
            used.append(span)
            for v in values:
                first_said[v] = min(first_said.get(v, span[0]), span[0])
            if f.name not in named:
                named[f.name] = (f, list(values), [span], [text[span[0] : span[1]]])
                continue
            _, kept, spans, sources = named[f.name]
            between = lowered[min(spans[-1][1], span[1]) : max(spans[-1][0], span[0])]
            if re.search(r"\b(?:or|and)\b|,|/", between) or not between.strip():
                if re.search(r"\b(?:or|and)\b|,|/", between):
                    kept.extend(v for v in values if v not in kept)
                else:
                    kept[:] = [v for v in kept if v in values] or kept
            else:
                kept.extend(v for v in values if v not in kept)
            spans.append(span)
            sources.append(text[span[0] : span[1]])
        for f, values, spans, sources in named.values():
            order = sorted(range(len(spans)), key=lambda i: spans[i])
            spans, sources = [spans[i] for i in order], [sources[i] for i in order]
            values = sorted(values, key=lambda v: first_said.get(v, 0))
            negated = NEGATIONS.search(lowered[max(0, spans[0][0] - 25) : spans[0][0]]) is not None
            if negated:
                add(
                    f,
                    "!=" if len(values) == 1 else "not in",
                    values[0] if len(values) == 1 else values,
                    spans[0],
                    " / ".join(sources),
                )
            else:
                add(f, *_equal_or_in(values), spans[0], " / ".join(sources))

    def _named_rather_than_said(self, view: BucketWords, words: list[str], best) -> bool:
        """Whether a lowercase single word that matched a value of a name field is that name, not an ordinary word
        that also occurs in it: the documents' text must not hold it far more often than the value's documents are
        (COMMON_WORD). Kinds and short-listed values need no check."""
        _, f, values = best
        if f.role != "name" or len(words) > 1:
            return True
        documents = sum(n for v, n in self.catalog.values(view.name, f.name) if v in set(values))
        return (self.catalog.text_hits(view.name, words[0]) or 0) <= COMMON_WORD * max(documents, 1)

    def _demonym(self, view: BucketWords, fields: list[CatalogField], lowered: str, country: str):
        candidates = []
        for f in fields:
            values = [v for v in view.values(f).values if country.lower() in v.lower()]
            if values:
                candidates.append(((bool(view.field_mentions(lowered, f)), 0, True, len(values)), f, values))
        return max(candidates, key=lambda c: c[0]) if candidates else None

    # -- what else the question asks for --------------------------------------------------------------------

    def _shown_fields(
        self, views: list[BucketWords], lowered: str, used: list, asked: set[str], reading: Reading
    ) -> list[str]:
        """Fields the question asks to see ("what is the governing law of...", "when is it due", "where is the
        shop"): named by their words or aliases in a part of the question no constraint took."""
        shown = []
        for view in views:
            for f in view.fields:
                if f.name in asked or f.type == "boolean":
                    continue
                if any(not any(_spans_overlap(m.span, s) for s in used) for m in view.field_mentions(lowered, f)):
                    shown.append(f.name)
        if reading.order_by and reading.order_by.field not in shown:
            shown.append(reading.order_by.field)
        if not shown and reading.intent == "lookup" and re.match(r"who\b", lowered):
            shown = [f.name for view in views for f in view.role("name") if f.name not in asked]
        return shown

    def _aggregate(
        self, reading: Reading, views: list[BucketWords], constraints: list[Constraint]
    ) -> tuple[str | None, list[str], str | None]:
        """The aggregate of a count or sum, its groups, and the field holding the unit of the amounts when the
        question does not fix one: a sum of amounts whose unit is another field (an invoice's currency) is grouped
        by it, so that amounts in different units are never added together."""
        if reading.intent not in ("count", "sum") or not views or (reading.intent == "sum" and not reading.measure):
            return None, [], None
        group_by = list(reading.group_by)
        measure = reading.measure or "count"
        target = views[0].get(measure.split("(")[1].rstrip(")")) if "(" in measure else None
        fixed = {c.field for c in constraints if c.op == "="}
        if target and target.unit_field and target.unit_field not in fixed:
            if target.unit_field not in group_by:
                group_by.append(target.unit_field)
            return measure, group_by, target.unit_field
        return measure, group_by, None

    def _absent(self, words: list[str], buckets: list[str], constraints: list[Constraint]) -> list[Unmapped]:
        """Words naming what a question for text asks about (`_asked_about`) that no document it can be about
        holds (the keyword index finds no chunk with them): the documents its constraints allow ("the parental
        leave policy" is about policies), else every document of the scope, the question's own buckets first; a
        search that fails says nothing, so its words are not absent. The thing is in none of them ("bitcoin",
        "parental leave", a password), so the passages closest to it would answer another question."""
        filters = {b: {c.field: c.condition() for c in constraints if c.bucket == b} for b in buckets}
        if not any(filters.values()):
            filters = dict.fromkeys([*buckets, *(b for b in self.vocabulary.buckets if b not in buckets)])
        searched = {b: f for b, f in filters.items() if f is None or f}
        absent = [w for w in words if all(self.catalog.text_hits(b, w, f) == 0 for b, f in searched.items())]
        if not absent:
            return []
        held = "this word" if len(absent) == 1 else "these words"
        allowed = [c for c in constraints if c.bucket in searched]
        where = ", ".join(searched) + (
            f" where {' and '.join(f'{c.field} {c.op} {c.value}' for c in allowed)}" if allowed else ""
        )
        return [Unmapped(text=" ".join(absent), why=f"no document holds {held} (searched the text of {where})")]

    def _unmapped(
        self,
        text: str,
        lowered: str,
        understood: list,
        views: list[BucketWords],
        bucket_spans: list,
        value_spans: list,
        slots: set[str],
    ) -> list[Unmapped]:
        """Words of a count, sum or list question that stand where a name stands and that nothing took, with the
        nearest values of the buckets' name fields. Where a name stands: after one of `slots` ("from", "at", "by",
        "with", "of", "for"; in a sum also AMOUNT_SLOT), just before the bucket's noun ("starbucks receipts") or a
        clause word ("arbitration clause"), capitalised inside the sentence, or holding a digit ("ISO 45001").
        Other words left over ("came", "everything") only phrase the question. After "in", the nearest values are
        the currencies the buckets hold."""
        known = self.vocabulary.bucket_words | STOPWORDS | FILLER
        for view in views:
            known |= view.field_words_all
        tokens = list(_TOKEN.finditer(lowered))
        runs: list[list[int]] = []
        for i, m in enumerate(tokens):
            left = not any(_spans_overlap(m.span(), s) for s in understood) and _plain(m.group(0)) not in known
            if left and len(_plain(m.group(0))) > 1 and not m.group(0).isdigit() or left and _has_digit(m.group(0)):
                if runs and runs[-1][-1] == i - 1:
                    runs[-1].append(i)
                else:
                    runs.append([i])
        found = []
        for run in runs:
            first, last = tokens[run[0]], tokens[run[-1]]
            before = tokens[run[0] - 1].group(0) if run[0] > 0 else ""
            after = last.end()
            digits = any(_has_digit(tokens[i].group(0)) for i in run)
            if not digits and any(0 <= first.start() - s[1] <= 1 for s in value_spans):
                continue  # "the Free fibre invoice": words right after a name that matched describe it
            following = tokens[run[-1] + 1].group(0) if run[-1] + 1 < len(tokens) else ""
            slot = (
                before in slots
                or following in CLAUSE_WORDS
                or any(s[0] >= after and not lowered[after : s[0]].strip() for s in bucket_spans)
                or digits
                or any(tokens[i].start() > 0 and text[tokens[i].start()].isupper() for i in run)
            )
            if slot:
                phrase = text[first.start() : last.end()]
                nearest = [
                    Candidate(field=f.name, value=value)
                    for view in views
                    for f in view.role("name")
                    for value in view.values(f).nearest(phrase)
                ]
                if before == "in":
                    nearest = [
                        Candidate(field=f.name, value=value)
                        for view in views
                        for f in view.role("currency")
                        for value in view.values(f).values
                    ]
                found.append(Unmapped(text=phrase, nearest=nearest[:NEAREST]))
        return found


_ASKED_THING = re.compile(
    r"^(?:what|which|who)(?:['’]?s| is| are| was| were)? (?:the|our|your|its|their|my|a|an) (?P<thing>[^?,.;!]+)"
)
"""The thing a "what is the ..." question asks for (`_asked_about` reads it up to its first stop word)."""
_NAMED_THING = re.compile(r"\b(?:from|at|by|with|in|via) (?P<thing>[^?,.;!]+)")
"""What a preposition of means, place or source introduces ("paid in bitcoin", "paid by credit card"): documents
name such things as they are. Not "about" or "for", which introduce a topic the documents may put in other words
("say about uptime" is answered by an availability clause, "screening for poor eyesight" by vision screening)."""


_ASKING_VERBS = {
    "say", "says", "said", "state", "stated", "mention", "mentions", "mentioned", "require", "requires", "mean",
    "means", "cover", "covers", "cost", "costs", "take", "takes", "work", "works",
}  # fmt: skip
"""Verbs that end the thing a question names ("the note on working from home say ..."): they phrase the question."""
THING_WORDS = 3


def _asked_about(lowered: str, understood: list) -> list[str]:
    """The content words that name what a question for text is about: the thing a "what is the ..." question asks
    for, and the words a preposition introduces, each up to THING_WORDS words and never past a stop word or a verb
    that asks (`_ASKING_VERBS`), not taken by any reading. A question's other words may phrase it in words no
    document uses ("how do I get onto the VPN" is answered by how to install it), so they are not checked."""
    words = []
    for pattern in (_ASKED_THING, _NAMED_THING):
        for m in pattern.finditer(lowered):
            tokens = list(_TOKEN.finditer(lowered, m.start("thing"), m.end("thing")))[:THING_WORDS]
            for token in tokens:
                word = _plain(token.group(0))
                if word in STOPWORDS or word in _ASKING_VERBS:
                    break
                taken = any(_spans_overlap(token.span(), s) for s in understood)
                if not taken and len(word) > 2 and not word.isdigit() and word not in FILLER:
                    words.append(word)
    return list(dict.fromkeys(words))


def _opens_with_a_field(lowered: str, views: list[BucketWords]) -> bool:
    """Whether the question starts by naming a field of a document ("VAT number on ...", "effective date of ...")."""
    return any(m.span[0] == 0 for view in views for f in view.fields for m in view.field_mentions(lowered, f))


UNIT_WORDS = {
    "volt": "v",
    "volts": "v",
    "millivolt": "mv",
    "millivolts": "mv",
    "amp": "a",
    "amps": "a",
    "ampere": "a",
    "amperes": "a",
    "milliamp": "ma",
    "milliamps": "ma",
    "ohms": "ohm",
    "watt": "w",
    "watts": "w",
    "milliwatt": "mw",
    "milliwatts": "mw",
    "percent": "%",
    "hertz": "hz",
}
"""Units said in words, as the symbols a datasheet's unit field holds (compared without case: "mv" is "mV")."""
_UNIT_AFTER = re.compile(r"\s*([a-z][a-z/]{0,10}|%)(?![a-z])")


def _plain(token: str) -> str:
    """A token without its clitic: "what's" -> "what", "don't" -> "do", "state's" -> "state"."""
    return re.sub(r"(?:n['’]t|['’](?:s|re|ve|ll|d|m)?)$", "", token.strip(".'’"))


def _has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)


def _nearness(mentions: list[Mention], span: tuple[int, int]) -> float:
    """How close the nearest mention of a field is to a quantity or date (1 adjacent, 0 for no mention): "at least
    90 days notice to stop renewal" is about the notice."""
    gaps = [max(m.span[0] - span[1], span[0] - m.span[1], 0) for m in mentions]
    return 1.0 / (1 + min(gaps)) if gaps else 0.0


def _equal_or_in(values: list) -> tuple[str, object]:
    return ("=", values[0]) if len(values) == 1 else ("in", values)


def _flag_mentions(view: BucketWords, f: CatalogField, lowered: str) -> list[Mention]:
    """A yes/no field's aliases, or its name's words close together in any order ("liability cap" for
    cap_on_liability, "non compete" and "noncompete" for non_compete)."""
    found = find_mentions(lowered, list(f.aliases))
    words = [w for w in f.name.split("_") if len(w) > 2 or w == "ip"]
    if not words:
        return found
    stems = [re.escape(stem(w, FLAG_STEM_CHARS)) if len(w) >= STEM_CHARS else re.escape(w) for w in words]
    for m in re.finditer(r"\b(?:" + "|".join(stems) + r")\w*(?:\W+\w+){0," + str(len(words) + 1) + "}", lowered):
        window = m.group(0)
        if all(re.search(rf"\b{s}", window) for s in stems):
            end = max(re.search(rf"\b{s}\w*", window).end() for s in stems)
            found.append(Mention((m.start(), m.start() + end), window[:end]))
    joined = re.search(rf"\b{''.join(stems)}\w*", lowered)
    if joined:
        found.append(Mention(joined.span(), joined.group(0)))
    return sorted(found, key=lambda m: m.span)


def _phrases(lowered: str, used: list, generic: set[str]) -> list[tuple[list[str], tuple[int, int]]]:
    """Runs of up to MAX_PHRASE_WORDS words no other reading took, longest first, each as normalised words with its
    span; a run starts and ends with a word that is not `generic` (a stop word, a bucket's or a field's word)."""
    tokens = [m for m in _TOKEN.finditer(lowered) if not any(_spans_overlap(m.span(), s) for s in used)]
    runs: list[list[re.Match]] = []
    for token in tokens:
        if runs and lowered[runs[-1][-1].end() : token.start()].strip(" ,'’") == "":
            runs[-1].append(token)
        else:
            runs.append([token])
    phrases = []
    for run in runs:
        for size in range(min(MAX_PHRASE_WORDS, len(run)), 0, -1):
            for i in range(len(run) - size + 1):
                part = run[i : i + size]
                words = normalise(" ".join(t.group(0) for t in part)).split()
                if words and not _generic(words[0], generic) and not _generic(words[-1], generic):
                    phrases.append((words, (part[0].start(), part[-1].end())))
    return sorted(phrases, key=lambda p: -len(p[0]))


def _generic(word: str, generic: set[str]) -> bool:
    return word in generic or word.removesuffix("s") in generic


def _content(lowered: str, understood: list) -> bool:
    """Whether words no reading took are left: what a search for text would look for."""
    return any(w not in FILLER for w in _topic_terms(lowered, understood))


def _topic_terms(lowered: str, used: list) -> list[str]:
    """Content words no constraint, bucket or intent took."""
    kept = "".join(" " if any(s <= i < e for s, e in used) else ch for i, ch in enumerate(lowered))
    return list(
        dict.fromkeys(
            w for w in re.findall(r"[a-z0-9]+", kept) if w not in STOPWORDS and len(w) > 2 and not w.isdigit()
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


def _sub_queries(text: str, intent: str) -> list[str]:
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
