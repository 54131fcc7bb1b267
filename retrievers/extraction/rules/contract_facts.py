"""Rules for the facts of a contract (bucket `contracts`): its dates, governing law, parties and NDA term.

Field names and value types are those of the CUAD and Kleister-NDA loaders (`retrievers/loaders/cuad.py`,
`kleister_nda.py`): dates as ISO strings, `governing_law` as `split_jurisdictions` names the places, `term_days` in
whole days as `parse_duration` counts them. Each rule reads the clause that states the fact and returns nothing when
the text states it twice in different ways: a wrong value that looks right is worse than none.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
    **{adjective.lower(): place for adjective, place in _PLACES["adjectives"].items()},
}
_SUBDIVISION = r"(?:the\s+)?(?:state|commonwealth|province|republic|kingdom)\s+of\s+"
# "the laws of the State of New York", "the internal laws of Delaware", "the law of England and Wales", read after
# each "law"; "New York law", read before it. Anchoring on the word "law" keeps the long list of places from being
# tried at every character of a long contract.
_LAW_RE = re.compile(r"\blaws?\b", re.IGNORECASE)
# "of the State of", "and decisions of the State of", ", other than choice of law rules, of the State of", "State of".
_OF_PLACE_RE = re.compile(
    rf"(?:\s+and\s+decisions|\s*,[^,.;]{{0,60}},)?\s+(?:(?:of|in)\s+(?:the\s+)?(?:{_SUBDIVISION})?|{_SUBDIVISION})",
    re.IGNORECASE,
)
_AND_RE = re.compile(
    rf"\s+and\s+(?:of\s+)?(?:the\s+)?(?:federal\s+laws\s+of\s+(?:the\s+)?)?(?:{_SUBDIVISION})?", re.IGNORECASE
)
_MOST_MENTIONS = 1000
"""More mentions of "law" than any contract makes (CUAD's longest has a few hundred): past them the text is no
contract, and gives nothing, which also bounds the time a hostile text can take."""
_PLACE_BEFORE_REACH = 40
_LONGEST_PLACE_WORDS = max(len(name.split()) for name in _PLACE_NAMES)
# "a corporation organized under the laws of Delaware": where a party is incorporated, not the law it chose.
_INCORPORATED_RE = re.compile(
    r"(?:organi[sz]ed|incorporated|existing|formed|registered|established|chartered|good\s+standing)\s+under\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# What makes a sentence about the law of a place a choice of law, not a statement about a company's incorporation.
_GOVERNS_RE = re.compile(
    r"\bgovern|\bconstrued\b|\binterpret|governing\s+law|choice\s+of\s+law|applicable\s+law"
    r"|\bin\s+accordance\s+with\s+the\s+laws?\b|\blaws?\s+of\s+[^.;]{0,60}\bshall\s+(?:apply|prevail|control)",
    re.IGNORECASE,
)
# "This Agreement shall be governed by", "this Guarantee will be interpreted and construed": a choice of law for
# the document itself.
_AGREEMENT_GOVERNED_RE = re.compile(
    r"\b(?:this|the)\s+(?:[\w-]+\s+){0,3}(?:agreement|contract|guarantee|amendment)\b[^.;]{0,150}?"
    r"\b(?:shall|will|is|are)\s+(?:be\s+)?(?:exclusively\s+|solely\s+)?(?:governed|construed|interpreted)",
    re.IGNORECASE,
)
_FEDERAL = "United States"


def governing_law(body: str) -> list[Found]:
    """The place whose law governs the contract, from the sentences that choose one.

    The federal law of the United States is dropped when a state's law is chosen with it ("the laws of the State
    of New York and the federal laws of the United States"), and so is a country's beside its province's ("the laws
    of the Province of Ontario and the federal laws of Canada" is "Ontario, Canada"). A sentence that says "this
    Agreement shall be governed by" outranks one that only mentions governing law ("matters governed by the laws of
    Tennessee"). Two different places chosen with the same force (one for the contract, one for a schedule) give
    nothing: which one a user means is not for a rule to say. The law a party is organised under is no choice.
    """
    chosen: dict[str, tuple[int, int]] = {}
    chosen_for_the_agreement: dict[str, tuple[int, int]] = {}
    for mentions, law in enumerate(_LAW_RE.finditer(body)):
        if mentions >= _MOST_MENTIONS:
            return []
        before = body[max(0, law.start() - _PLACE_BEFORE_REACH) : law.start()]
        if _INCORPORATED_RE.search(before):
            continue
        of = _OF_PLACE_RE.match(body, law.end())
        after = _place_at(body, of.end()) if of else None
        written = after[0] if after else _place_just_before(before)
        if written is None:
            continue
        places, named_to = [written], after[1] if after else law.end()
        joined = _AND_RE.match(body, named_to) if after else None
        second = _place_at(body, joined.end()) if joined else None
        if second:
            places.append(second[0])
            named_to = second[1]
        start, end = sentence_around(body, law.start(), named_to)
        if not _GOVERNS_RE.search(body, start, end):
            continue
        strong = _AGREEMENT_GOVERNED_RE.search(body, start, end)
        for place in split_jurisdictions("; ".join(places)):
            (chosen_for_the_agreement if strong else chosen).setdefault(place, (start, end))
    chosen = chosen_for_the_agreement or chosen
    for place in list(chosen):
        if len(chosen) > 1 and (place == _FEDERAL or any(other.endswith(f", {place}") for other in chosen)):
            chosen.pop(place)
    if len(chosen) > 1 and set(chosen) != {"England", "Wales"}:
        return []
    return [Found(place, *span) for place, span in chosen.items()]


def _place_at(body: str, position: int) -> tuple[str, int] | None:
    """The place named by the words at `position` ("New York, without regard"), as the labels name it, and where
    its name ends; the longest name wins ("West Virginia", not "Virginia")."""
    words = list(re.finditer(r"[\w.'’]+", body[position : position + _PLACE_BEFORE_REACH]))[:_LONGEST_PLACE_WORDS]
    for count in range(len(words), 0, -1):
        written = " ".join(word[0] for word in words[:count]).rstrip(".")
        if written.lower() in _PLACE_NAMES:
            return _PLACE_NAMES[written.lower()], position + words[count - 1].end()
    return None


def _place_just_before(text: str) -> str | None:
    """The place named by the last words of `text` ("governed by New York" before "law"), if they name one.

    Looked up word by word rather than with a pattern, which would try every place at every character."""
    words = text.split()
    if words and words[-1].lower() == "substantive":
        words.pop()
    for count in range(min(_LONGEST_PLACE_WORDS, len(words)), 0, -1):
        written = " ".join(words[-count:])
        if written[0].isupper() and written.lower() in _PLACE_NAMES:
            return _PLACE_NAMES[written.lower()]
    return None


# --- dates --------------------------------------------------------------------------------------------

_CUE_REACH = 80
OPENING_CHARS = 5000
"""How far into a contract its own date is looked for: the title, preamble and cover letter, before the clauses
that mention the dates of other documents."""
# The words just before a date that make it the date of the agreement ("dated as of", "entered into this").
_SIGNED_CUE_RE = re.compile(
    r"(?:\bdated|\bmade|\bentered\s+into|\bexecuted|\bsigned|\bagreement|\bas\s+of|\bdate:|\bthis)"
    r"(?:\s+(?:and\s+(?:is\s+)?(?:made\s+)?(?:effective|entered\s+into)|effective|(?:as\s+)?of|as|on|this|the|day))*"
    r"[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date that make it the effective date ("effective as of", "effective on").
_EFFECTIVE_BEFORE_RE = re.compile(
    r"\beffective(?:\s+(?:as\s+(?:of|from)|on|from|of|the|this|day|for\s+all\s+purposes))*[\s,:]*$", re.IGNORECASE
)
# The defined term "Effective Date" just before a date ("Effective Date: March 3, 2011", "“Effective Date” means").
_EFFECTIVE_DATE_BEFORE_RE = re.compile(
    r"\beffective\s+date[\"”]?\s*(?:(?:shall\s+)?(?:means?|is|be)|:)(?:\s+(?:as\s+of|on|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date on which the agreement's term starts ("The term ... shall commence on").
_STARTS_RE = re.compile(
    r"\b(?:commenc\w*|begin(?:s|ning)?|start(?:s|ing)?)(?:\s+(?:on|as\s+of|from|date|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
_TERM_OF_AGREEMENT_RE = re.compile(r"\b(?:term|agreement|contract)\b", re.IGNORECASE)
# The definition just after a date that names it the effective date ("(the “Effective Date”)").
_EFFECTIVE_AFTER_RE = re.compile(r"[\s,]*\(?\s*(?:the|this|hereinafter)?\s*[\"“”']*effective\s+date", re.IGNORECASE)
# "IN WITNESS WHEREOF, the parties have executed this Agreement as of the 22nd day of May 2001".
_WITNESS_RE = re.compile(r"\bexecuted\s+this\s+agreement\s+(?:on|as\s+of|this)[\s\w]{0,12}$", re.IGNORECASE)
# A date standing on its own line near the top, as a letter is dated ("December 11, 2014").
_LETTER_DATE_CHARS = 1500
_LINE_BEFORE_RE = re.compile(r"(?:^|\n)[ \t]*(?:dated?:?)?[ \t]*$", re.IGNORECASE)
_LINE_AFTER_RE = re.compile(r"[ \t]*(?:\n|$)")
# A date of another document: in a recital, or of an agreement this one amends, replaces or refers to.
_OTHER_DOCUMENT_RE = re.compile(
    r"\bWHEREAS\b|\bthat\s+certain\b|\bpursuant\s+to\b|\bsupersede|\breplace|\bamendment\b.{0,80}?\bto\s+(?:the|that)\b",
    re.IGNORECASE | re.DOTALL,
)
_OTHER_DOCUMENT_AFTER_RE = re.compile(
    r"[\s,]*(?:\([^()]{0,60}\)\s*)?\(\s*(?:the|this)?\s*[\"“][^\"”]{0,60}\w\s+(?:Agreement|Contract|Lease|Plan)[\"”]"
    r"|\s*regarding\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _cued_dates(body: str) -> tuple[list[Found], list[Found]]:
    """The dates the text gives as the agreement's own date and as its effective date, each in document order.

    The agreement's date is read from its opening only; "the Effective Date" is read wherever it is defined, and
    "effective as of" only in the opening (later it is the date some clause takes effect).
    """
    signed: list[Found] = []
    effective: list[Found] = []
    witnessed: list[Found] = []
    for value, match in dates_in(body):
        opening = match.start() < OPENING_CHARS
        before = body[max(0, match.start() - _CUE_REACH) : match.start()]
        defined = bool(_EFFECTIVE_DATE_BEFORE_RE.search(before) or _EFFECTIVE_AFTER_RE.match(body, match.end()))
        said_effective = opening and bool(_EFFECTIVE_BEFORE_RE.search(before))
        said_signed = opening and bool(_SIGNED_CUE_RE.search(before))
        letter = (
            match.start() < _LETTER_DATE_CHARS
            and bool(_LINE_BEFORE_RE.search(before))
            and bool(_LINE_AFTER_RE.match(body, match.end()))
        )
        signature = bool(_WITNESS_RE.search(before))
        starts = bool(_STARTS_RE.search(before))
        if not (defined or said_effective or said_signed or letter or signature or starts):
            continue
        start, end = sentence_around(body, match.start(), match.end())
        if starts and not _TERM_OF_AGREEMENT_RE.search(body, start, match.start()):
            starts = False
        if _OTHER_DOCUMENT_RE.search(body, start, match.start()) or _OTHER_DOCUMENT_AFTER_RE.match(body, match.end()):
            continue
        found = Found(value.isoformat(), start, end)
        if defined or said_effective or starts:
            effective.append(found)
        if opening and (defined or said_effective or said_signed or letter):
            signed.append(found)
        elif signature:
            witnessed.append(found)
    return signed + witnessed, effective


def agreement_date(body: str) -> list[Found]:
    """The date the contract is dated, signed or made: the first full date its opening says is one."""
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

# A length that runs after the agreement ends, or that binds a person's conduct, is no term of the agreement.
_NOT_TERM_RE = re.compile(
    r"\bthereafter\b|\b(?:after|following)\s+(?:the\s+)?(?:date\s+of\s+)?(?:the\s+|any\s+|such\s+)?"
    r"(?:termination|cessation|expiration)|\brevoke|\bsolicit|\bcompet|\bemploy",
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
        if _TERM_SENTENCE_RE.search(body, start, end) and not _NOT_TERM_RE.search(body, start, end):
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
