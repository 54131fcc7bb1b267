"""Rules for the facts of a contract (bucket `contracts`): its dates, governing law, parties and NDA term.

Field names and value types are those of the CUAD and Kleister-NDA loaders (`retrievers/loaders/cuad.py`,
`kleister_nda.py`): dates as ISO strings, `governing_law` as `split_jurisdictions` names the places, `term_days` in
whole days as `parse_duration` counts them. Each rule reads the clause that states the fact and returns nothing when
the text states it twice in different ways: a wrong value that looks right is worse than none.
"""

from __future__ import annotations

import re

from english.tables import table
from retrievers.extraction.found import FieldRule, Found
from retrievers.extraction.rules.contract_parties import parties
from retrievers.extraction.rules.text_spans import dates_in, sentence_around
from retrievers.loaders.normalize import parse_duration, split_jurisdictions

# --- governing law ------------------------------------------------------------------------------------

_PLACES = table("places")
# Every way of writing a place, lower-cased, to the name the labels use.
_PLACE_NAMES: dict[str, str] = {
    **{state.lower(): state for state in _PLACES["us_states"]},
    **{province.lower(): f"{province}, {country}" for province, country in _PLACES["subdivisions"].items()},
    **{
        written.lower(): country
        for country, other_names in _PLACES["countries"].items()
        for written in (country, *other_names)
    },
}
_PLACE = "|".join(re.escape(name) for name in sorted(_PLACE_NAMES, key=len, reverse=True))
_SUBDIVISION = r"(?:the\s+)?(?:state|commonwealth|province|republic|kingdom)\s+of\s+"
# "the laws of the State of New York", "the internal laws of Delaware", "New York law", "the law of England and Wales".
_LAW_OF_PLACE_RE = re.compile(
    rf"\blaws?\s+(?:of|in)\s+(?:the\s+)?(?:{_SUBDIVISION})?(?P<place>{_PLACE})(?![\w-])"
    rf"(?:\s+and\s+(?P<second>wales)\b)?"
    rf"|(?<![\w-])(?P<adjective>{_PLACE})\s+(?:substantive\s+)?law\b",
    re.IGNORECASE,
)
# What makes a sentence about the law of a place a choice of law, not a statement about a company's incorporation.
_GOVERNS_RE = re.compile(r"\bgovern|\bconstrued\b|\binterpret|governing\s+law|choice\s+of\s+law", re.IGNORECASE)
_FEDERAL = "United States"


def governing_law(body: str) -> list[Found]:
    """The place whose law governs the contract, from the first sentence that chooses one.

    The federal law of the United States is dropped when a state's law is chosen with it ("the laws of the State
    of New York and the federal laws of the United States"). Two different places in the choice-of-law sentences
    (one for the contract, one for a schedule) give nothing: which one a user means is not for a rule to say.
    """
    chosen: dict[str, tuple[int, int]] = {}
    for match in _LAW_OF_PLACE_RE.finditer(body):
        start, end = sentence_around(body, match.start(), match.end())
        if not _GOVERNS_RE.search(body, start, end):
            continue
        written = (match["place"] or match["adjective"]).lower()
        places = [_PLACE_NAMES[written]] + (["Wales"] if match["second"] else [])
        for place in split_jurisdictions("; ".join(places)):
            chosen.setdefault(place, (start, end))
    if len(chosen) > 1:
        chosen.pop(_FEDERAL, None)
    if len(chosen) > 1 and set(chosen) != {"England", "Wales"}:
        return []
    return [Found(place, *span) for place, span in chosen.items()]


# --- dates --------------------------------------------------------------------------------------------

