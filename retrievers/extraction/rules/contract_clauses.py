"""Yes/no clauses of a contract (CUAD's categories): is there a non-compete, an audit right, an exclusivity ...?

Each clause is a few `Test`s: words that place a candidate sentence (`anchor`), words the sentence must also hold
(`require`) and words that show it is about something else (`exclude`). The first sentence passing any test is the
clause (True, cited). A contract of some length where no sentence passes has no such clause (False, nothing to
cite); a text too short to be a contract gets no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from english.sentences import sentence_span
from retrievers.extraction.found import FieldRule, Found
from retrievers.extraction.rules.contract_sentences import cue, sentences_matching, words

MIN_CONTRACT_CHARS = 2000
"""Below this a text is a fragment, or a very short contract: the absence of a clause from it says nothing, though a
clause it states is still there (an outside probe's 1,240-character contract with a non-compete got no clause)."""


@dataclass(frozen=True)
class Test:
    """One way a clause is written: a sentence with `cue_words` and `anchor`, holding `require`, not `exclude`.
    A sentence that passes but also holds `doubt` is written like the clause yet is often something else: it
    leaves the contract unanswered rather than claimed."""

    cue_words: re.Pattern[str]
    anchor: re.Pattern[str]
    require: re.Pattern[str] | None = None
    exclude: re.Pattern[str] | None = None
    per_item: bool = False
    """Read `exclude` only in the list item holding what `require` found ("(i) ... ; (ii) ..."), not the whole
    sentence: a termination right on notice alone and another for breach are often items of one sentence."""
    doubt: re.Pattern[str] | None = None
    lead_in: bool = False
    """Look for `require` also in the lead-in of the list the sentence is an item of, when it is not in the item:
    a contract's list of events ("Owner may terminate this Agreement upon any of the following: ... (b) an Operator
    Change of Control;") or of restraints ("The Distributor shall not: ... (b) act as agent for any goods which are
    competitive with the Product") often has its items on lines of their own, read as sentences of their own."""


_LIST_ITEM = re.compile(r"\(?(?:[a-z]{1,3}|[ivx]{1,5}|\d{1,2}(?:\.\d{1,2})*)[.)]\s")
_LEAD_IN_REACH = 1500
"""How far before a list item its lead-in ("... any of the following:") may end: a few items, or a page header,
lie between them."""


def lead_in(body: str, start: int) -> str:
    """The sentence ending in a colon that introduces the list whose item starts at `start`, or "" when the text
    there is no list item (it starts with no item mark and no colon ends the text just before it)."""
    window = body[max(0, start - _LEAD_IN_REACH) : start]
    colon = window.rfind(":")
    if colon < 0 or not (_LIST_ITEM.match(body, start) or not window[colon + 1 :].strip()):
        return ""
    at = start - len(window) + colon
    return body[sentence_span(body, at, at + 1)[0] : at]


_LIST_BREAK = re.compile(r";|:\s|\(\s?(?:[a-z]{1,3}|[ivx]{1,5}|\d{1,2})\s?\)\s", re.IGNORECASE)

_DEFINITION_OR_RECITAL = re.compile(
    r"(?:^|[.;:]\s|\(\w{1,4}\)\s|\d\.[\d.]*\s)\s*[\"\u201c][^\"\u201c\u201d]{1,80}[\"\u201d]\s*"
    r"(?:shall\s+)?(?:means?|refers?\s+to|has\s+the\s+meaning|includes?)\b|\bwhereas\b",
    re.IGNORECASE,
)
"""A definition ('"Change of Control" means ...', '"Change in control" shall include ...') or a recital ('WHEREAS
...') names a clause's subject without being the clause, which is what the parties agree in an operative sentence:
alone it leaves the answer open."""


class Verdict(Enum):
    """What one sentence says about a clause."""

    CLAUSE = "clause"
    DOUBTFUL = "doubtful"


def _verdict(test: Test, sentence: str, introduced: str = "") -> Verdict | None:
    if not test.anchor.search(sentence):
        return None
    required = test.require.search(sentence) if test.require is not None else None
    if (
        test.require is not None
        and required is None
        and not (introduced and test.require.search(f"{introduced} {sentence}"))
    ):
        return None
    part = sentence
    if test.per_item and required is not None:
        begin = max((cut.end() for cut in _LIST_BREAK.finditer(sentence, 0, required.start())), default=0)
        after = _LIST_BREAK.search(sentence, required.end())
        part = sentence[begin : after.start() if after else len(sentence)]
    if test.exclude is not None and test.exclude.search(part):
        return None
    if _DEFINITION_OR_RECITAL.search(sentence) or (test.doubt is not None and test.doubt.search(sentence)):
        return Verdict.DOUBTFUL
    return Verdict.CLAUSE


_NOT_TO = r"\bnot\s+to\b(?!\s+(?:exceed|be\s+unreasonably)\b)"
"""A promise not to do something ("agrees not to sell"), not a limit or a consent's reasonableness written the same
way ("for a period not to exceed 90 days", "such consent not to be unreasonably withheld"): those restrain no one."""

_NEGATED = (
    r"\b(?:shall|will|may|must|can|should|agrees?|agreed|covenants?|undertakes?|promises?)\s+not\b"
    rf"|\b(?:neither|nor|refrain|prohibited|restricted)\b|{_NOT_TO}|\bno\s+(?:party|participant)\b"
)

_MAY_TERMINATE = (
    r"\b(?:may|can|shall\s+have\s+the\s+(?:absolute\s+)?right\s+to|is\s+entitled\s+to|reserves\s+the\s+right\s+to)\s+"
    r"(?:[\w,]+\s+){0,5}(?:terminate|cancel)\b|\bmay\s+(?:also\s+)?be\s+(?:terminated|cancell?ed)\b|\b(?:terminable|cancell?able)\b|"
    r"\b(?:terminated\s+by|until)\s+(?:either|any|both|one)\s+(?:party|of\s+the\s+parties)"
)

_NOT_A_RIGHT_TO_END = (
    r"\b(?:terminat|cancel)\w*\s+(?:the|any|a|an|such|each)\s+(?!agreement|contract|term\b)[\w-]+"
    r"|\b(?:the|any|a|an|such|each)\s+(?!agreement|contract|term\b)[\w-]+\s+may\s+be\s+(?:terminated|cancell?ed)"
    r"|\bcontinue\b[^;]{0,300}?\buntil\s+terminated"
)
"""Ending something other than the agreement (a service, a fund, an order), or a term that runs on "until
terminated" by notice, is written like a right to end the contract at will but is often not counted as one:
such a sentence leaves the clause unanswered."""

_NOT_IN_ESCROW = (
    r"\bnone\s+of\b|\bneither\b|\bnot\s+(?:\w+\s+){0,3}(?:a\s+party|required|obligated)\b|\bno\s+obligation|"
    r"\bparty\s+to\s+any\b"
)
"""A representation that no source code is held in escrow ("None of the Seller Entities ... is a party to any
Contract requiring the deposit of any such Source Code with an escrow agent") names the arrangement to deny it;
its sentence is often read only in part (a long one is cut around the cue), so "party to any" counts as well as
"none of"."""

_NO_BENEFICIARY = r"\bno\b|\bnot\b|\bnothing\b|\bnone\b|\bneither\b|\bnor\b|\bwithout\b|\bexcept\b|\bother\s+than\b"
"""Most contracts say there are no third-party beneficiaries ("Nothing herein confers ... on any Person other than
the Parties"), or none but a few ("except as provided in Article 7"), which CUAD counts one way as often as the
other: a sentence naming a beneficiary says the clause only when it grants the right outright ("Franchisor is an
intended third-party beneficiary of this Agreement"), with a verb (a heading "Third-Party Beneficiaries." names the
section, which most often denies them)."""

_RESTRICTED_ACT = (
    r"(?:develop(?:ing)?|manufactur(?:e|ing)|sell(?:ing)?|offer(?:ing)?|market(?:ing)?|distribut(?:e|ing)|promot(?:e|ing)|"
    r"engag(?:e|ing)(?!\s+(?:any|an?|the|such|its|third)\b)|enter(?:ing)?\s+into|carry(?:ing)?|represent(?:ing)?|"
    r"handl(?:e|ing)|commerciali[sz](?:e|ing)|research(?:ing)?|endors(?:e|ing)|own(?:ing)?|operat(?:e|ing)|"
    r"participat(?:e|ing)|invest(?:ing)?|acquir(?:e|ing)|hav(?:e|ing)\s+(?:an?|any)\s+(?:[\w-]+\s+){0,3}?interest)\b"
)
"""A business a non-compete keeps a party out of, as the verb it forbids: whole words, so that a word that only
begins like one ("developed by Provider", "stock ownership", "its Representatives") is not read as the act, nor
"engage a third party" (hiring) as engaging in a business. A gerund counts after "prohibited from", not after
"shall not" ("shall not be prejudiced in ... handling")."""

_ANTI_BRIBERY = r"\bbrib|\bcorrupt|\bkickbacks?\b|\bgovernment(?:al)?\s+officials?\b|\bimproper\s+(?:payments?|gifts?)"
"""An anti-corruption covenant ("will not offer or pay any bribes ... during the term") forbids an act a
non-compete also names (offering), but keeps no one out of a business."""

_DEALS_IN_NONE = r"\b(?:shall|will)\s+(?:\w+\s+){0,2}?(?:handle|sell|carry|market|distribute)\s+no\b"
"""A restraint worded as dealing in none of something ("the Distributor shall handle no products that are
competitive with the Products") rather than with "not"."""

_OTHER_RESTRICTION = (
    r"\bconfidential\s+information|\bconfidentiality\b|\bin\s+confidence\b|\bdisclos|\bsolicit|\bassign|\bnothing\b|"
    r"\bnot\s+be\s+(?:restricted|prohibited|precluded|prevented|limited)"
)
"""Words of a restriction that names competition without being a non-compete: keeping information from
competitors (confidentiality), not soliciting their staff or customers, not assigning the contract to one, and a
sentence that leaves the parties free ("Nothing herein shall prevent ... competing products"). A heading merged
with its first sentence ("Confidentiality and Non-Competition 3.1 ... keep in confidence ...") reads the same."""

_CHANGE = (
    r"(?:change\s+(?:of|in)\s+(?:the\s+)?(?:control|ownership)|merge[dr]?|acqui\w+|controlling\s+interest|"
    r"sale\s+of\s+(?:all|substantially))"
)
_FREE_TO_ASSIGN_ON_CHANGE = (
    r"(?:(?:\bexcept\b|\bprovided\b|\bnotwithstanding\b)[^.]{0,200}?\b(?:may|can|is\s+entitled\s+to)\s+(?:\w+\s+){0,3}?"
    rf"(?:be\s+)?(?:assign|transfer)\w*\b[^.]*?\b{_CHANGE}"
    rf"|\bno\s+(?:such\s+)?consent\s+(?:will|shall)\s+be\s+(?:required|necessary)[^.]*?\b{_CHANGE})"
    r"(?![^.]*\b(?:terminat|provided|subject\s+to|condition|notice|notif|unless|except|competitor))"
)
"""An exception to an anti-assignment clause that lets a party assign on a merger or change of control without
consent ("provided, however, that either Party may assign this Agreement in connection with a change in control")
frees the change rather than making it need consent, notice or a right to end the contract. Only when nothing
follows that binds it again: a proviso, a notice, a right to terminate, or a competitor as assignee ("provided
that such successor is not a competitor") is the clause."""

_DEEMED_A_TRANSFER = (
    r"\b(?:deemed|considered|constitutes?|treated\s+as)\s+(?:to\s+be\s+)?(?:an?\s+)?(?:\w+\s+)?"
    r"[\"\u201c]?(?:assignment|transfer)\b"
)
"""A merger or sale of a party counted as an assignment of the contract ("any merger involving Licensee will be
deemed to be a transfer of rights for which Licensor's consent is required"): a change of control that needs the
consent the contract requires for an assignment."""

_AUDIT_ACT = r"(?:audit(?:s|ed)?|inspect(?:s|ed|ions?)?|examin(?:e|es|ed|ations?))\b"
_AUDITING = r"(?:audit|inspect|examin)(?:ing|ations?|ions?|s)?\b"
_AUDITOR = r"\b(?:auditors?|accountants?|accounting\s+firm|representatives?|designees?|agents?)\b"
_MAY = r"\bmay\b(?!\s+be\b(?!\s+(?:audit|inspect|examin)))"
_LEAVE = (
    r"(?:\b(?:right|rights|entitled|permit\w*|allow\w*|authori[sz]\w*|access|reserves?|available|open|subject)\b"
    rf"|{_MAY})"
)
_FEW_WORDS = r"(?:[\w()'\u2019-]+,?\s+){0,3}?"
_LET_AUDIT = (
    rf"{_LEAVE}[^.;]{{0,200}}?(?:\bto\s+{_FEW_WORDS}{_AUDIT_ACT}|\b(?:for|purposes?\s+of)\s+{_FEW_WORDS}{_AUDITING})"
    rf"|{_LEAVE}[^.;]{{0,200}}?{_AUDITOR}\s+(?:\w+\s+)?(?:audit|review|inspect|examine)s?\b"
    rf"|{_MAY}[\s,]+(?:[\w()'\u2019-]+,?\s+){{0,8}}?{_AUDIT_ACT}"
    rf"|\b(?:permit|allow)\w*\s+{_FEW_WORDS}{_AUDIT_ACT}"
    rf"|\bright\s+of\s+{_FEW_WORDS}{_AUDIT_ACT}|{_AUDIT_ACT}\s+rights?\b"
    rf"|{_AUDITOR}[^.;]{{0,120}}?\bto\s+(?:\w+\s+)?{_AUDIT_ACT}"
)
"""An audit right lets one party look into the other's books, records or premises: a word of leave ("has the
right, upon notice, to inspect", "may, at its expense, audit", "shall permit examination", "available for
inspection", "for the purpose of examining") governs the audit, inspection or examination, or an accountant is
sent to do it ("engage an independent accountant to audit", "have its auditors review"). A sentence that only names
an audit with such a word elsewhere in it is about something else, and CUAD's tune split had 21 such claims: a
party's leave to disclose information to its own auditors, what Confidential Information does not include (that
produced in an audit), fees for auditing, a tax examination in progress ("as the case may be" is no leave either).
Goods, meters or materials a party may inspect are still read as the clause: CUAD counts them either way."""


CLAUSES: dict[str, tuple[Test, ...]] = {
    "non_compete": (
        Test(
            cue(r"compet"),
            words(r"\bnon-?compet\w*|\bcompet(?:e|es|ing|itive|itor|itors|ition)\b"),
            words(rf"\bnon-?compet|(?:{_NEGATED}|{_DEALS_IN_NONE})[^;]{{0,300}}?\bcompet"),
            words(
                r"competitive\s+(?:position|harm|disadvantage|advantage|bid|pric\w+|rates?|analysis|infringement)|antitrust|"
                r"\bwarrants?\b|\bknowledge\b|\bunfair\s+competition|\bnot\s+(?:be\s+deemed\s+to\s+)?prevent|\bnot\s+(?:be\s+)?(?:deemed|construed|considered|interpreted)\b|"
                r"\bdeemed\s+reasonable|\bso\s+long\s+as|\bhereby\s+grants?\b|\bbanner|\blogos?\b|\bsponsorship|\bendors|\bnondisclosure|\bnon-disclosure|"
                rf"{_OTHER_RESTRICTION}"
            ),
            lead_in=True,
        ),
        Test(
            cue(r"during|following|thereafter|throughout|period"),
            words(
                r"\b(?:during|throughout)\s+the\s+(?:[\w-]+\s+){0,3}?(?:term|cooperation|period|life)\b|\bfor\s+a\s+period\s+of\b|"
                r"\b(?:following|after)\s+the\s+(?:termination|expiration)\b|\bthereafter\b"
            ),
            words(
                rf"(?:\b(?:shall|will|may|must)\s+not|{_NOT_TO}|\bneither\b[^;]{{0,120}}?\b(?:shall|will|may))[\s,]+"
                rf"(?:[\w,()]+\s+){{0,8}}?(?!\w+ing\b){_RESTRICTED_ACT}|"
                r"\b(?:(?:shall\s+be|is|are)\s+(?:hereby\s+)?(?:prohibited|restricted)|refrain)\s+from\s+"
                rf"(?:[\w,()]+\s+){{0,8}}?{_RESTRICTED_ACT}"
            ),
            words(
                r"\bconfidential|\bdisclos|\bsolicit|\bpromotions\b|\bshares\b|\bsecurities\b|\btrademarks?\b|\blogos?\b|\bappoint|\bhold\s+itself\s+out|\bif\b|\bsponsorship|\bhire\b|\bemploy|\bassign|\bsublicens|\bwithout\s+(?:the\s+|its\s+|their\s+|[\w&.-]+(?:'s|\u2019s)\s+)?"
                r"(?:prior\s+)?(?:written\s+)?(?:consent|approval)|\bexcept\s+as\s+(?:set\s+forth|provided)\s+in\s+the\s+"
                r"(?:specifications|quality)|\boutside\s+(?:of\s+)?the\s+territory\b|"
                rf"{_ANTI_BRIBERY}"
            ),
            per_item=True,
        ),
    ),
    "exclusivity": (
        Test(
            cue(r"exclusiv|sole"),
            words(
                r"(?<!non)(?<!non-)(?<!non- )(?<!non )(?<!not )\b(?:co-)?exclusive(?:ly)?\s+"
                r"(?:and\s+\w+\s+|\([^()]{0,80}\)\s*|,\s*)?"
                r"(?:\w+\s+){0,2}(?:rights?|licen[cs]e[ds]?|licensee|distribut\w*|dealers?|agents?|agency|advisors?|representatives?|"
                r"resellers?|suppl\w+|providers?|source|basis|territor\w*|trade\s+area|sponsor\w*|partner\w*|"
                r"marketing|sales|sell|manufactur\w*|provide|purchase|appointment|arrangement|relationship|"
                r"dealing|services?|endorse\w*|promot\w*|carrier|vendor|reseller)\b"
                r"|\bon\s+an?\s+(?:co-)?exclusive\s+basis\b|\bsole\s+(?:and\s+exclusive\s+)?(?:agent|distributor|supplier|provider|source|reseller)\b|\bexclusively\s+(?:from|to|through|with)\b|"
                r"\b(?:rights?|licen[cs]es?|appointment|distributorship)\b[^.;]{0,120}?\b(?:shall|will)\s+be\s+exclusive\b(?!\s+of\b)|"
                r"\b(?:purchas|buy|obtain|procur|sourc|order)\w*\s+(?:[\w,()-]+\s+){0,8}?solely\s+from\b"
            ),
            None,
            words(
                r"\b(?:not|no|nor|without)\s+(?:[\w,-]+\s+){0,8}?(?:co-)?exclusiv|\bcourts?\b|\bexclusive\s+benefit|\bbut\s+not\s+the\s+obligation|\bused\s+exclusively|\b(?:limited|relat\w*|result\w*|derived|resolved|attributable|applicable)\s+(?:\w+\s+){0,2}?exclusively\b|\binures?\b|\benures?\b|\bgovern|\bbelongs?\b|\bowned\b|\bexclusiv\w*\s+(?:jurisdiction|venue|forum|courts?)|"
                r"\bentire\s+and\s+exclusive|\bcomplete\s+and\s+exclusive|\bexclusive\s+remed|\bexclusive\s+right\s+to\s+"
                r"(?:apply|file|prosecute|own|control|register|enforce)|\bexclusive\s+rights\s+and\s+interests?\s+in\s+all"
                r"|\bexclusive\s+of\b|\bexclusively\s+own|\bright,\s+title\b|^\s*whereas\b|\bnot\s+be\s+considered\b"
                r"|\bexclusive\s+rights?\s+in\s+and\s+to\b"
            ),
        ),
        Test(
            cue(r"other|third|another"),
            words(
                rf"(?:\b(?:shall|will|may)\s+not|{_NOT_TO}|\bneither\b[^;]{{0,120}}?\b(?:shall|will|may))\s+"
                r"(?:[\w,()]+\s+){0,6}?(?:enter\s+into|grant|appoint|engage|endorse|purchase|buy|obtain|procure|"
                r"license|sell)\b[^;]{0,160}?\b(?:any\s+other|another|any\s+third\s+part|other\s+than)\b"
            ),
            words(r"\b(?:during|throughout)\s+the\s+(?:term|period)\b|\bfrom\s+\w+\s+\d"),
            words(
                r"\bconfidential|\bdisclos|\bassign|\bsolicit|\bemploy|\bhire\b|\bsublicens|\btrademarks?\b|\bshares\b"
            ),
        ),
    ),
    "termination_for_convenience": (
        Test(
            cue(r"convenience|cause|reason"),
            words(
                r"\bfor\s+(?:its|their|his|her|any\s+party's)?\s*(?:own\s+)?convenience|\bwithout\s+cause\b|"
                r"\bfor\s+any\s+(?:or\s+no\s+)?reason\b|\bfor\s+no\s+reason\b|\bwith\s+or\s+without\s+cause\b|\bnon-cause\b"
            ),
            words(_MAY_TERMINATE),
            words(
                r"\bsurviv|\bnot\s+be\s+terminated|\bnot\s+(?:\w+\s+){0,6}(?:for\s+(?:its\s+)?(?:own\s+)?convenience)|"
                r"\b(?:upon|after|following|in\s+the\s+event\s+of)\s+(?:the\s+|any\s+)?(?:expiration\s+or\s+)?"
                r"(?:earlier\s+)?termination\b|\bmutual|\bfails?\b|\bfailure\b|\bcure\b|\bdefault|\bin\s+the\s+event\b|\bif\b"
            ),
        ),
        Test(
            cue(r"terminat|cancel|until"),
            words(_MAY_TERMINATE),
            words(
                r"\b(?:upon|with|by\s+giving|on|by\s+providing|giving|providing)\s+(?:the\s+other\s+party\s+)?(?:at\s+least\s+|"
                r"not\s+less\s+than\s+|no\s+less\s+than\s+|a\s+minimum\s+of\s+)?(?:\w+\s+)?(?:\(\d+\)\s*|\d+\s*)?"
                r"(?:calendar\s+|business\s+)?(?:days?|months?|weeks?|years?)'?\s*(?:prior\s+|advance\s+)?(?:written\s+)?"
                r"notice|\bat\s+any\s+time\b|\b(?:upon|with|by\s+giving|by\s+providing|giving|providing)\s+"
                r"(?:[\w\[\]*()\"'-]+\s+){0,5}?(?:prior\s+|advance\s+)?(?:written\s+)?notice\b"
            ),
            words(
                r"\bbreach|\bdefault|\binsolv|\bbankrupt|\bfails?\b|\bfailure|\bcause\b|\bviolat|\bchange\s+(?:of|in)"
                r"\s+control|\bforce\s+majeure|\bcure|\bexpiration|\bexpiry|\brenew|\bend\s+of\s+the\s+(?:initial\s+)?term|"
                r"\bif\b|\bin\s+the\s+event\b|\bmutual|\bby\s+agreement\b|\bcontingenc|\bas\s+follows\b|\boccurrence\b|"
                r"\bfollowing\b|\bwhen\b|\bimmediately\b|\bvote\b|\bunless\b|:\s*$|:\s*[A-Z0-9]{1,3}[.)]?\s*$|\bnot\s+be\s+terminated|"
                r"\bend\s+of\s+(?:the|a|an|any|each|such)\s+(?:[\w-]+\s+){0,2}term\b"
            ),
            per_item=True,
            doubt=words(_NOT_A_RIGHT_TO_END),
        ),
    ),
    "anti_assignment": (
        Test(
            cue(r"assign|transfer"),
            words(r"\bassign(?:s|ed|ment|able)?\b|\btransfer(?:s|red|able)?\b"),
            words(r"\bconsent|\bapproval|\bnot\s+be\s+assign|\bnon-?assignable|\bvoid\b|" + _NEGATED),
            words(r"\bhereby\s+(?:irrevocably\s+)?assigns?\b"),
        ),
    ),
    "change_of_control": (
        Test(
            cue(r"change|controlling|acquired|acquisition|majority"),
            words(
                r"\bchange\s+(?:of|in)\s+(?:the\s+)?(?:[\w-]+,?\s+){0,3}?(?:control|ownership)\b|\bownership\s+change|\bcontrolling\s+(?:interest|stake)\b|"
                r"\b(?:is|be|been|being|becomes?|are|was|gets?)\s+(?:\w+\s+)?acquired\s+by\b|\bacquisition\s+of\s+(?:control|a\s+majority)\b|\bmajority\s+of\s+(?:the\s+|its\s+)?"
                r"(?:voting|outstanding|equity|shares|stock)|\bchange\s+in\s+(?:the\s+)?(?:management\s+or\s+)?ownership\b"
            ),
            words(r"\bterminat|\bassign|\bconsent|\bnotif|\bnotice\b|\bdeemed\b|\bright\b"),
            words(
                r"\bmaterial\s+adverse\s+change|\bvote\s+of\s+a\s+majority|\bholders\s+of\s+(?:at\s+least\s+)?a\s+majority|"
                rf"{_FREE_TO_ASSIGN_ON_CHANGE}"
            ),
            lead_in=True,
        ),
        Test(
            cue(r"merge|consolidat|sale of"),
            words(
                r"\bmerger\b|\bmerges?\b|\bconsolidat(?:e|es|ion|ions|ing|ed\s+(?:with|into))\b|"
                r"\bsale\s+of\s+(?:all|substantially\s+all)\b"
            ),
            words(r"\bmay\s+(?:\w+\s+){0,4}terminate\b|\bright\s+to\s+terminate\b|\bshall\s+terminate\b"),
            words(r"\bmaterial\s+adverse\s+change|\bassign"),
            lead_in=True,
        ),
        Test(
            cue(r"merge|consolidat|reorgani|sale of"),
            words(
                r"\bmerger\b|\bconsolidation\b|\breorgani[sz]ation\b|\bsale\s+of\s+(?:all|substantially\s+all|(?:\w+\s+)?stock)\b"
            ),
            words(_DEEMED_A_TRANSFER),
            words(
                r"\bnot\s+(?:be\s+)?(?:deemed|considered|constitute|treated)|\bno\s+(?:such\s+)?consent|\bwithout\s+(?:such\s+|the\s+)?consent"
            ),
        ),
    ),
    "audit_rights": (
        Test(
            cue(r"audit|inspect|examin"),
            words(_LET_AUDIT),
            None,
            words(
                r"\baudited\s+(?:financial|consolidated|balance)|\bfinancial\s+statements\b|"
                r"\bnot\s+(?:be\s+)?(?:available|open|subject|entitled)\b"
            ),
        ),
    ),
    "most_favored_nation": (
        Test(
            cue(r"favo|lowest|higher|greater|best pric"),
            words(
                r"\bmost\s+favou?r(?:ed|able)\b|\b(?:no|not)\s+(?:be\s+)?less\s+favou?rable\b|"
                r"\bat\s+least\s+as\s+favou?rabl[ey]\b|\bmore\s+favou?rable\s+than\b|\bmore\s+favou?rable\s+to\s+(?:the\s+)?(?:third|other)|\bmore\s+favou?rable\s+(?:terms|prices?|pricing|rates?|conditions)\b|"
                r"\blowest\s+(?:price|rate|fee)s?\b|\b(?:higher|greater)\s+(?:fees?|prices?|rates?)\s+than\b|"
                r"\bbest\s+(?:price|pricing)\b"
            ),
            words(
                r"\bthird\s+part|\bany\s+other\b|\b(?:to|by|with)\s+others\b|\bother\s+(?:customers?|distributors?|licensees?|resellers?|clients?|"
                r"purchasers?|users?|agents?)\b|\bcustomers?\b|\bsimilarly\s+situated\b|\bthan\s+(?:those|that|the\s+"
                r"(?:terms|prices?))\b|\bany\s+of\s+\w+'s\b"
            ),
            words(
                r"\boffer\s+(?:to\s+any|the\s+opportunity)|\bfirst\s+(?:refusal|negotiation)|\barm's\s+length|"
                r"\bemployees?\b|\bgood\s+faith\b|\bindustry\s+standard|\bpreviously\s+offered|\boffered\s+by"
            ),
        ),
    ),
    "source_code_escrow": (
        Test(
            cue(r"escrow"),
            words(r"\bescrow"),
            words(
                r"\bsource\s+code|\bdeposit\s+materials?\b|\bdeposit\w*\s+(?:of\s+)?(?:the\s+)?(?:software|materials?)\b"
            ),
            words(_NOT_IN_ESCROW),
        ),
        Test(
            cue(r"release condition|access condition"),
            words(r"\b(?:release|access)\s+conditions?\b"),
            words(r"\bsource\s+code|\bdeposit\s+materials?\b"),
            words(_NOT_IN_ESCROW),
        ),
    ),
    "third_party_beneficiary": (
        Test(
            cue(r"beneficiar"),
            words(r"\bthird[\s-]+party\s+beneficiar\w*|\bintended\s+beneficiar\w*"),
            words(r"\b(?:shall|will|is|are|be|agrees?|acknowledges?|designates?)\b"),
            words(_NO_BENEFICIARY),
        ),
    ),
}


def _first_clause(body: str, test: Test) -> tuple[tuple[int, int] | None, bool]:
    """The first sentence that is the clause by `test`, and whether a doubtful one came before it."""
    doubtful = False
    for span in sentences_matching(body, test.cue_words):
        verdict = _verdict(test, body[slice(*span)], lead_in(body, span[0]) if test.lead_in else "")
        if verdict is Verdict.CLAUSE:
            return span, doubtful
        doubtful = doubtful or verdict is Verdict.DOUBTFUL
    return None, doubtful


def clause_rule(tests: tuple[Test, ...]) -> FieldRule:
    """The rule for one clause: True with the first sentence that is the clause; no answer when the only
    sentences like it are doubtful (a definition, a recital, a `doubt`) or the text is too short to say
    (`MIN_CONTRACT_CHARS`); False when no sentence is like it."""

    def rule(body: str) -> list[Found]:
        found = [_first_clause(body, test) for test in tests]
        spans = [span for span, _ in found if span is not None]
        if spans:
            start, end = min(spans)
            return [Found(True, start, end)]
        if len(body) < MIN_CONTRACT_CHARS or any(doubtful for _, doubtful in found):
            return []
        return [Found(False, 0, 0)]

    return rule


RULES: dict[str, FieldRule] = {field: clause_rule(tests) for field, tests in CLAUSES.items()}
