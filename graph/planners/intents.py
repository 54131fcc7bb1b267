"""What a question asks for, read from its English: a count, a figure (sum, average, extreme), the document that
holds an extreme, the group with the most, a list, one value to look up, or text to read.

The words here are English, not a corpus's: which field an extreme or a grouping is on comes from the bucket's
vocabulary (the field the question names, else the field whose role or unit fits the word: "cheapest" is about
money, "longest" about a duration, "oldest" about a date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graph.decomposition import Intent, OrderBy
from graph.planners.vocabulary import BucketWords
from retrievers.postgres.field_catalog import CatalogField

SUPERLATIVES: dict[str, tuple[str, str]] = {
    "biggest": ("desc", "money"),
    "largest": ("desc", "money"),
    "highest": ("desc", "money"),
    "most expensive": ("desc", "money"),
    "priciest": ("desc", "money"),
    "maximum": ("desc", "money"),
    "max": ("desc", "money"),
    "smallest": ("asc", "money"),
    "lowest": ("asc", "money"),
    "cheapest": ("asc", "money"),
    "least expensive": ("asc", "money"),
    "minimum": ("asc", "money"),
    "min": ("asc", "money"),
    "longest": ("desc", "duration"),
    "shortest": ("asc", "duration"),
    "oldest": ("asc", "date"),
    "earliest": ("asc", "date"),
    "first": ("asc", "date"),
    "newest": ("desc", "date"),
    "latest": ("desc", "date"),
    "most recent": ("desc", "date"),
    "most recently": ("desc", "date"),
}
"""A superlative's direction, and what it is about when the question names no field."""
_SUPERLATIVE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, SUPERLATIVES), key=len, reverse=True)) + r")\b")
_MOST_SPENT = re.compile(r"\b(?:the )?(most|least) (?:we|i|you|they)(?: ever)? (?:spent|paid|spend|pay|billed)\b")
_MOST = re.compile(r"\b(?:the\s+)?(most|least|fewest|highest|largest|biggest|top)\b")
_COMPARE = re.compile(r"\b(compare|comparison|difference between|versus|vs\.?)(?!\w)")
_SUMMARY = re.compile(r"\b(summari[sz]e|summary|overview)\b")
_COUNT = re.compile(r"\b(how many|number of|count of|count|no\.? of|# of)\b|#\s*of\b")
_AVERAGE = re.compile(r"\b(average|avg|mean|typical)\b")
_SUM = re.compile(
    r"\b(sum(?: of)?|in total|total (?:of(?! (?:more|less|over|under|at|above|below))|amount|value|spend|spent|"
    r"paid|cost|billed|invoiced|charged|owed)|altogether|adds? up(?: to)?|"
    r"how much (?:did|was|were|have|has|do|does|is|are|in)|what did we (?:pay|spend)|come to|comes to|"
    r"total spend|spent in total|what(?:'s| is| was) the total|total\b(?=\W*$))",
)
_GROUPING = re.compile(
    r"\b(?:per|(?<!ed )(?<!made )(?<!sent )by|for each|for every|of each|each|grouped by|broken down by|"
    r"breakdown (?:of \w+ )?by|split by)\s+(?P<words>\w+(?:\s\w+)?)"
)
"""'per shop', 'by year', 'for each currency'; not 'governed by', 'issued by', 'made by' (those name a value)."""
_WHICH_MOST = re.compile(r"\bwhich\s+(?P<words>\w+(?:\s\w+)?)\b(?P<rest>.*)$")
_SPEND = re.compile(r"\b(spend|spent|paid|pay|billed|cost|amount|worth)\b")
_TEXT = re.compile(
    r"^(?:why|explain|describe)\b|\bhow (?:do|does|did|should|can|to|long (?:do|does|did|should|must))\b|"
    r"\bwhat (?:does|do|did)\b.{0,80}\b(?:say|says|state|states|require|requires|mean|cover)\b|"
    r"\bwhat (?:caused|happened)\b|\btell me about\b|\bwhat (?:is|are) the (?:rules|steps|policy|process)\b|"
    r"\b(?:have|has|need|needs) to\b|\bwhat (?:must|should|shall)\b"
)
"""A question for text: why, how to, what a document says, what happened, what one has to do ("what must the
employee return ...")."""
_LIST = re.compile(r"^(?:which|list|show|find|give me|get|any|are there any)\b|\ball (?:the |our )?\w+")
_LOOKUP = re.compile(
    r"^(?:what(?:'s| is| was| are)? (?:the|its)|what \w+ is|when|who(?:'s)?|where|how much (?:is|was) the)\b"
)
_VALUE_ASKED = re.compile(r"\bhow (?:much|long|big)\b|\bin days\b|\bvalue\b")
_WHAT_IS_THE = re.compile(r"\bwhat(?:'s| is| was) the\b")


