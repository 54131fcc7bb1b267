"""Rules for the facts of a contract (bucket `contracts`): its dates, governing law, parties and NDA term.

The dates are read in `contract_dates`, the parties in `contract_parties`; this module reads the law and the term
and gathers all five into `RULES`.

Field names and value types are those of the CUAD and Kleister-NDA loaders (`retrievers/loaders/cuad.py`,
`kleister_nda.py`): dates as ISO strings, `governing_law` as `split_jurisdictions` names the places, `term_days` in
whole days as `parse_duration` counts them. Each rule reads the clause that states the fact and returns nothing when
the text states it twice in different ways: a wrong value that looks right is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from english.places import PLACE_NAMES
from english.sentences import sentence_span
from retrievers.extraction.found import FieldRule, Found
from retrievers.extraction.rules.contract_dates import agreement_date, effective_date
from retrievers.extraction.rules.contract_parties import parties
from retrievers.loaders.normalize import parse_duration, split_jurisdictions

# --- governing law ------------------------------------------------------------------------------------

# "SIATE" is "STATE" as OCR misreads it in a scanned filing, and "ofthe State ofTexas" its words run together.
_OF = r"of(?:\s+|(?=the\s)|(?=(?-i:[A-Z])))"
_SUBDIVISION = rf"(?:the\s+)?(?:s[ti]ate|commonwealth|province|republic|kingdom)\s+{_OF}"
# "the laws of the State of New York", "the internal laws of Delaware", "the law of England and Wales", read after
# each "law"; "New York law", read before it. Anchoring on the word "law" keeps the long list of places from being
# tried at every character of a long contract. "The legislation of the Republic of Kazakhstan shall apply" is the
# same choice in other words.
_LAW_RE = re.compile(r"\b(?:laws?|legislation)\b", re.IGNORECASE)
# "of the State of", "and judicial decisions of the State of", "in force in the Province of", ", other than choice
# of law rules, of the State of", "State of".
_OF_PLACE_RE = re.compile(
    rf"(?:\s+and\s+(?:[\w-]+\s+)?decisions|\s+(?:then\s+)?in\s+(?:force|effect)|\s*,[^,.;]{{0,60}},)?"
    rf"\s+(?:(?:{_OF}|in\s+)(?:the\s+)?(?:{_SUBDIVISION})?|{_SUBDIVISION})",
    re.IGNORECASE,
)
_AND_RE = re.compile(
    rf"\s+and\s+(?:of\s+)?(?:the\s+)?(?:federal\s+laws\s+of\s+(?:the\s+)?)?(?:{_SUBDIVISION})?", re.IGNORECASE
)
_MOST_MENTIONS = 1000
"""More mentions of "law" than any contract makes (CUAD's longest has a few hundred): past them the text is no
contract, and gives nothing, which also bounds the time a hostile text can take."""
_PLACE_BEFORE_REACH = 40
_LONGEST_PLACE_WORDS = max(len(name.split()) for name in PLACE_NAMES)
# "a corporation organized under the laws of Delaware": where a party is incorporated, not the law it chose.
_INCORPORATED_RE = re.compile(
    r"(?:organi[sz]ed|incorporated|existing|formed|registered|established|chartered|good\s+standing)\s+under\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# What makes a sentence about the law of a place a choice of law, not a statement about a company's incorporation.
_GOVERNS_RE = re.compile(
    r"\bgovern|\bcontrolled\s+by\b|\bconstrued\b|\binterpret|governing\s+law|choice\s+of\s+law|applicable\s+law"
    r"|\bin\s+accordance\s+with\s+the\s+laws?\b|\b(?:laws?|legislation)\s+of\s+[^.;]{0,60}\bshall\s+"
    r"(?:apply|prevail|control)",
    re.IGNORECASE,
)
# A clause headed "GOVERNING LAW" or "Applicable Law" chooses the law it names in any words ("shall be subject to the
# application of the Italian Law"): the heading, capitalised as headings are, just before the clause's sentence.
_LAW_HEADING_RE = re.compile(r"\b(?:GOVERNING|APPLICABLE|Governing|Applicable)\s+(?:LAW|Law)S?\b|\bCHOICE\s+OF\s+LAW\b")
_HEADING_REACH = 300
"""How far before a sentence its clause's heading may be: a heading and the clause's first sentence or two."""
# "This Agreement shall be governed by", "this Guarantee will be interpreted and construed": a choice of law for
# the document itself.
_AGREEMENT_GOVERNED_RE = re.compile(
    r"\b(?:this|the)\s+(?:[\w-]+\s+){0,3}(?:agreement|contract|guarantee|amendment)\b[^.;]{0,150}?"
    r"\b(?:shall|will|is|are)\s+(?:be\s+)?(?:exclusively\s+|solely\s+)?(?:governed|construed|interpreted|controlled)",
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
    nothing: which one a user means is not for a rule to say; unless one alone is chosen before the first signature
    clause and the others after it, in exhibits or addenda. The law a party is organised under is no choice.
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
        written = after[0] if after else _place_just_before(before) or _place_referred_back(body, law)
        if written is None:
            continue
        places, named_to = [written], after[1] if after else law.end()
        joined = _AND_RE.match(body, named_to) if after else None
        second = _place_at(body, joined.end()) if joined else None
        if second:
            places.append(second[0])
            named_to = second[1]
        start, end = sentence_span(body, law.start(), named_to, clauses=True)
        if not (
            _GOVERNS_RE.search(body, start, end) or _LAW_HEADING_RE.search(body, max(0, start - _HEADING_REACH), start)
        ):
            continue
        strong = _AGREEMENT_GOVERNED_RE.search(body, start, end)
        for place in split_jurisdictions("; ".join(places)):
            (chosen_for_the_agreement if strong else chosen).setdefault(place, (start, end))
    chosen = _before_the_signatures(body, chosen_for_the_agreement or chosen)
    for place in list(chosen):
        if len(chosen) > 1 and (place == _FEDERAL or any(other.endswith(f", {place}") for other in chosen)):
            chosen.pop(place)
    if len(chosen) > 1 and set(chosen) != {"England", "Wales"} and len(set(chosen.values())) > 1:
        return []
    return [Found(place, *span) for place, span in chosen.items()]


_WITNESS_RE = re.compile(r"\bIN\s+WITNESS\s+WHEREOF\b", re.IGNORECASE)


def _before_the_signatures(body: str, chosen: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """The places chosen before the contract's first signature clause, where they are one place and others are
    chosen after it: what follows the signatures (an exhibit's form of another agreement, a state's addendum to a
    franchise) chooses for itself, and the agreement's own choice is the one in its body."""
    if len(chosen) < 2:
        return chosen
    witness = _WITNESS_RE.search(body)
    before = {place: span for place, span in chosen.items() if witness and span[1] <= witness.start()}
    return before if len(before) == 1 else chosen


def _place_at(body: str, position: int) -> tuple[str, int] | None:
    """The place named by the words at `position` ("New York, without regard"), as the labels name it, and where
    its name ends; the longest name wins ("West Virginia", not "Virginia")."""
    words = list(re.finditer(r"[\w.'’]+", body[position : position + _PLACE_BEFORE_REACH]))[:_LONGEST_PLACE_WORDS]
    for count in range(len(words), 0, -1):
        written = " ".join(word[0] for word in words[:count]).rstrip(".")
        if written.lower() in PLACE_NAMES:
            last = words[count - 1]
            return PLACE_NAMES[written.lower()], position + last.end() - (len(last[0]) - len(last[0].rstrip(".")))
    return None


_REFERS_BACK_RE = re.compile(
    r"\s+(?:thereof|of\s+(?:such|that|said)\s+(?:state|commonwealth|province|country|jurisdiction))\b", re.IGNORECASE
)


def _place_referred_back(body: str, law: re.Match[str]) -> str | None:
    """The place "the laws thereof" or "the laws of such state" refer to: the last one its sentence names before
    ("accepted by Company in the State of Nevada and shall be governed by ... the laws thereof")."""
    if not _REFERS_BACK_RE.match(body, law.end()):
        return None
    start, _ = sentence_span(body, law.start(), law.end(), clauses=True)
    last, named_to = None, start
    for word in re.finditer(r"\b[A-Z][\w.'’]*", body[start : law.start()]):
        place = _place_at(body, start + word.start()) if start + word.start() >= named_to else None
        if place:
            last, named_to = place
    return last


_KINDS_OF_LAW = frozenset({"substantive", "private", "internal", "domestic"})
"""Words between a place's adjective and "law" that leave the place the same ("Colombian private law")."""


def _place_just_before(text: str) -> str | None:
    """The place named by the last words of `text` ("governed by New York" before "law"), if they name one.

    Looked up word by word rather than with a pattern, which would try every place at every character."""
    words = text.split()
    if words and words[-1].lower() in _KINDS_OF_LAW:
        words.pop()
    for count in range(min(_LONGEST_PLACE_WORDS, len(words)), 0, -1):
        written = " ".join(words[-count:])
        if written[0].isupper() and written.lower() in PLACE_NAMES:
            return PLACE_NAMES[written.lower()]
    return None


# --- term ---------------------------------------------------------------------------------------------

_NUMBER = r"(?:\d+(?:\.\d+)?|[a-z]+(?:[\s-][a-z]+)?)"
_DURATION = rf"{_NUMBER}\s*(?:\(\s*\d+(?:\.\d+)?\s*\)\s*)?(?:calendar\s+)?(?:years?|months?|days?)\b"
# "for a period of two (2) years", "shall remain in effect for three years", "terminate ... 18 months after".
_TERM_RE = re.compile(
    rf"(?:\bterm\s+of\s+(?:this\s+(?:letter\s+)?agreement\s+)?(?:shall\s+be\s+)?|\bperiod\s+of\s+|\bfor\s+|\bterminate\s+|\bexpire\s+)"
    rf"(?:a\s+period\s+of\s+)?(?P<duration>{_DURATION})",
    re.IGNORECASE,
)
_TERM_SENTENCE_RE = re.compile(
    r"\bterm\s+of\s+this\s+(?:letter\s+)?agreement|\ba\s+term\s+of|\bthis\s+(?:letter\s+)?agreement\s+(?:shall|will)\s+(?:remain|continue|be\s+in|terminate|expire)"
    r"|\bremain\s+in\s+(?:full\s+)?(?:force|effect)|\bshall\s+(?:terminate|expire)|\bexpire",
    re.IGNORECASE,
)

# A length counted from the agreement's own date: "two years from the date hereof", "18 months after the date of this
# Agreement". Found from the date's words, then the length just before them, so the number words are not tried at
# every character.
_ITS_DATE_RE = re.compile(
    r"\s(?:from|after|following)\s+(?:the\s+)?(?:date\s+(?:hereof|of\s+(?:this|the)\s+(?:letter\s+)?agreement"
    r"|first\s+(?:written|above)|of\s+execution)|effective\s+date|execution\s+date)",
    re.IGNORECASE,
)
_LENGTH_BEFORE_RE = re.compile(rf"\b(?P<duration>{_DURATION})$", re.IGNORECASE)
_LENGTH_REACH = 40
_MOST_LENGTHS = 200
"""More lengths of time than any contract states (CUAD's most has 19): past them the text gives nothing."""
# A length that runs after the agreement ends, or that binds a person's conduct, is no term of the agreement.
_NOT_TERM_RE = re.compile(
    r"\bthereafter\b|\b(?:after|following)\s+(?:the\s+)?(?:date\s+of\s+)?(?:the\s+|any\s+|such\s+)?"
    r"(?:termination|cessation|expiration)|\brevoke|\bsolicit|\bcompet|\bemploy",
    re.IGNORECASE,
)


def _lengths(body: str) -> Iterator[tuple[int, int, int]]:
    """Every length of time said to be a period ("for a period of two years") or counted from the agreement's date
    ("two years from the date hereof"), in days, with where it is written."""
    for match in _TERM_RE.finditer(body):
        days = parse_duration(match["duration"])
        if days is not None:
            yield days, match.start(), match.end()
    for anchor in _ITS_DATE_RE.finditer(body):
        length = _LENGTH_BEFORE_RE.search(body, max(0, anchor.start() - _LENGTH_REACH), anchor.start())
        days = parse_duration(length["duration"]) if length else None
        if days is not None:
            yield days, length.start(), anchor.end()


def term_days(body: str) -> list[Found]:
    """How long the agreement lasts, from the sentence that says how long it remains in force.

    Only one length may be said that way: an NDA that keeps its obligations for two years but its trade secrets
    for five says two different things, and gives nothing.
    """
    lengths: dict[int, tuple[int, int]] = {}
    for count, (days, start, end) in enumerate(_lengths(body)):
        if count >= _MOST_LENGTHS:
            return []
        sentence = sentence_span(body, start, end, clauses=True)
        if _TERM_SENTENCE_RE.search(body, *sentence) and not _NOT_TERM_RE.search(body, *sentence):
            lengths.setdefault(days, sentence)
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
