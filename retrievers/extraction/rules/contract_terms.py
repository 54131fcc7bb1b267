"""How long a contract runs: when it expires, whether it is perpetual, how it renews and the notice to stop that.

Read as CUAD's lawyers labelled them: the expiration date is the one the term sentence names ("shall terminate
on December 31, 2020") or the one it implies from a stated start ("five (5) years from the Effective Date", the
Effective Date being dated in the contract): the same day N years or months later. A term that runs "until
terminated" makes the contract perpetual; a fixed end makes it not. Renewal terms and notice periods are the
durations of the renewal sentence, in days as `normalize.parse_duration` counts them; whether the term renews by
itself is that sentence's wording (CUAD labels no such field: a user asks it of their own contracts).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

from dateutil.relativedelta import relativedelta

from english.numbers import WORD_NUMBER
from retrievers.extraction.found import FieldRule, Found
from retrievers.extraction.rules.contract_dates import agreement_date, effective_date
from retrievers.extraction.rules.contract_sentences import (
    MAX_CANDIDATES,
    cue,
    lowered,
    sentence_span,
    sentences_matching,
    words,
)
from retrievers.loaders.normalize import parse_date, parse_duration

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_ORDINAL_SUFFIX = r"(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h)\b)?"
DATE = (
    rf"(?:{_MONTH}\s+\d{{1,2}}{_ORDINAL_SUFFIX}\s?[,.]?\s+(?:19|20)\d\d"
    rf"|\d{{1,2}}{_ORDINAL_SUFFIX}\s+(?:day\s+of\s+)?{_MONTH}\s?,?\s+(?:19|20)\d\d"
    r"|\d{1,2}/\d{1,2}/(?:19|20)\d\d)"
)
DURATION = rf"(?:\d{{1,3}}|{WORD_NUMBER})(?:\s*\(\s*\d{{1,3}}\s*\))?[\s-]*(?:day|week|month|year)s?\b"
_DATE = re.compile(DATE, re.IGNORECASE)
_DURATION = re.compile(DURATION, re.IGNORECASE)


_DATE_NOISE = re.compile(r"(?<=\d)\s?(?:s\s?t|n\s?d|r\s?d|t\s?h)\b|\bday\s+of\b|\s(?=[,.])|(?<=\d)\.", re.IGNORECASE)


def _date(text: str) -> date | None:
    """A date as contracts type it ("1s t day of June, 2004", "April 15 , 2010", "March 18. 2021")."""
    return parse_date(_DATE_NOISE.sub("", text), day_first=False)


# --- expiration ---------------------------------------------------------------------------------------

_DATE_SPAN = (
    rf"\b(?:term|duration|validity)s?\b[^.;]{{0,60}}?\b(?:from|beginning|commencing|starting)\s+(?:on\s+)?{DATE}\s*,?\s+(?:and\s+)?(?:until|through|thru|to|"
    rf"(?:ending|expiring|concluding)(?:\s+on)?)\s+{DATE}"
)
"""A term given as its first and last days ("From January 30, 2012 until July 29, 2012", "12 weeks from February 8,
2018 to May 3, 2018", "a fixed term Joint Venture beginning November 27, 2018 and ending November 30th, 2019"): the
last day is the expiration. The span must be said of a term ("the period commencing December 1, 2001 and ending
December 31, 2001" sets a fee, "during the period beginning ..." an exclusivity)."""
_TERM_CUE = cue(r"term|commenc|begin|continu|remain|expir|valid|effect")
_TERM_SENTENCE = words(
    r"(?<!such\s)(?<!this\s)(?<!that\s)\b(?:initial\s+|contract\s+)?term[\"”]?\s+(?:of\s+(?:this|the)\s+(?:\w+\s+){1,2})?"
    r"(?:\([^()]{0,40}\)\s+)?(?:shall|will|is|to)\b|"
    r"(?<!during\sthe\s)(?<!throughout\sthe\s)\bterm\s+of\s+(?:this|the)\s+[^.;]{0,40}?\b(?:shall|will)\s+"
    r"(?:commence|begin|continue|expire|end|be)\b|"
    r"\bterm\s+of\s+(?:this|the)\s+\w+\s+(?:commences|begins|continues|expires|ends)\b|"
    r"\b(?:this|the)\s+(?:\w+\s+)?(?:agreement|contract|amendment|joint\s+venture)\s+(?:(?:shall|will|is)\s+(?:\w+\s+){0,4}"
    r"(?:commence|begin|continue|remain|expire|terminate|end|(?:be(?:come)?\s+)?effective|be\s+(?:valid|for|in\s+"
    r"(?:full\s+)?(?:force|effect))|have\s+an?\s+(?:initial\s+)?term)\b|(?:commences|begins|continues|remains)\b"
    r"|is\s+for\s+an?\s+(?:initial\s+)?(?:term|period)\b)|"
    r"\beffective\s+(?:term|period)\b|^\W*term\s*:|\b(?:shall|will)\s+(?:automatically\s+)?(?:terminate|expire)\s+on\b|"
    rf"\b(?:shall|will)\s+(?:automatically\s+)?(?:terminate|expire)\s+{DATE}|{_DATE_SPAN}"
)
# Words before a term sentence's length or date that make it the term of something else (a lease, an option, a
# covenant, exclusivity) or a period after termination. Read only up to the length or date: a term sentence that
# goes on to termination for breach is still the contract's.
_NOT_THE_CONTRACT = words(
    r"\b(?:patent|option|warrant|lease|offer|insurance|policy|loan|note|confidential\w*|surviv\w*|"
    r"solicit\w*|compet\w*|exclusivity)\b|\bdate\s+of\s+(?:such\s+)?termination\b"
    r"|\b(?:calendar|contract|fiscal|lease|royalty)\s+(?:year|quarter|month|term)s?\b"
    r"|\b(?:after|following)\s+(?:its\s+|the\s+|any\s+)?(?:expiration\s+or\s+)?termination\b"
)
# The date a term sentence says the term ends on: the one after a word of ending ("shall expire on", "until",
# "through"), not one after "take effect on" or "enter into force on", which is its first day ("shall take effect on
# December 1st, 2015 and shall expire on November 30, 2016"); "remain in effect until" ends at "until".
_EXPLICIT_END = words(
    rf"\b(?:terminat\w*|expir\w*|end(?:s|ing)?|conclud\w*|until|through|thru|to)\s+(?:on\s+|at\s+|as\s+of\s+|"
    rf"at\s+midnight\s+on\s+)?(?:and\s+including\s+)?(?:the\s+(?:earlier|later)\s+of:?\s+(?:\(?[a-z0-9]{{1,3}}\)\s*)?)?"
    rf"(?:the\s+)?(?P<date>{DATE})"
)
_STATED_START = words(
    rf"\b(?:commenc\w*|begin\w*|from|effective)\s+(?:on\s+|upon\s+|as\s+of\s+)?(?:the\s+)?(?P<date>{DATE})"
)
_NTH = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|fifteenth|twentieth"
_FIXED_TERM = words(
    rf"(?:\b(?:for|of|be|is|have|until)|\bterm\s*:)\s+(?:at\s+least\s+)?(?:an?\s+(?:minimum\s+|initial\s+)?"
    rf"(?:(?:term|period)\s+of\s+)?|the\s+(?:initial\s+)?(?:term|period)\s+of\s+)?(?P<duration>{DURATION})"
    rf"|\bfor\s+the\s+(?:(?:initial|entire|full)\s+)?(?P<the_duration>{DURATION})\s+(?:initial\s+)?(?:term|period)"
    rf"|\b(?P<nth>{_NTH})\s*(?:\(\d+\s?(?:st|nd|rd|t\s?h)\)\s*)?anniversary\s+of\s+the\s+"
    rf"(?:effective\s+date|commencement\s+date|date\s+hereof|date\s+of\s+this\s+agreement)|\b(?P<years>\d{{1,2}})\)?\s*(?:\(\w+\)\s*)?[\s-]*year\s+anniversary"
    rf"|\bend\s+of\s+(?:(?:the\s+)?year\s+(?P<year_n>\d{{1,2}})\b|the\s+(?P<nth_year>{_NTH})"
    r"\s*(?:\(\d+\s?(?:st|nd|rd|t\s?h)\)\s*)?year\b|the\s+(?P<this_year>(?:then[\s-])?current\s+"
    r"calendar\s+year)\b)"
)
_OTHER_START = words(
    r"\b(?:launch|first\s+commercial|completion|delivery|approval|acceptance|opening|installation|closing)\b"
    r"|\bfrom\s+the\s+date\s+(?:on\s+which|that|when)\s+(?!(?:this|the)\s+(?:agreement|contract)\b|it\s)"
)
"""A term counted from an event the contract cannot date (a launch, a first sale, "the date on which the channel is
uploaded"): no date can be counted. An
anniversary names what it counts from ("the fourth (4th) anniversary of the Effective Date"), so an event the
sentence names beside it ("or (b) the completion of the Research") does not unsettle it, nor one it runs from till "the
end of the current calendar year" (that year's last day whichever day it starts)."""
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "fifteenth": 15, "twentieth": 20}  # fmt: skip
_TERM_SENTENCES_READ = 8


_ITS_OWN_DATE = words(
    r"\bdate\s+(?:hereof|of\s+this\s+(?:[\w-]+\s+){0,2}(?:agreement|contract)|(?:first\s+)?(?:above\s+)?"
    r"(?:written|set\s+forth|shown|stated)|of\s+(?:its\s+)?execution|signed)"
)
"""A term counted from the day the contract is dated ("the seventh anniversary of the date hereof"), which may not be
the day it takes effect."""


_COUNTED_FROM_REACH = 80
_EFFECTIVE_DATE = words(r"\beffective\s+date\b")


def _start_date(body: str, sentence: str, fixed: re.Match[str]) -> date | None:
    """The date the term is counted from: the day the contract is dated when the words just after its length name
    that day, else a start the sentence states, else the day the contract calls its effective date, else the day it
    is dated; none when the term runs from an Effective Date the contract gives no date for ("the date the Site
    becomes fully operational")."""
    dated = agreement_date(body)
    if dated and _ITS_OWN_DATE.search(sentence, fixed.start(), fixed.end() + _COUNTED_FROM_REACH):
        return date.fromisoformat(dated[0].value)
    began = _STATED_START.search(sentence)
    if began and (stated := _date(began["date"])):
        return stated
    effective = effective_date(body)
    if not effective and _EFFECTIVE_DATE.search(sentence, fixed.start()):
        return None
    for found in (*effective, *dated):
        return date.fromisoformat(found.value)
    return None


@lru_cache(maxsize=4)
def _term(body: str) -> tuple[date | None, bool, int, int] | None:
    """The initial term: (its last day when known, whether it has a fixed end, sentence start, end), or None.

    Remembered for the last few bodies: the expiration and perpetual rules both read it."""
    read: set[int] = set()
    counted: tuple[date | None, bool, int, int] | None = None
    for start, end in sentences_matching(body, _TERM_CUE, _TERM_SENTENCE):
        if counted is not None and start > counted[3] + _NEXT_SENTENCE_REACH:
            break
        sentence = body[start:end]
        stated = _EXPLICIT_END.search(sentence)
        fixed = _FIXED_TERM.search(sentence)
        said_to = max((found.end() for found in (stated, fixed) if found), default=len(sentence))
        if fixed and (fixed["nth_year"] or fixed["year_n"] or fixed["this_year"]):
            said_to = fixed.start()  # its own years ("the fifteenth Contract Year") are the contract's
        if start in read or _NOT_THE_CONTRACT.search(sentence, 0, said_to):
            continue
        read.add(start)
        if len(read) > _TERM_SENTENCES_READ:
            break
        if stated and (end_date := _date(stated["date"])):
            return end_date, True, start, end
        if counted is not None:
            break
        if fixed and not (fixed["nth"] or fixed["this_year"]) and _OTHER_START.search(sentence):
            return None, True, start, end
        if fixed:
            first_day = _start_date(body, sentence, fixed)
            last_day = _counted_end(first_day, fixed) if first_day else None
            if last_day and (fixed["duration"] or fixed["the_duration"]):
                last_day = _before_a_dated_renewal(body, last_day)
            counted = last_day, True, start, end
            if _STATED_START.search(sentence):
                break
    return counted


_NEXT_SENTENCE_REACH = 10
"""How far after a term counted from the contract's date the next sentence may start and still state the term's
dates instead ("This Agreement shall have an Initial Term of three (3) years. The Term shall commence on July 23, 2013
and shall expire on July 22, 2016"): the stated last day is the one the contract means."""


_EXPIRATION_DATE_CUE = cue(r"expiration date|expiry date|termination date|end date")
_DEFINED_EXPIRATION = words(
    r"\b(?:expiration|expiry|termination|end)\s+date[\"”]?\s*(?::|(?:shall\s+)?means?|is|shall\s+be)\s*(?:the\s+)?"
    rf"(?P<date>{DATE})"
)


_DEFINED_TERM = words(
    r"[\"“](?:(?:initial|contract|agreement|sponsorship|endorsement|license|service)\s+)?(?:term|period)[\"”]\s+"
    rf"(?:shall\s+)?means?\s+(?:that\s+|the\s+)?(?:(?:period|term)\b|{DATE})[^.;]{{0,120}}?"
    r"\b(?:(?:conclud|end|expir|terminat)\w*|through(?:\s+to)?|until|to)\s+"
    rf"(?:on\s+)?(?:and\s+including\s+)?(?P<date>{DATE})"
)
"""A term defined with its dates ('"Contract Period" shall mean that period of time commencing on January 1, 2000
and concluding December 31, 2003', "from February 21, 2011 through December 31, 2012", '"Service Period" means April
1st 2019 through to March 30, 2020'): the contract's own name for its term, so its end is the expiration."""


def expiration(body: str) -> list[Found]:
    """The date the initial term ends, stated or counted from the start, or else the date the contract defines as
    the end of its term ("'Contract Period' shall mean ... concluding December 31, 2003") or as its Expiration
    Date ("Expiration Date: August 31, 2006", which "shall expire on the Expiration Date" refers to; "Termination
    Date: December 31, 2023" on a cover sheet); [] when none is clear."""
    term = _term(body)
    if term is not None and term[0] is not None:
        last_day, _, start, end = term
        return [Found(last_day.isoformat(), start, end)]
    defined = _DEFINED_TERM.search(body)
    if defined and (last_day := _date(defined["date"])):
        return [Found(last_day.isoformat(), *sentence_span(body, defined.start(), defined.end()))]
    for count, named in enumerate(_EXPIRATION_DATE_CUE.finditer(lowered(body))):
        if count >= MAX_CANDIDATES:
            break
        defined = _DEFINED_EXPIRATION.match(body, named.start())
        if defined and (last_day := _date(defined["date"])):
            return [Found(last_day.isoformat(), *sentence_span(body, defined.start(), defined.end()))]
    return []


_DATED_RENEWAL_CUE = cue(r"renew|additional|successive|extension")
_DATED_RENEWAL = words(
    r"\b(?:renew\w*|additional|successive|extension)\b[^.;]{0,80}?\b(?:begin|commenc|start)\w*\s+"
    rf"(?:on\s+|as\s+of\s+)?(?:the\s+)?(?P<date>{DATE})"
)


def _before_a_dated_renewal(body: str, counted: date) -> date:
    """The last day of a term of a length ("for an initial period of five (5) years" from January 1, 2000): the same
    day so many years later (January 1, 2005), as CUAD's labels count it (66 of the 67 tune contracts whose term is
    a length and whose label agrees with either day, "commencing on January 2, 2020 ... for one (1) year" included),
    unless the contract dates a renewal that begins that very day ("one (1) additional five year period that shall
    begin on January 1, 2005"), which puts the term's last day on the day before. A term that ends "on the fifth
    anniversary" names its last day, so the caller asks this of lengths only."""
    for start, end in sentences_matching(body, _DATED_RENEWAL_CUE, _DATED_RENEWAL):
        for renewal in _DATED_RENEWAL.finditer(body, start, end):
            if _date(renewal["date"]) == counted:
                return counted - timedelta(days=1)
    return counted


def _counted_end(first_day: date, fixed: re.Match[str]) -> date | None:
    """The same day so many years or months after `first_day`, as the labels count a term: the end of its Nth year
    too ("until the end of Year 3", "the end of the fifteenth (15th) Contract Year"); the end of "the current
    calendar year" is the last day of the year it starts in."""
    if fixed["this_year"]:
        return date(first_day.year, 12, 31)
    if nth := fixed["nth"] or fixed["nth_year"]:
        return first_day + relativedelta(years=_ORDINALS[nth.lower()])
    if years := fixed["years"] or fixed["year_n"]:
        return first_day + relativedelta(years=int(years))
    days = parse_duration(fixed["duration"] or fixed["the_duration"])
    if days is None:
        return None
    years, rest = divmod(days, 365)
    if rest % 30:
        return first_day + relativedelta(years=years, days=rest)
    return first_day + relativedelta(years=years, months=rest // 30)


# --- perpetual ----------------------------------------------------------------------------------------

_UNTIL_TERMINATED = words(
    r"\b(?:continue|remain|be\s+valid|be\s+effective)\s+(?:in\s+(?:full\s+)?(?:force|effect)\s+(?:and\s+effect\s+)?)?"
    r"(?:thereafter\s+)?(?:indefinitely|perpetually|in\s+perpetuity|until\s+(?:it\s+is\s+)?terminated|until\s+"
    r"(?:either|one)\s+party|until\s+the\s+(?:expiration\s+or\s+)?(?:earlier\s+)?termination\s+of\s+(?:the|that)\b)"
    r"|\bindefinite\s+(?:period|term|duration)\b|\bperpetual\s+term\b"
)


def perpetual(body: str) -> list[Found]:
    """True when the term runs until someone ends it, False when it has a fixed end, [] when unclear."""
    term = _term(body)
    if term is not None:
        return [Found(False, term[2], term[3])]
    for start, end in sentences_matching(body, cue(r"until|indefinite|perpetu"), _UNTIL_TERMINATED, None, _FIXED_TERM):
        return [Found(True, start, end)]
    return []


# --- renewal and notice -------------------------------------------------------------------------------

_RENEWAL_CUE = cue(r"renew|extend|extension|continue")
_RENEWAL = words(r"\b(?:renew\w*|extend\w*|extension|continue\s+(?:automatically|thereafter))\b")
_RENEWAL_KIND = words(
    r"\bautomatic\w*|\bsuccessive|\badditional|\bsubsequent|\bfurther|\byear[\s-]to[\s-]year|\bannual"
)
_RENEWAL_LENGTH = words(
    rf"(?:successive|additional|subsequent|further|renewal|consecutive|another)\s+(?:terms?\s+of\s+|periods?\s+of\s+)?"
    rf"(?:\w+\s+)?(?:\(\d+\)\s+)?(?P<a>{DURATION})|(?P<b>{DURATION})\s*(?:renewal\s+)?(?:periods?|terms?|increments?|"
    rf"extensions?|basis)|(?P<yearly>year[\s-]to[\s-]year|successive\s+annual|annual\s+(?:periods|basis|renewal)|"
    rf"renewed\s+tacitly\s+every\s+year|(?:another|additional|further)\s+year\b)|(?P<monthly>month[\s-]to[\s-]month)"
)
_NOT_A_RENEWAL = words(r"\bmutual\w*|\bwarrant\w*|\bmeans\b|\binsur\w*|\bstandstill\b")
_STOPS_RENEWAL = words(
    r"\bnon-?\s?renewal|\bnot\s+(?:to\s+)?(?:be\s+)?(?:renew|extend)|\bintention\s+not|\bterminat|\bcancel|\bunless\b"
)
"""Renewal by a new agreement is no renewal term, and a warranty or a definition is not the contract's term."""
_NOTICE = words(rf"(?P<duration>{DURATION})\s*(?:'|’)?\s*(?:prior|before|in\s+advance|advance|written\s+notice|notice)")


def renewal_terms(body: str) -> list[Found]:
    """The length of each renewal, from the sentence that renews or extends the term."""
    for start, end in sentences_matching(body, _RENEWAL_CUE, _RENEWAL, _RENEWAL_KIND, _NOT_A_RENEWAL):
        sentence = body[start:end]
        renews = _RENEWAL.search(sentence)
        length = _RENEWAL_LENGTH.search(sentence, renews.start() if renews else 0)
        if not length:
            continue
        if length["yearly"]:
            days = 365
        elif length["monthly"]:
            days = 30
        else:
            days = parse_duration(length["a"] or length["b"])
        return [Found(days, start, end)] if days else []
    return []


_RENEWS = r"(?:renew|extend|continu)\w*"
_RENEWS_ITSELF = words(
    rf"\b(?:agreement|term|contract)\b[^.;]{{0,250}}?\bautomatic(?:ally)?\s+(?:\w+\s+){{0,2}}?renew|"
    rf"\b(?:agreement|term|contract)\b[^.;]{{0,100}}?(?:\bautomatic(?:ally)?\s+(?:\w+\s+){{0,2}}?{_RENEWS}|\b{_RENEWS}\s+"
    rf"(?:\w+\s+){{0,3}}?automatic(?:ally)?\b|\b(?:shall|will)\s+(?:thereafter\s+)?(?:be\s+)?(?:renew|extend)\w*\b"
    r"[^.;]{0,200}?\bunless\b)|\bauto-?renew\w*|\bevergreen\b|\b(?:year|month)[\s-]to[\s-](?:year|month)\b[^.;]{0,120}?"
    r"\bunless\b"
)
"""A term that renews by itself: "this Agreement shall automatically renew", "the Term shall be extended ... unless
either party gives notice", "from year to year unless terminated"; the agreement or its term is what renews (a
time period "automatically extended" by a delay is no renewal). "Automatically renewed" may stand far after the
agreement's word ("This agreement shall begin upon ... and shall remain in effect until ... and shall be
automatically renewed"); an extension only near it, as other periods are extended too. A word or two may stand
between ("subject to automatic successive renewal terms")."""
_RENEWS_BY_CHOICE = words(
    r"\bmay\s*(?:,\s*at\s+its\s+option\s*,)?\s+(?:be\s+(?:mutually\s+)?(?:renewed|extended)|(?:renew|extend)\s+(?:this|the)\s+"
    r"(?:agreement|term|contract))|\boption\s+to\s+(?:renew|extend)|"
    r"\bat\s+(?:the\s+|its\s+)?(?:sole\s+)?(?:option|discretion)\b|"
    r"\b(?:renew|extend)(?:ed|s)?\b[^.;]{0,100}?(?:\bmutual(?:ly)?\s+(?:written\s+)?(?:agree|consent)|\b(?:upon|by)\s+(?:the\s+)?"
    r"(?:mutual\s+)?(?:written\s+)?agreement\b|\bin\s+a\s+writing\s+executed|\bif\s+(?:both|the)\s+parties\s+(?:so\s+)?agree)|"
    r"\b(?:mutual(?:ly)?|parties)\b[^.;]{0,40}?\bagree[sd]?\b[^.;]{0,60}?\b(?:renew|extend)|"
    r"\b(?:shall|will)\s+not\s+(?:be\s+)?(?:automatically\s+)?(?:renew|extend)\w*"
)
"""A renewal that needs a choice: one party's option, both parties' agreement, or none at all ("shall not renew")."""
_NOT_THE_TERM = words(r"\bwarrant\w*|\bmeans\b|\binsur\w*|\bstandstill\b|\blicen[cs]e\s+key")
_TERM_WORD = words(r"\b(?:this|the)\s+(?:[\w-]+\s+){0,3}?(?:agreement|term|contract)\b")
"""What a renewal renews: this agreement, its term, or the contract named by what it is ("the maintenance and
support contract"). "May extend ... any indebtedness" of a guarantee, or "this time limit may be extended by
agreement of the parties", is no renewal."""
_RENEWAL_SENTENCES_READ = 20


def renews_automatically(body: str) -> list[Found]:
    """True when a renewal sentence renews the term by itself (unless a party gives notice), even where another
    allows renewing by agreement or option too ("may be renewed ... by mutual written agreement. ... In the event
    that either party does not give such notice, the term ... shall be automatically renewed"); False when the
    renewal sentences only need an option taken or an agreement made; [] when none says one or the other alone."""
    by_choice: Found | None = None
    for count, (start, end) in enumerate(sentences_matching(body, _RENEWAL_CUE, _RENEWAL, _TERM_WORD, _NOT_THE_TERM)):
        if count >= _RENEWAL_SENTENCES_READ:
            break
        itself, choice = _RENEWS_ITSELF.search(body, start, end), _RENEWS_BY_CHOICE.search(body, start, end)
        if itself and not choice:
            return [Found(True, start, end)]
        if choice and not itself and by_choice is None:
            by_choice = Found(False, start, end)
    return [by_choice] if by_choice else []


def notice_periods(body: str) -> list[Found]:
    """The notice needed to stop the term renewing, from the sentence about renewal or non-renewal."""
    for start, end in sentences_matching(body, _RENEWAL_CUE, _RENEWAL, _STOPS_RENEWAL, _NOT_A_RENEWAL):
        notice = _NOTICE.search(body, start, end)
        if notice and (days := parse_duration(notice["duration"])):
            return [Found(days, start, end)]
    return []


RULES: dict[str, FieldRule] = {
    "expiration_date": expiration,
    "perpetual": perpetual,
    "renewal_term_days": renewal_terms,
    "notice_period_days": notice_periods,
    "auto_renewal": renews_automatically,
}