_CUE_REACH = 80
# The words just before a date that make it the date of the agreement ("dated as of", "entered into this").
_SIGNED_CUE_RE = re.compile(
    r"(?:\bdated|\bmade|\bentered\s+into|\bexecuted|\bsigned|\bagreement|\bas\s+of)"
    r"(?:\s+(?:and\s+(?:is\s+)?(?:made\s+)?(?:effective|entered\s+into)|effective|(?:as\s+)?of|on|this|the|day))*"
    r"[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date that make it the effective date ("effective as of", "Effective Date:").
_EFFECTIVE_BEFORE_RE = re.compile(
    r"\beffective(?:\s+date)?[\"”]?(?:\s+(?:as\s+of|on|from|is|shall\s+be|will\s+be|means|of|the|this|day))*"
    r"[\s,:]*$",
    re.IGNORECASE,
)
# The definition just after a date that names it the effective date ("(the “Effective Date”)").
_EFFECTIVE_AFTER_RE = re.compile(r"^[\s,]*\(?\s*(?:the|this|hereinafter)?\s*[\"“”']*effective\s+date", re.IGNORECASE)


def _cued_dates(body: str) -> tuple[list[Found], list[Found]]:
    """The dates the text gives as the agreement's own date and as its effective date, each in document order."""
    signed: list[Found] = []
    effective: list[Found] = []
    for value, match in dates_in(body):
        before = body[max(0, match.start() - _CUE_REACH) : match.start()]
        after = body[match.end() : match.end() + _CUE_REACH]
        is_effective = bool(_EFFECTIVE_BEFORE_RE.search(before) or _EFFECTIVE_AFTER_RE.match(after))
        is_signed = bool(_SIGNED_CUE_RE.search(before))
        if not (is_effective or is_signed):
            continue
        found = Found(value.isoformat(), *sentence_around(body, match.start(), match.end()))
        if is_effective:
            effective.append(found)
        if is_signed or is_effective:
            signed.append(found)
    return signed, effective


def agreement_date(body: str) -> list[Found]:
    """The date the contract is dated, signed or made: the first full date said to be one."""
    signed, _ = _cued_dates(body)
    return signed[:1]


def effective_date(body: str) -> list[Found]:
    """The date the contract takes effect: the first full date the text calls its effective date."""
    _, effective = _cued_dates(body)
    return effective[:1]


# --- term ---------------------------------------------------------------------------------------------

_NUMBER = r"(?:\d+(?:\.\d+)?|[a-z]+(?:[\s-][a-z]+)?)"
_DURATION = rf"{_NUMBER}\s*(?:\(\s*\d+(?:\.\d+)?\s*\)\s*)?(?:calendar\s+)?(?:years?|months?|days?)\b"
# "for a period of two (2) years", "shall remain in effect for three years", "terminate ... 18 months after".
_TERM_RE = re.compile(
    rf"(?:\bterm\s+of\s+(?:this\s+agreement\s+)?(?:shall\s+be\s+)?|\bperiod\s+of\s+|\bfor\s+|\bterminate\s+|\bexpire\s+)"
    rf"(?:a\s+period\s+of\s+)?(?P<duration>{_DURATION})",
    re.IGNORECASE,
)
_TERM_SENTENCE_RE = re.compile(
    r"\bterm\s+of\s+this\s+agreement|\bthis\s+agreement\s+(?:shall|will)\s+(?:remain|continue|be\s+in|terminate|expire)"
    r"|\bremain\s+in\s+(?:full\s+)?(?:force|effect)|\bshall\s+(?:terminate|expire)|\bexpire",
    re.IGNORECASE,
)


def term_days(body: str) -> list[Found]:
    """How long the agreement lasts, from the sentence that says how long it remains in force.

    Only one length may be said that way: an NDA that keeps its obligations for two years but its trade secrets
    for five says two different things, and gives nothing.
    """
    lengths: dict[int, tuple[int, int]] = {}
    for match in _TERM_RE.finditer(body):
        days = parse_duration(match["duration"])
        if days is None:
            continue
        start, end = sentence_around(body, match.start(), match.end())
        if _TERM_SENTENCE_RE.search(body, start, end):
            lengths.setdefault(days, (start, end))
    if len(lengths) != 1:
        return []
    return [Found(days, *span) for days, span in lengths.items()]


RULES: dict[str, FieldRule] = {
    "agreement_date": agreement_date,
    "effective_date": effective_date,
    "governing_law": governing_law,
    "parties": parties,
    "term_days": term_days,
}
