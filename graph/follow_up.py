"""Follow-up questions: whether a turn points back at the previous turn, and how it refines that turn's reading.

A thread is a conversation, and "Which of those have audit rights?" or "and in 2018?" mean nothing on their own:
they narrow, or shift, the result set the previous turn found. The rule planner reads such a turn within the
previous turn's buckets and merges the two readings here (the LLM planner is shown the previous reading instead).
Only words that point back make a turn a follow-up, never its likeness to the previous question: an unrelated
question on the same thread starts afresh, since silently keeping old constraints gives a wrong answer that looks
right, while a missed follow-up is visible and the user can say "of those".
"""

from __future__ import annotations

import re

from english.lexicon import STOPWORDS
from graph.decomposition import Constraint, Decomposition, Unmapped

POINTERS = re.compile(
    r"\b(?:those|these|(?:of|among|from|between)\s+them|which\s+ones|"
    r"(?:only|just|without)\s+the\s+(?:[\w-]+\s+){0,4}?ones|the\s+(?:[\w-]+\s+){1,3}?ones)\b"
)
"""Words that point back at the previous result ('which ones', 'just the popular ones', 'the november ones').
'them' alone is often the object of the question's own verb ('contracts that let either party terminate them'), so
it points back only in 'of them', 'among them'."""
THEIR_FIRST = re.compile(r"^(?:\S+\s+){0,3}?their\b")
"""'their' among a turn's first words ("what's their average calorie count?", "and their total?"): with nothing
before it for it to mean, it means the previous result; later it may mean the question's own noun ("contracts whose
notice period ... their renewal")."""
OPENERS = re.compile(r"^(?:and|what about|how about|same for)\b")
"""How a turn that continues the previous one starts ('and in 2018?', 'what about New York?')."""
FOLLOW_UP_WORDS = frozenset({"those", "these", "them", "their", "only", "just", "ones", "same", "among", "about"})
"""The pointing words themselves: not topics to search for."""
INTENT_WORDS = re.compile(
    r"\b(?:how many|number of|count|which|list|show|sum|total|average|avg|mean|how much|highest|lowest|largest|"
    r"smallest|biggest|most|least|summari[sz]e|summary|compare|adds? up|comes? to|spent|spend|paid)\b"
)
"""Words that say what the answer should be: a count, a list, a figure, a summary or a comparison."""
FIGURE = ("aggregate", "group_by", "order_by", "limit", "unit_field")
"""What comes with an intent: how a figure is computed and which rows a superlative keeps."""
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_WORD = re.compile(r"[a-z0-9]+")


def _lowered(question: str) -> str:
    return " ".join(question.lower().split())


def is_follow_up(question: str) -> bool:
    """Whether the question points back at the previous turn's result ('which of those…', 'how many of them',
    'only the Delaware ones', 'and in 2018?', 'what about…', 'same for…', "what's their average…")."""
    lowered = _lowered(question)
    pointed = OPENERS.match(lowered) or POINTERS.search(lowered) or THEIR_FIRST.match(lowered)
    return bool(pointed or _elliptical(lowered))


_PERIOD_WORDS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|\d+|last|this|next|year|month|week)\b"
)


def _elliptical(lowered: str) -> bool:
    """A turn that says only what to compute and a period ("how many in sept 2017?", "total for 2018?"): it has
    nothing to be about but the previous turn's result."""
    rest = _WORD.findall(_PERIOD_WORDS.sub(" ", INTENT_WORDS.sub(" ", lowered)))
    return _PERIOD_WORDS.search(lowered) is not None and all(w in STOPWORDS for w in rest)


def states_intent(question: str) -> bool:
    """Whether the question's own words say what the answer should be ('how many of them', 'which of those'), as
    'and in 2018?' or 'same for New York?' do not. Read on its own, such a turn is a list whenever it has a
    constraint; as a follow-up it keeps the previous turn's intent ('How many contracts were signed in 2022?' then
    'and in 2023?' is still a count)."""
    return INTENT_WORDS.search(OPENERS.sub("", _lowered(question))) is not None


def _is_date(c: Constraint) -> bool:
    values = c.value if isinstance(c.value, list) else [c.value]
    return bool(values) and all(isinstance(v, str) and _ISO_DATE.fullmatch(v) for v in values)


def _names_only_a_period(current: Decomposition) -> bool:
    """Whether the turn's words, besides what its constraints took and the pointing words, are stop words and
    numbers: 'and in 2018?' says when, not which date it means."""
    rest = _lowered(current.question)
    for c in current.constraints:
        if c.source_text:
            rest = rest.replace(_lowered(c.source_text), " ")
    return all(w in STOPWORDS or w in FOLLOW_UP_WORDS or w.isdigit() for w in _WORD.findall(rest))


def _dated_as_before(previous: Decomposition, current: Decomposition) -> list[Constraint]:
    """The current constraints, a bare period moved onto the date field the previous turn constrained: 'which expire
    in 2025?' then 'and in 2026?' asks about expiry again, while a bare year on its own would get whichever date
    field the decomposer finds first."""
    earlier = next((c for c in previous.constraints if _is_date(c)), None)
    if earlier is None or not _names_only_a_period(current):
        return current.constraints
    return [
        c.model_copy(update={"field": earlier.field}) if _is_date(c) and c.bucket == earlier.bucket else c
        for c in current.constraints
    ]


def _figure(asked: Decomposition, current: Decomposition) -> dict:
    """`FIGURE` from the turn whose intent the merge keeps, unless that turn was about other buckets, whose
    fields these are not (then none: the defaults)."""
    if asked.buckets != current.buckets:
        asked = Decomposition(question=current.question, intent=asked.intent, buckets=current.buckets)
    return {name: getattr(asked, name) for name in FIGURE}


