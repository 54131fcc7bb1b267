"""The dates of a contract: the day it is dated, signed or made (`agreement_date`) and the day it takes effect
(`effective_date`), as ISO strings, each with the sentence that says it.

A date counts only when the words around it say what it is ("dated as of", "(the “Effective Date”)", a letter's
date line): contracts are full of other dates (of amendments, of agreements they replace, of deadlines).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from english.sentences import sentence_span
from retrievers.extraction.found import Found
from retrievers.extraction.rules.contract_sentences import lowered
from retrievers.extraction.rules.contract_signatures import (
    LAST_SIGNING,
    beside_a_signature,
    dated_by_signatures,
    line_around,
)
from retrievers.extraction.rules.text_spans import dates_in

_CUE_REACH = 80
_MOST_DATES = 1000
"""More full dates than any contract holds (CUAD's most has 166): past them the text is a table or a hostile file,
and gives nothing; this also bounds the time it takes."""
OPENING_CHARS = 5000
"""How far into a contract its own date is looked for: the title, preamble and cover letter, before the clauses
that mention the dates of other documents."""
# The words just before a date that make it the date of the agreement ("dated as of", "entered into this", "dated for
# reference").
_SIGNED_CUE_RE = re.compile(
    r"(?:\bdated|\bmade|\bentered\s+into|\bexecuted|\bsigned|\bagreement|\bas\s+of|\bdate:|\bthis)"
    r"(?:\s+(?:and\s+(?:is\s+)?(?:made\s+)?(?:effective|entered\s+into)|effective|(?:as\s+)?of|as|on|this|the|day"
    r"|for\s+reference))*[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date that make it the effective date ("effective as of", "effective on").
_EFFECTIVE_BEFORE_RE = re.compile(
    r"\beffective(?:\s+(?:as\s+(?:of|from)|on|from|of|the|this|day|for\s+all\s+purposes))*[\s,:]*$", re.IGNORECASE
)
# "This letter agreement will be effective as of", "This contract shall be effective as of": the agreement's own
# effective date, wherever it is said.
_AGREEMENT_EFFECTIVE_RE = re.compile(
    r"\bthis\s+(?:[\w-]+\s+){0,3}(?:agreement|contract)\s+(?:shall|will|is)\s+(?:be(?:come)?\s+)?effective"
    r"(?:\s+(?:as\s+of|on|from|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
# The defined term "Effective Date" just before a date ("Effective Date: March 3, 2011", "“Effective Date” means",
# a definitions list's '"EFFECTIVE DATE" - January 21st, 2002', '"EFFECTIVE DATE" means 12:01 a.m. Eastern Standard
# Time on March 3, 2003').
_EFFECTIVE_DATE_BEFORE_RE = re.compile(
    r"\beffective\s+date[\"”)]*\s*(?:(?:shall\s+)?(?:means?|is|be)\b(?:\s+\d{1,2}:\d\d\s*[ap]\.?m\.?)?"
    r"(?:[^.;\d]{0,40}\s(?:on|of))?|:|[-–—])?"
    r"(?:\s+(?:as\s+of|on|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
# The words just before a date on which the agreement's term starts ("The term ... shall commence on").
_STARTS = (
    r"\b(?:commenc\w*|begin(?:s|ning)?|start(?:s|ing)?)(?:[\"”]?\s+(?:on|as\s+of|from|date|the|this|day|of|means|is))*"
    r"[\s,:]*$"
)
_STARTS_RE = re.compile(_STARTS, re.IGNORECASE)
# A term given as the span from one date to another ("TERM OF EXECUTION From January 30, 2012 until July 29, 2012",
# "The Cooperation Term of the parties shall be two years from May 1, 2013 to April 30, 2015"): it starts on the first;
# not another period named between ("During the term, fees for the year from January 1, 2013 to ...").
_TERM_FROM_RE = re.compile(
    r"\bterm\b(?:(?!\b(?:the|each|any|every|fiscal|calendar)\s+(?:year|quarter|month|week|season|period)\b)[^.;\d])"
    r"{0,60}\bfrom(?:\s+the)?\s*$",
    re.IGNORECASE,
)
_SPAN_TO_RE = re.compile(r"\s*,?\s*(?:until|through|to)\s", re.IGNORECASE)
# The defined term "Commencement Date" just before or after a date: the day the term starts, so the effective date,
# though not the day the contract is dated.
_COMMENCEMENT_DATE_BEFORE_RE = re.compile(
    r"\bcommencement\s+date[\"”)]*\s*(?:(?:(?:for|of)\s+this\s+(?:agreement|contract)\s+)?(?:(?:shall|will)\s+)?"
    r"(?:means?|is|be)\b|:)?(?:\s+(?:as\s+of|on|the|this|day|of))*[\s,:]*$",
    re.IGNORECASE,
)
_COMMENCEMENT_AFTER_RE = re.compile(
    r"[\s,]*\(\s*(?:the|this|hereinafter)?\s*[\"“”']*commencement\s+date", re.IGNORECASE
)
_TERM_OF_AGREEMENT_RE = re.compile(r"\b(?:term|agreement|contract)\b", re.IGNORECASE)
# A start said of another span of time just before it ("Licensee's fiscal year beginning", "the Option Starting Date
# means"): that span's start, not the term's.
_ANOTHER_SPAN_STARTS_RE = re.compile(rf"\b(?:year|quarter|month|week|season|option|phase)\s+{_STARTS}", re.IGNORECASE)
# The definition just after a date that names it the effective date: "(the “Effective Date”)", "(“EffectiveDate”)",
# ", hereinafter called the Effective Date"; not a table's next heading ("Trade Date: 27 April 2006 Effective Date
# 01 April 2006").
_NAMED = r"(?:(?:the|this|hereinafter(?:\s+(?:called|referred\s+to\s+as))?)\s*(?:the\s+)?[\"“”']*|[\"“”']+)"
_EFFECTIVE_AFTER = (
    rf"[\s,]*(?:\(\s*(?:such\s+date,?\s*)?{_NAMED}?|(?:such\s+date,?\s*)?{_NAMED})(?:the\s+)?effective\s*date"
)
_EFFECTIVE_AFTER_RE = re.compile(_EFFECTIVE_AFTER, re.IGNORECASE)
# "IN WITNESS WHEREOF, the parties have executed this Agreement as of the 22nd day of May 2001", "has signed this
# Contract in Baoding, People's Republic of China on November 8, 2002".
_WITNESS_RE = re.compile(
    r"\b(?:executed|signed)\s+this\s+(?:agreement|contract)(?:\s+in\s+[^.;\d]{0,60}?)?\s+(?:on|as\s+of|this)[\s\w]{0,12}$",
    re.IGNORECASE,
)
# A sentence about this agreement's own making, wherever it stands (after a long table of contents, or as a closing
# clause): "This Network Build and Maintenance Agreement is entered into as of the 31 day of July, 2019", "14.6 This
# Agreement is dated April 29, 2010." The date must follow a cue of `_SIGNED_CUE_RE` too.
_THIS_AGREEMENT_SUBJECT_RE = re.compile(
    r"(?:\d+(?:\.\d+)*\.?\s+)?this\s+(?:[\w&-]+\s+){0,6}?(?:agreement|contract|amendment)\b", re.IGNORECASE
)
_MADE_RE = re.compile(r"\b(?:is|was|has\s+been)?\s*(?:made|entered\s+into|dated|executed|signed)\b", re.IGNORECASE)
_SUBJECT_TO_DATE_CHARS = 200
# A date standing on its own line near the top, as a letter is dated ("December 11, 2014"), perhaps after the place
# it was written, labelled or followed by a comma ("Date Bogota D.C. January 30, 2012", "Hamburg, 19 November 2012";
# not a table's cells "Astana      January 31, 2000").
_LETTER_DATE_CHARS = 1500
_PLACE = r"(?-i:[A-Z][\w.'’-]*(?:[ \t]+[A-Z][\w.'’-]*){0,3})"
_LINE_BEFORE_RE = re.compile(
    rf"(?:^|\n)[ \t]*(?:dated?:?[ \t]*(?:{_PLACE}[ \t]*,?[ \t]+)?|{_PLACE}[ \t]*,[ \t]*)?$", re.IGNORECASE
)
_LINE_AFTER_RE = re.compile(r"[ \t]*(?:\n|$)")
# A date of another document: in a recital, of an agreement this one amends, replaces or refers to, or of the SEC
# filing a joint filing agreement is about ("the Schedule 13G/A with respect to the shares of ..., dated as of").
_OTHER_DOCUMENT_RE = re.compile(
    r"\bWHEREAS\b|\bthat\s+certain\b|\bpreviously\b|\bpursuant\s+to\b|\bsupersede|\breplace|\bamendment\b.{0,80}?\bto\s+(?:the|that)\b"
    r"|\bSchedule\s+13[DG]\b",
    re.IGNORECASE | re.DOTALL,
)
# An agreement or letter other than this one named just before "dated": "to the Global Maintenance Agreement ref.
# DS/C-3957/14 dated", "have entered into a Separation and Distribution Agreement, dated as of", "by letter dated".
_OTHER_DOCUMENT_BEFORE_RE = re.compile(
    r"(?:\b(?:a|an|the|that|certain|its|their|said|such)\s+(?:[\w-]+\s+){0,6}?"
    r"(?:agreement|contract|lease|plan|amendment|letter)\b[^;]{0,40}?|(?<!this\s)\bletter\s+)"
    r"\bdated(?:\s+(?:as\s+of|on|the|this))*[\s,:]*$",
    re.IGNORECASE,
)
# "to that Software License Agreement, by and between A, Inc. and B, N.A., dated": read back over the "Inc."
# and "N.A." that end a sentence for `sentence_span`, to the date's paragraph, at most `_OTHER_DOCUMENT_REACH` back.
_TO_THAT_AGREEMENT_RE = re.compile(r"\bto\s+that\s+(?:[\w,-]+\s+){0,8}?(?:agreement|contract)\b", re.IGNORECASE)
_OTHER_DOCUMENT_REACH = 300
# Another agreement named unquoted (a defined term 'this "Agreement"' is this one).
_ANOTHER_AGREEMENT_RE = re.compile(r"(?<![\"“])\b(?:agreement|contract|amendment|lease|plan)\b(?![\"”])", re.IGNORECASE)
_OTHER_DOCUMENT_AFTER_RE = re.compile(
    r"[\s,]*(?:\([^()]{0,60}\)\s*)?\(\s*(?:the|this)?\s*[\"“][^\"”]{0,60}\w\s+(?:Agreement|Contract|Lease|Plan)[\"”]"
    r"|\s*regarding\b",
    re.IGNORECASE,
)
# The contract's own date named by words rather than written out: "the date hereof", "the date first above
# written", "the date of this Agreement" (or "the Date of the Agreement"), "the date on which it is signed", the day
# its parties have all signed (`LAST_SIGNING`).
_ITS_OWN_DATE = (
    r"(?:the\s+)?(?:date\s+(?:hereof|of\s+(?:this\s+(?:[\w-]+\s+){0,2}|the\s+)(?:agreement|contract|amendment)"
    r"|(?:first\s+)?(?:above\s+)?(?:written|set\s+forth|shown|stated)(?:\s+above)?|above"
    r"|of\s+(?:its\s+)?(?:execution|signature)|(?:on\s+which|that|when)\s+(?:it|this\s+agreement)\s+is\s+(?:signed|executed))"
    rf"|(?:day|date)\s+and\s+year\s+first\s+(?:above\s+)?written|{LAST_SIGNING})"
)
# Words saying that something takes effect, or that a term starts or runs, on the contract's own date: "shall be
# effective from the date first above written", "The Term shall commence on the date hereof", "“Effective Date”
# means the date first written above", "an initial term of one (1) year from the date first above written"; or naming
# that date the Effective Date: "is entered into as of the date last written below (“the Effective Date”)", "shall
# become effective upon the completion of the execution by both Parties (hereinafter referred to as the "Effective
# Date")"; "takes effect upon the signatures and seals of both Parties", "shall come into force on the Date of the
# Agreement".
_TAKES_EFFECT_ON_ITS_DATE_RE = re.compile(
    rf"(?P<named>\b(?:as\s+of|on)\s+{_ITS_OWN_DATE}(?:\s+(?:below|above))?{_EFFECTIVE_AFTER})"
    r"|(?:\b(?:effective|in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?|(?:enters?|comes?)\s+into\s+force"
    r"|takes?\s+effect)\s+(?:as\s+(?:of|from)|from|on|upon|with\s+effect\s+from)(?:\s+the\s+completion\s+of)?"
    r"|\b(?:(?P<participle>commencing|beginning|starting)|commenc\w*|begin\w*|start\w*)(?:\s+effective)?"
    r"\s+(?:on|as\s+of|from|upon|with)"
    r"|(?P<defined>\b(?:effective|commencement)\s+date[\"”']?\s*(?:shall\s+)?(?:means?|is|be))"
    r"|(?P<counted>\b(?:years?|months?)\)?\s+(?:from|after|following)))"
    rf"\s+{_ITS_OWN_DATE}",
    re.IGNORECASE,
)
# What the words take effect for: the agreement ("This Agreement shall be effective", "executed this Agreement,
# effective as of") or its term, not a person's appointment or a rule's version ("as in effect on the date hereof").
_THIS_AGREEMENT_RE = re.compile(
    r"\bthis\s+(?:[\w-]+\s+){0,3}(?:agreement|contract|amendment)\b|\bterm\b", re.IGNORECASE
)
_NOT_ITS_EFFECT_RE = re.compile(r"\bWHEREAS\b|\brepresent|\bwarrant|\bin\s+effect\s+(?:on|as\s+of)\b", re.IGNORECASE)
_TERM_RE = re.compile(r"\bterm\b", re.IGNORECASE)
_TERM_JUST_BEFORE = 80
"""How near "term" must come before "commencing on the date hereof" for the participle to be the term's start, not a
covenant period's ("during the period commencing on the date hereof") or a venture's."""
_MOST_EFFECT_PHRASES = 200
"""More mentions of the contract's own date than any contract makes: past them the text gives no effective date."""
_ITS_OWN_DATE_ANCHOR_RE = re.compile(
    r"\bdate\s+(?:hereof|of\s|first|above|set|shown|stated|written|on\s+which|that|when|last\s|and\s+year)"
    r"|\bday\s+and\s+year"
    r"|\b(?:last|latest|later)\s+(?:of\s+the\s+)?(?:signature|signing|dates?\b)"
    r"|\b(?:execution|signatures?|signing)\s+(?:and\s+\w+\s+)?(?:of|by)\s+(?:both|all|the)\s+parties\b"
)


class _CuedDates(NamedTuple):
    """The dates a contract gives, by what the words around them say they are, each list in document order."""

    signed: list[Found]
    """Its own date, said in its opening ("dated as of", "entered into this", a letter's date line) or by a sentence
    about its own making anywhere ("This Agreement is dated April 29, 2010")."""
    effective_only: list[Found]
    """The day its opening says it takes effect, with no word of when it was dated ("effective as of")."""
    witnessed: list[Found]
    """The date of the signature clause ("executed this Agreement as of")."""
    beside_signatures: list[Found]
    """The dates written beside its signatures ("Date: 24 OCT 2011"), each cited by its line."""
    effective: list[Found]
    """Its effective date."""


@lru_cache(maxsize=1)
def _cued_dates(body: str) -> _CuedDates:
    """The dates the text gives as the agreement's own date and as its effective date (see `_CuedDates`).

    The effective date is read wherever "the
    Effective Date" (or "the Commencement Date") is defined or the agreement's term is said to commence, and from
    "effective as of" in the opening or after "this Agreement shall be effective" (elsewhere it is the day some
    clause takes effect). Both rules run on the same body one after the other, so the last body's answer is kept.
    """
    cued = _CuedDates([], [], [], [], [])
    signature_line_end = -1
    for count, (value, match) in enumerate(dates_in(body)):
        if count >= _MOST_DATES:
            return _CuedDates([], [], [], [], [])
        opening = match.start() < OPENING_CHARS
        before = body[max(0, match.start() - _CUE_REACH) : match.start()]
        defined = bool(_EFFECTIVE_DATE_BEFORE_RE.search(before) or _EFFECTIVE_AFTER_RE.match(body, match.end()))
        said_effective = bool(
            (opening and _EFFECTIVE_BEFORE_RE.search(before)) or _AGREEMENT_EFFECTIVE_RE.search(before)
        )
        # A date on the line of a signature's date is another signature's ("Date:   Date:   3-29-2016   3-31-16").
        signed_beside = match.start() < signature_line_end or beside_a_signature(body, match.start(), match.end())
        if signed_beside:
            signature_line_end = max(signature_line_end, line_around(body, match.start(), match.end())[1])
        signed_cue = _SIGNED_CUE_RE.search(before) if opening else None
        effective_cue = _EFFECTIVE_BEFORE_RE.search(before) if signed_cue else None
        # "effective as of" says when it takes effect, not when it was dated ("as of" alone is a cue of the latter).
        said_signed = (
            bool(signed_cue)
            and not signed_beside
            and not (effective_cue and effective_cue.start() <= signed_cue.start())
        )
        letter = (
            not signed_beside
            and match.start() < _LETTER_DATE_CHARS
            and bool(_LINE_BEFORE_RE.search(before))
            and bool(_LINE_AFTER_RE.match(body, match.end()))
        )
        signature = bool(_WITNESS_RE.search(before))
        later_cue = not opening and _SIGNED_CUE_RE.search(before)
        starts = bool(
            _STARTS_RE.search(before) or (_TERM_FROM_RE.search(before) and _SPAN_TO_RE.match(body, match.end()))
        )
        commences = bool(_COMMENCEMENT_DATE_BEFORE_RE.search(before) or _COMMENCEMENT_AFTER_RE.match(body, match.end()))
        if (
            not (defined or said_effective or said_signed or letter or signature or starts or commences)
            and not later_cue
            and not signed_beside
        ):
            continue
        start, end = sentence_span(body, match.start(), match.end(), clauses=True)
        self_stated = bool(later_cue) and _says_its_own_making(body, start, match.start())
        if starts and (not _TERM_OF_AGREEMENT_RE.search(before) or _ANOTHER_SPAN_STARTS_RE.search(before)):
            starts = False
        if (
            (_OTHER_DOCUMENT_RE.search(body, start, match.start()) and not _EFFECTIVE_AFTER_RE.match(body, match.end()))
            or _TO_THAT_AGREEMENT_RE.search(body, _paragraph_start(body, start, match.start()), match.start())
            or _OTHER_DOCUMENT_BEFORE_RE.search(before)
            or _OTHER_DOCUMENT_AFTER_RE.match(body, match.end())
        ):
            continue
        found = Found(value.isoformat(), start, end)
        if defined or said_effective or starts or commences:
            cued.effective.append(found)
        if (opening and (said_signed or letter)) or self_stated:
            cued.signed.append(found)
        elif opening and (defined or said_effective):
            cued.effective_only.append(found)
        elif signature:
            cued.witnessed.append(found)
        elif signed_beside:
            cued.beside_signatures.append(Found(found.value, *line_around(body, match.start(), match.end())))
    return cued


def _says_its_own_making(body: str, start: int, date_start: int) -> bool:
    """Whether the sentence from `start` to a date is "This ... Agreement is made/entered into/dated ...", with no
    other agreement named between (the cue just before the date was checked by the caller)."""
    subject = _THIS_AGREEMENT_SUBJECT_RE.match(body, start, date_start)
    if subject is None or date_start - subject.end() > _SUBJECT_TO_DATE_CHARS:
        return False
    between = body[subject.end() : date_start]
    return bool(_MADE_RE.search(between)) and not _ANOTHER_AGREEMENT_RE.search(between)


def _paragraph_start(body: str, sentence_start: int, date_start: int) -> int:
    """Where "to that ... Agreement" is looked for before a date: its paragraph, at most `_OTHER_DOCUMENT_REACH`
    characters back, or its sentence if that starts earlier."""
    reach = max(0, date_start - _OTHER_DOCUMENT_REACH)
    return min(sentence_start, max(reach, body.rfind("\n\n", reach, date_start) + 2))


def agreement_date(body: str) -> list[Found]:
    """The date the contract is dated, signed or made: the first full date its opening (or a sentence about its
    own making) says is one, else the date of its signature clause, else the day its opening says it takes effect,
    else its signatures' date."""
    cued = _cued_dates(body)
    return (
        cued.signed[:1] or cued.witnessed[:1] or cued.effective_only[:1] or dated_by_signatures(cued.beside_signatures)
    )


def effective_date(body: str) -> list[Found]:
    """The date the contract takes effect: the first full date the text calls its effective date, else its own
    date (as `agreement_date` reads it, its signatures' included) where the text says it takes effect, or its term
    starts, on that date or on its last signature.

    In the second case the value is the agreement's date and the citation the sentence saying it takes effect
    then ("This Agreement shall be effective from the date first above written"): a contract that says nothing of
    when it takes effect gets no effective date, even though it is dated.
    """
    cued = _cued_dates(body)
    own = agreement_date(body)
    if cued.effective or not own:
        return cued.effective[:1]
    said = _takes_effect_on_its_date(body)
    return [Found(own[0].value, *said)] if said else []


def _takes_effect_on_its_date(body: str) -> tuple[int, int] | None:
    """The sentence saying the agreement takes effect, or its term starts, on the agreement's own date.

    Found from the words naming the date ("date hereof"), looked for in the lower-cased text, then the words
    before them: a case-blind scan of a 10 MB text for every way of taking effect would take seconds."""
    for count, anchor in enumerate(_ITS_OWN_DATE_ANCHOR_RE.finditer(lowered(body))):
        if count >= _MOST_EFFECT_PHRASES:
            return None
        match = _TAKES_EFFECT_ON_ITS_DATE_RE.search(
            body, max(0, anchor.start() - _CUE_REACH), anchor.end() + _CUE_REACH
        )
        if match is None:
            continue
        start, end = sentence_span(body, match.start(), match.end(), clauses=True)
        if _NOT_ITS_EFFECT_RE.search(body, start, match.end()):
            continue
        if match["defined"] or match["named"] or _EFFECTIVE_AFTER_RE.match(body, match.end()):
            return start, end
        just_before = max(start, match.start() - _TERM_JUST_BEFORE)
        if match["participle"] and not _TERM_RE.search(body, just_before, match.start()):
            continue
        if match["counted"] and not _TERM_RE.search(body, start, end):
            continue
        if _THIS_AGREEMENT_RE.search(body, start, match.start()):
            return start, end
    return None
