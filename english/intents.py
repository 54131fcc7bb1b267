"""The phrases that say what a question asks for: a summary, a comparison, a count, a sum or average, an extreme (the
superlatives of `data/comparisons.toml`), a grouping, text to read, a list, one value to look up. Read in that order
by the planners' intent reader (`graph.planners.reading.intent`), which decides which field each is about.
"""

from __future__ import annotations

import re

from english.tables import table

SUPERLATIVES: dict[str, tuple[str, str]] = {
    word: (direction, about) for word, (direction, about) in table("comparisons")["superlatives"].items()
}
"""A superlative's direction, and what it is about when the question names no field."""
SUPERLATIVE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, SUPERLATIVES), key=len, reverse=True)) + r")\b")
MOST_SPENT = re.compile(r"\b(?:the )?(most|least) (?:we|i|you|they)(?: ever)? (?:spent|paid|spend|pay|billed)\b")
MOST = re.compile(r"\b(?:the\s+)?(most|least|fewest|highest|largest|biggest|top)\b")
COMPARE = re.compile(r"\b(compare|comparison|difference between|versus|vs\.?)(?!\w)")
SUMMARY = re.compile(r"\b(summari[sz]e|summary|overview)\b")
COUNT = re.compile(r"\b(how many|number of|count of|count|no\.? of|# of)\b|#\s*of\b")
COUNT_WHOLE = re.compile(r"\b(?:in total|all told|total(?= (?:number|count) of\b))\b")
"""Words of a count that say it counts everything together ("how many recipes are there in total?", "the total
number of contracts"), not a condition; "total" alone may name a field (an invoice's total), so only these."""
AVERAGE = re.compile(r"\b(average|avg|mean|typical)\b")
SUM = re.compile(
    r"\b(sum(?: of)?|in total|total (?:of(?! (?:more|less|over|under|at|above|below))|amount|value|spend|spent|"
    r"paid|cost|billed|invoiced|charged|owed)|altogether|adds? up(?: to)?|"
    r"how much (?:did|was|were|have|has|do|does|is|are|in)|what did we (?:pay|spend)|comes? to(?! an? end\b)|"
    r"total spend|spent in total|what(?:'s| is| was) the total|total\b(?=\W*$))",
)
GROUPING = re.compile(
    r"\b(?:per|(?<!ed )(?<!made )(?<!sent )by|for each|for every|of each|each|grouped by|broken down by|"
    r"breakdown (?:of \w+ )?by|split by)\s+(?P<words>\w+(?:\s\w+)?)"
)
"""'per shop', 'by year', 'for each currency'; not 'governed by', 'issued by', 'made by' (those name a value)."""
WHICH_MOST = re.compile(r"\bwhich\s+(?P<words>\w+(?:\s\w+)?)\b(?P<rest>.*)$")
SPEND = re.compile(r"\b(spend|spent|paid|pay|billed|cost|amount|worth)\b")
TEXT = re.compile(
    r"^(?:why|explain|describe)\b|"
    r"\bhow (?:do|does|did|should|can|to|is|are|was|were|long (?:do|does|did|should|must))\b|"
    r"\b(?:what (?:does|do|did)|^(?:does|do|did))\b.{0,80}\b(?:say|says|state|states|require|requires|mean|cover)\b|"
    r"\bwhat (?:caused|happens|happened|(?:will|would) happen)\b|\btell me about\b|"
    r"\bwhat (?:is|are) the (?:rules|steps|policy|process)\b|"
    r"\b(?:have|has|need|needs) to\b|\bwhat (?:must|should|shall)\b|"
    # a yes/no question asked with a modal verb ("can the Associated Press hire Kubient's employees under ...?"),
    # not a request ("can you list ...")
    r"^(?:can|could|may|might|must|shall|should|will|would)\b(?! you\b)"
)
"""A question for text: why, how to, how something is done ("how is liability limited"), what a document says
("does the Sonos agreement say anything about ..."), what happened, what one has to do ("what must the employee
return ...")."""
LIST = re.compile(r"^(?:which|list|show|find|give me|get|any|are there any)\b|\ball (?:the |our )?\w+")
LOOKUP = re.compile(
    r"^(?:what(?:'s| is| was| are)? (?:the|its)|what \w+ is|when|who(?:'s)?|where|how much (?:is|was) the)\b|"
    # a value asked after a preposition ("until what date", "under which law", "by when") or by its kind
    r"^(?:until|till|by|from|since|on|under|for|with|to) (?:what|which|when|whom|whose)\b|"
    r"\bwhat (?:date|day|month|year)\b"
)
QUESTION_WORDS = r"what|which|why|how|who|whom|when|where|does|do|did|is|are|was|were|can|could|should"
QUESTION_START = re.compile(rf"^(?:{QUESTION_WORDS})\b")
REQUEST = re.compile(
    r"^(?:please\s+)?(?:list|show|find|give|get|count|sum|total|tell|compare|summari[sz]e|pull|display|fetch|name"
    r"|calculate|add|search|look|break)\b"
)
"""A request opening the text ("list ...", "show me ...", "total spent at ..."): it asks, though it asks no question."""
LEADING_PHRASE = re.compile(
    r"^(?:under|in|for|from|on|about|regarding|concerning|according to|per|as (?:to|for)|with (?:respect|regard) to"
    r"|if|unless|once|after|before|assuming|suppose)"
    rf"\b[^,;?]{{2,120}},\s*(?=(?:{QUESTION_WORDS}|may|must|will|would|has|have)\b)"
)
"""A phrase set off before the question proper, saying what it is about or on what condition ("under the SAP Africa
licence and maintenance agreement, when is Telkom allowed to ...", "in the Sonos agreement, who pays for shipping?",
"if West Coast Customs never answers, can we treat it as approved?")."""


DATE_ASKED = re.compile(r"\b(?:what|which) (?:date|day|month|year)\b|\buntil when\b|^when (?:was|were|did)\b")
"""A date asked for without naming which ("until what date does it run?", "when was the SIGA agreement entered
into?": something done in the past happened on a date); a bare "when" may ask about anything ("when is Telkom
allowed to get at the source code?" asks for conditions)."""
VALUE_OF = re.compile(
    r"^how much (?!(?:did|was|were|have|has|do|does|is|are|in)\b)[a-z]+ (?:is|was|does|do|did|must)\b"
)
"""A value asked by its noun ("how much notice does the shipper have to give ..."): a lookup, whatever the rest of
the question says one has to do."""
VALUE_ASKED = re.compile(r"\bhow (?:much|long|big)\b|\bin days\b|\bvalue\b")
WHAT_IS_THE = re.compile(r"\bwhat(?:'s| is| was) the\b")


def asking(lowered: str) -> int:
    """Where the question proper starts: after a `LEADING_PHRASE`, else at 0. What a question asks for is read from
    its start (its question word, a field it opens with); a phrase before it only names what it is about."""
    m = LEADING_PHRASE.match(lowered)
    return m.end() if m else 0


def is_claim(lowered: str) -> bool:
    """Whether the text states something rather than asks: no question mark, no question word opening the question
    proper, no request ("The DdrB protein from Deinococcus radiodurans is an alternative SSB.", a claim to check;
    not "show me the Starbucks receipts")."""
    proper = lowered[asking(lowered) :]
    return not lowered.rstrip().endswith("?") and not QUESTION_START.match(proper) and not REQUEST.match(proper)