def merge(previous: Decomposition, current: Decomposition) -> Decomposition:
    """The current turn as a refinement of the previous turn's result set.

    `current` is the turn read on its own within the previous turn's buckets (`RuleDecomposer.decompose(within=)`),
    so its buckets are the previous ones unless its words named another; the previous constraints carry over in the
    buckets that remain. A current constraint replaces the previous one on the same field ('and in 2018?' replaces
    the date range), the others stay. The intent is the current turn's when its words state one, else the previous
    turn's, and how its figure is computed comes with it (`FIGURE`). Everything else is the current turn's reading
    (the documents it names, the words it could not map)."""
    now = _dated_as_before(previous, current)
    unmapped = list(current.unmapped)
    if POINTERS.search(_lowered(current.question)):
        now, unmapped = _within(previous, now, unmapped)
    taken = {(c.bucket, c.field) for c in now}
    kept = [c for c in previous.constraints if c.bucket in current.buckets and (c.bucket, c.field) not in taken]
    asked = current if states_intent(current.question) else previous
    topics = [*previous.topic_terms, *(t for t in current.topic_terms if t not in FOLLOW_UP_WORDS)]
    shown = list(dict.fromkeys([*previous.show_fields, *current.show_fields]))
    return current.model_copy(
        update={
            "intent": asked.intent,
            "constraints": [*kept, *now],
            "unmapped": unmapped,
            "topic_terms": list(dict.fromkeys(topics)),
            "sub_queries": [f"{q} {current.question}" for q in previous.sub_queries] or current.sub_queries,
            **_figure(asked, current),
            "show_fields": shown if asked.intent in ("list", "lookup") else [],
            "follow_up_of": previous.question,
        }
    )


def _within(
    previous: Decomposition, now: list[Constraint], unmapped: list[Unmapped]
) -> tuple[list[Constraint], list[Unmapped]]:
    """A turn that points back ("which of them are also governed by Delaware law?") asks within the previous result,
    so a condition on a field the previous turn constrained must hold as well as that one, not replace it: the two
    become the one condition meaning both. Where no one condition does (New York and also Delaware), the previous
    condition stays and the new one is left unmapped with the reason, so the run asks instead of answering about
    other documents."""
    earlier = {(c.bucket, c.field): c for c in previous.constraints}
    combined = []
    for c in now:
        before = earlier.get((c.bucket, c.field))
        if before is None:
            combined.append(c)
        elif (both := _both(before, c)) is not None:
            combined.append(both)
        else:
            combined.append(before)
            unmapped.append(
                Unmapped(
                    text=c.source_text or str(c.value),
                    why=f"the previous question already asks for {before.field} {before.op} {before.value!r}, and "
                    f"which of those documents also have {c.field} {c.op} {c.value!r} cannot be searched for in one "
                    "step; ask for both again, or for the new condition alone",
                )
            )
    return combined, unmapped


def _both(a: Constraint, b: Constraint) -> Constraint | None:
    """The one condition meaning `a` and `b` on the same field: the values both allow, or the range both allow;
    None when one condition cannot say it (different values, which a field holding several may have together)."""
    if a.op == b.op and a.value == b.value and a.bounds == b.bounds:
        return b
    values_a, values_b = _values(a), _values(b)
    if values_a is not None and values_b is not None:
        kept = [v for v in values_b if _folded(v) in {_folded(w) for w in values_a}]
        if not kept:
            return None
        return b.model_copy(
            update={"op": "=" if len(kept) == 1 else "in", "value": kept[0] if len(kept) == 1 else kept}
        )
    range_a, range_b = _range(a), _range(b)
    if range_a is None or range_b is None:
        return None
    low = max(range_a[0], range_b[0], key=_low_order)
    high = min(range_a[1], range_b[1], key=_high_order)
    if low is None and high is None:
        return None
    if low is not None and high is not None:
        if low[0] > high[0] or (low[0] == high[0] and not (low[1] and high[1])):
            return None
        bounds = ("[" if low[1] else "(") + ("]" if high[1] else ")")
        return b.model_copy(update={"op": "between", "value": [low[0], high[0]], "bounds": bounds})
    end, included = low or high
    op = (">=" if included else ">") if low else ("<=" if included else "<")
    return b.model_copy(update={"op": op, "value": end, "bounds": "[]"})


def _folded(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def _values(c: Constraint) -> list | None:
    """The values an equality or membership allows; None for a range."""
    if c.op == "=" and not isinstance(c.value, list):
        return [c.value]
    if c.op == "in" and isinstance(c.value, list):
        return c.value
    return None


_End = tuple[object, bool] | None
"""An end of a range: the value, and whether it is included; None when the range is open on that side."""


def _range(c: Constraint) -> tuple[_End, _End] | None:
    """The range of values a comparison allows, as (low end, high end); None for anything else."""
    if isinstance(c.value, bool) or c.op not in ("between", ">", ">=", "<", "<="):
        return None
    if c.op == "between":
        if not isinstance(c.value, list) or len(c.value) != 2:
            return None
        return (c.value[0], c.bounds[0] == "["), (c.value[1], c.bounds[1] == "]")
    if c.op in (">", ">="):
        return (c.value, c.op == ">="), None
    return None, (c.value, c.op == "<=")


def _low_order(end: _End) -> tuple:
    """Orders low ends: an open side first, then by value, an excluded end above an included one."""
    return (0,) if end is None else (1, end[0], not end[1])


def _high_order(end: _End) -> tuple:
    """Orders high ends: by value, an excluded end below an included one, an open side last."""
    return (1,) if end is None else (0, end[0], end[1])