@dataclass(frozen=True)
class Reading:
    intent: Intent | None
    """None when the words say nothing: a list when the question constrains fields, a question for text if not."""
    spans: list[tuple[int, int]] = field(default_factory=list)
    measure: str | None = None
    group_by: tuple[str, ...] = ()
    order_by: OrderBy | None = None
    limit: int | None = None


def read_intent(lowered: str, views: list[BucketWords]) -> Reading:
    """What the question asks for, the first reading that fits in this order: a summary, a comparison, the group
    with the most, an extreme, a count, a sum or average, text, a grouped figure, a list, a lookup; else None."""
    view = views[0] if views else None
    if m := _SUMMARY.search(lowered):
        return Reading("summarize", [m.span()])
    if m := _COMPARE.search(lowered):
        return Reading("compare", [m.span()])
    count = _COUNT.search(lowered)
    if view and (top := _group_with_most(lowered, view)):
        return top
    if view and not count and (extreme := _extreme(lowered, view)):
        return extreme
    if count:
        groups, spans = _grouping(lowered, view)
        return Reading("count", [count.span(), *spans], "count", groups)
    if view and (m := _AVERAGE.search(lowered) or _SUM.search(lowered)):
        function = "avg" if _AVERAGE.search(lowered) else "sum"
        target = _measured(lowered[: m.start()] + " " * (m.end() - m.start()) + lowered[m.end() :], view)
        if target is None:
            return Reading("sum", [m.span()])  # a figure asked of a bucket with no amount: the decomposer says so
        groups, spans = _grouping(lowered, view)
        return Reading("sum", [m.span(), *spans], f"{function}({target.name})", groups)
    if _TEXT.search(lowered):
        return Reading("qa")
    if view and (groups := _grouping(lowered, view))[0]:
        spent = _SPEND.search(lowered) or re.search(r"\btotals?\b", lowered)
        target = _measured(lowered, view) if spent else None
        if target is not None:  # "gardenia spend per month", "invoice total per currency"
            return Reading("sum", groups[1], f"sum({target.name})", groups[0])
        return Reading("count", groups[1], "count", groups[0])
    if _LIST.search(lowered) or (view and _asks_for_documents(lowered, view)):
        return Reading("list")
    if _LOOKUP.search(lowered):
        return Reading("lookup")
    return Reading(None)


def _asks_for_documents(lowered: str, view: BucketWords) -> bool:
    """'What contracts ...', 'what invoices ...': a question that starts by naming its bucket asks for a list."""
    first = re.match(r"what (\w+)", lowered)
    return bool(first) and any(first.group(1).startswith(alias.lower()) for alias in view.aliases if " " not in alias)


def _measured(lowered: str, view: BucketWords) -> CatalogField | None:
    """The number a sum or average is over: the numeric field the question names, else the bucket's money field."""
    numeric = view.typed("integer", "number")
    named = [f for f in numeric if view.field_mentions(lowered, f)]
    money = [f for f in numeric if f.role == "money"]
    if named and not any(f.role == "money" for f in named):
        # "the line items": a field of a kind of row that has an amount means that amount
        named += [f for f in money if f.kind in {n.kind for n in named} and f.kind != "properties"]
    chosen = named or money
    return max(chosen, key=lambda f: (f.role == "money", f.kind == "properties", f.doc_count)) if chosen else None


def _grouped_field(words: str, view: BucketWords, lowered: str) -> str | None:
    """The field a grouping names: a year or month of a date field, or a field by its words."""
    period = re.match(r"(year|month)s?\b", words)
    if period:
        dates = view.typed("date")
        if not dates:
            return None
        named = [f for f in dates if view.field_mentions(lowered, f)]
        chosen = max(named or dates, key=lambda f: f.doc_count)
        return f"{period.group(1)}({chosen.name})"
    named = [f for f in view.fields if f.type != "boolean" and view.field_mentions(words, f)]
    return max(named, key=lambda f: f.doc_count).name if named else None


