"""Fields said to have no value: "which contracts have no governing law?", "how many of my contracts don't say which
law governs them?", "contracts without an expiration date". A field's words just after a negation, where no other
reader took a condition on that field's words nearby: "not governed by Delaware law" is governing_law != Delaware
(`values`), "not signed in 2005" a date range (`dates`), "no non-compete" non_compete = false (`flags`, which reads
every yes/no field, so none is read here)."""

from __future__ import annotations

import re

from graph.planners.reading.claims import Claims, Found, negation_before, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords

SAYING = re.compile(
    r"(?:\s+(?:a|an|any|the|its|their|which|what|say|says|state|states|mention|mentions|specify|specifies|name|names"
    r"|have|has|give|gives|include|includes|contain|contains))*\s*"
)
"""What may stand between the negation and the field's words: "no governing law", "don't say which law", "without
an expiration date"; not "don't want them to renew", where the negation is another verb's."""
CONDITION_REACH = 30
"""How many characters after a field's words a condition another reader took makes them that condition's."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    lowered = question.lowered
    found: list[Found] = []
    for f in view.fields:
        if f.type == "boolean":
            continue
        for m in view.field_mentions(lowered, f):
            start, end = m.span
            negation = negation_before(lowered, start)
            if not negation or claims.taken(m.span) or not SAYING.fullmatch(lowered, negation[1], start):
                continue
            if claims.taken((end, min(len(lowered), end + CONDITION_REACH))):
                continue  # "not governed by Delaware law": the value says the condition
            found.append(say(claims, f, "missing", None, (negation[0], end), m.text))
            break
    return found
