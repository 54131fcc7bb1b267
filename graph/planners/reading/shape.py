"""What the answer shows, once the question is read: the fields a list or lookup shows, the aggregate and groups of
a figure (with the field holding its amounts' unit), and the searches of a question for text."""

from __future__ import annotations

import re
from itertools import pairwise

from english.intents import DATE_ASKED, asking, is_claim
from english.lexicon import STOPWORDS
from english.names import proper_names
from graph.decomposition import Constraint, Decomposition
from graph.planners.reading import leftovers
from graph.planners.reading.claims import overlap
from graph.planners.reading.intent import Reading
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords


def decomposition(
    question: Question,
    reading: Reading,
    buckets: list[str],
    views: list[BucketWords],
    constraints: list[Constraint],
    claimed: list,
    understood: list,
    doc_ids: dict[str, str],
) -> Decomposition:
    """The reading as a decomposition: with the fields a list or lookup shows, the figure asked for, the content
    words left for a search (`understood`: every span a reading took) and the searches to run."""
    checks, constraints = checked(question.lowered, reading, views, constraints, doc_ids)
    show = shown_fields(views, question.lowered, claimed, {c.field for c in constraints}, reading)
    show = list(dict.fromkeys([*(c.field for c in checks), *show]))
    aggregate_, group_by, unit_field = aggregate(reading, views, constraints)
    return Decomposition(
        question=question.text,
        intent="lookup" if checks else reading.intent,
        buckets=buckets,
        constraints=constraints,
        topic_terms=leftovers.topic_terms(question.lowered, understood),
        sub_queries=sub_queries(question.text, reading.intent),
        aggregate=aggregate_,
        group_by=group_by,
        unit_field=unit_field,
        order_by=reading.order_by,
        limit=reading.limit,
        show_fields=show if reading.intent in ("list", "lookup") or checks else [],
        doc_ids=sorted(doc_ids),
        checks=checks,
        listed_by_text=reading.listed_by_text,
    )


YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|has|have|had)\b")
STATED = re.compile(r"\s(?:is|are|was|were|does|do|did|has|have|had|will|shall)\s")
"""The verb of a claim that says a document is so ("The Zounds agreement is governed by Nevada law."): checked as the
yes/no question it states, not read as a list of the documents that are so."""


def checked(
    lowered: str, reading: Reading, views: list[BucketWords], constraints: list[Constraint], doc_ids: dict[str, str]
) -> tuple[list[Constraint], list[Constraint]]:
    """(the conditions a yes/no question checks, the constraints left): a question that names documents, by title
    or by a party, and asks whether they are so ("Is the Quaker agreement governed by Delaware law?", "Does the
    Logan's Roadhouse sponsorship expire after 1999?", or the claim "The Zounds agreement is governed by Nevada
    law.") asks for their values, not for the documents that have them, which would leave nothing to say when they
    do not. The words that describe the named documents (their kind, their parties: "the PaxMedica master service
    agreement") stay constraints."""
    parties = {f.name for v in views for f in v.role("name")}
    named = doc_ids or any(c.field in parties for c in constraints)
    proper = lowered[asking(lowered) :]
    asks = YES_NO.match(proper) or is_claim(lowered) and STATED.search(proper)
    if not named or not asks or reading.intent not in ("list", "lookup"):
        return [], constraints
    describing = parties | {v.kind.name for v in views if v.kind}
    return [c for c in constraints if c.field not in describing], [c for c in constraints if c.field in describing]


def shown_fields(views: list[BucketWords], lowered: str, used: list, asked: set[str], reading: Reading) -> list[str]:
    """Fields the question asks to see ("what is the governing law of...", "when is it due", "where is the shop"):
    named by their words or aliases in a part of the question no constraint took."""
    shown = []
    for view in views:
        for f in view.fields:
            if f.type == "boolean":
                continue
            free = [m for m in view.field_mentions(lowered, f) if not any(overlap(m.span, s) for s in used)]
            # a field a condition is on is shown too when named apart from it: "who are the parties to the Arconic
            # license" (the condition "Arconic" is on parties) asks for its parties; "the agreement with IBM" not
            if free and (f.name not in asked or any(m.text.lower() not in STOPWORDS for m in free)):
                shown.append(f.name)
    if reading.order_by and reading.order_by.field not in shown:
        shown.append(reading.order_by.field)
    proper = lowered[asking(lowered) :]
    if not shown and reading.intent == "lookup" and re.match(r"who\b", proper):
        shown = [f.name for view in views for f in view.role("name") if f.name not in asked]
    if not shown and reading.intent == "lookup" and DATE_ASKED.search(proper):
        # "until what date does the sponsorship run?": no date field named, so every date it has, each with its source
        shown = [f.name for view in views for f in view.typed("date") if f.name not in asked]
    return shown


def aggregate(
    reading: Reading, views: list[BucketWords], constraints: list[Constraint]
) -> tuple[str | None, list[str], str | None]:
    """The aggregate of a count or sum, its groups, and the field holding the unit of the amounts when the question
    does not fix one: a sum of amounts whose unit is another field (an invoice's currency) is grouped by it, so
    that amounts in different units are never added together."""
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


def sub_queries(text: str, intent: str) -> list[str]:
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