def _grouping(lowered: str, view: BucketWords | None) -> tuple[tuple[str, ...], list[tuple[int, int]]]:
    if view is None:
        return (), []
    for m in _GROUPING.finditer(lowered):
        name = _grouped_field(m.group("words"), view, lowered)
        if name:
            period = re.match(r"(?:year|month)s?\b", m.group("words"))
            return (name,), [(m.start(), m.start("words") + period.end() if period else m.end())]
    return (), []


def _group_with_most(lowered: str, view: BucketWords) -> Reading | None:
    """'Which shop do we have the most receipts from?', 'which year has the most?', 'which law comes up most?':
    the groups of a field, the largest first, the first one the answer."""
    which = _WHICH_MOST.search(lowered)
    if not which or not _MOST.search(which.group("rest")):
        return None
    name = _grouped_field(which.group("words"), view, lowered)
    if name is None:
        return None
    target = _measured(which.group("rest"), view) if _SPEND.search(which.group("rest")) else None
    most = _MOST.search(lowered, which.start("rest"))
    spans = [which.span("words"), most.span()]
    if target is not None:
        return Reading("sum", spans, f"sum({target.name})", (name,), limit=1)
    return Reading("count", spans, "count", (name,), limit=1)


def _extreme(lowered: str, view: BucketWords) -> Reading | None:
    """A superlative: its value as a figure when the question asks for one ("how much was our biggest receipt",
    "longest NDA term, in days?", "the most we spent in one go"), else the document that holds it ("biggest
    receipt?", "oldest NDA")."""
    spent = _MOST_SPENT.search(lowered)
    if spent and (target := _measured(lowered, view)) is not None:
        return Reading("sum", [spent.span()], f"{'max' if spent.group(1) == 'most' else 'min'}({target.name})")
    m = _SUPERLATIVE.search(lowered)
    if not m or re.search(r"\ban?\s+$", lowered[: m.start()]):  # "a maximum voltage above 20 V" names a field
        return None
    direction, about = SUPERLATIVES[m.group(1)]
    target = _extreme_field(lowered, view, about)
    if target is None:
        return None
    mentioned = bool(view.field_mentions(lowered, target))
    named = mentioned and target.type != "date"
    # "what is the latest expiration date" asks for a date, "what is the oldest NDA" for the NDA
    value_asked = _VALUE_ASKED.search(lowered) or (mentioned and _WHAT_IS_THE.search(lowered))
    if not lowered.startswith("which") and (value_asked or named):
        function = "max" if direction == "desc" else "min"
        return Reading("sum", [m.span()], f"{function}({target.name})")
    return Reading("list", [m.span()], order_by=OrderBy(field=target.name, direction=direction), limit=1)


def _durations(view: BucketWords) -> list[CatalogField]:
    """Number fields in days, the one users call a duration first ("a 2-year NDA" is its term, not its notice)."""
    days = [f for f in view.typed("integer", "number") if f.unit == "days"]
    return sorted(days, key=lambda f: ("duration" not in f.aliases, -f.doc_count))


def _extreme_field(lowered: str, view: BucketWords, about: str) -> CatalogField | None:
    """The field a superlative is on: a number or date field the question names; else one that fits the word (money
    for "cheapest", a duration in days for "longest", a date for "oldest"; for "longest" in a bucket with no
    duration, the date that runs latest, such as a validity's end)."""
    orderable = view.typed("integer", "number", "date")
    named = [f for f in orderable if view.field_mentions(lowered, f)]
    if named:
        return max(named, key=lambda f: f.doc_count)
    numeric = view.typed("integer", "number")
    if about == "money":
        fitting = [f for f in numeric if f.role == "money" and f.kind == "properties"] or numeric
    elif about == "duration":
        fitting = _durations(view)
        if not fitting:
            dates = view.typed("date")
            return max(dates, key=lambda f: str(f.max or "")) if dates else None
    else:
        fitting = view.typed("date")
    return (
        fitting[0] if about == "duration" and fitting else max(fitting, key=lambda f: f.doc_count) if fitting else None
    )
