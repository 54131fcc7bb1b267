"""The dates of a contract: the day it is dated, signed or made (`agreement_date`) and the day it takes effect
(`effective_date`), as ISO strings, each with the sentence that says it.

A date counts only when the words around it say what it is ("dated as of", "(the “Effective Date”)", a letter's
date line): contracts are full of other dates (of amendments, of agreements they replace, of deadlines).
"""

from __future__ import annotations

import re
from functools import lru_cache

from english.sentences import sentence_span
from retrievers.extraction.found import Found
from retrievers.extraction.rules.text_spans import dates_in

_CUE_REACH = 80
_MOST_DATES = 1000
"""More full dates than any contract holds (CUAD's most has 166): past them the text is a table or a hostile file,
and gives nothing; this also bounds the time it takes."""
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
# "This letter agreement will be effective as of": the agreement's own effective date, wherever it is said.
_AGREEMENT_EFFECTIVE_RE = re.compile(
    r"\bthis\s+(?:[\w-]+\s+){0,3}agreement\s+(?:shall|will|is)\s+(?:be(?:come)?\s+)?effective"
    r"(?:\s+(?:as\s+of|on|from|the|this|day))*[\s,:]*$",
    re.IGNORECASE,
)
# The defined term "Effective Date" just before a date ("Effective Date: March 3, 2011", "“Effective Date” means").
_EFFECTIVE_DATE_BEFORE_RE = re.compile(
    r"\beffective\s+date[\"”)]*\s*(?:(?:shall\s+)?(?:means?|is|be)\b(?:[^.;\d]{0,40}\s(?:on|of))?|:)?"
    r"(?:\s+(?:as\s+of|on|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date on which the agreement's term starts ("The term ... shall commence on").
_STARTS_RE = re.compile(
    r"\b(?:commenc\w*|begin(?:s|ning)?|start(?:s|ing)?)(?:[\"”]?\s+(?:on|as\s+of|from|date|the|this|day|of|means|is))*"
    r"[\s,:]*$",
    re.IGNORECASE,
)
_TERM_OF_AGREEMENT_RE = re.compile(r"\b(?:term|agreement|contract)\b", re.IGNORECASE)
# The definition just after a date that names it the effective date ("(the “Effective Date”)").
_EFFECTIVE_AFTER_RE = re.compile(
    r"[\s,]*\(?\s*(?:such\s+date,?\s*)?(?:the|this|hereinafter)?\s*[\"“”']*effective\s+date", re.IGNORECASE
)
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

    The agreement's date is read from its opening ("dated as of", "entered into this", a letter's date line), or
    else from the signature clause ("executed this Agreement as of"). The effective date is read wherever "the
    Effective Date" is defined or the agreement's term is said to commence, and from "effective as of" in the
    opening or after "this Agreement shall be effective" (elsewhere it is the day some clause takes effect). Both
    rules run on the same body one after the other, so the last body's answer is kept.
    """
    signed: list[Found] = []
    effective: list[Found] = []
    witnessed: list[Found] = []
    for count, (value, match) in enumerate(dates_in(body)):
        if count >= _MOST_DATES:
            return [], []
        opening = match.start() < OPENING_CHARS
        before = body[max(0, match.start() - _CUE_REACH) : match.start()]
        defined = bool(_EFFECTIVE_DATE_BEFORE_RE.search(before) or _EFFECTIVE_AFTER_RE.match(body, match.end()))
        said_effective = bool(
            (opening and _EFFECTIVE_BEFORE_RE.search(before)) or _AGREEMENT_EFFECTIVE_RE.search(before)
        )
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
        start, end = sentence_span(body, match.start(), match.end(), clauses=True)
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
