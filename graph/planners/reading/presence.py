"""Fields said to have a value or none. None: "which contracts have no governing law?", "how many of my contracts
don't say which law governs them?", "contracts without an expiration date": a field's words just after a negation.
Some: "how many contracts have a governing law?", "contracts with an expiration date": a field's words after a verb
of having, ending the clause (read as no condition, the count was every contract's: an outside probe). Either only
where no other reader took a condition on that field's words nearby: "not governed by Delaware law" is governing_law
!= Delaware (`values`), "with an expiration date in 2003" a date range (`dates`), "no non-compete" non_compete =
false (`flags`, which reads every yes/no field, so none is read here)."""

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
HAVING = re.compile(
    r"\b(?:have|has|having|with|include|includes|including|contain|contains|state|states|specify|specifies)"
    r"(?:\s+(?:a|an|any|some|the|its|their))?\s+$"
)
"""A verb of having just before a field's words: "have a governing law", "with an expiration date"; not one of
doing ("as long as it gives some notice" is the act, not a notice period)."""
CLAUSE_END = re.compile(r"\s*(?:[?.!;,]|$)")
"""What ends the field's words when they say it has a value: "contracts with an expiration date?", not "contracts
with parties based in China", whose words after say which value."""
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
            if claims.taken(m.span) or claims.taken((end, min(len(lowered), end + CONDITION_REACH))):
                continue  # "not governed by Delaware law": the value says the condition
            negation = negation_before(lowered, start)
            if negation and SAYING.fullmatch(lowered, negation[1], start):
                found.append(say(claims, f, "missing", None, (negation[0], end), m.text))
                break
            having = HAVING.search(lowered, 0, start)
            if not negation and having and CLAUSE_END.match(lowered, end):
                found.append(say(claims, f, "exists", None, (having.start(), end), m.text))
                break
    return found
