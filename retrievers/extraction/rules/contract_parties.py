"""The parties of a contract, read from its opening words: "… by and between Kite Pharma, Inc., a Delaware
corporation (“Kite”), and Gilead Sciences, Inc. (“Company”)".

A party is a run of capitalised words (or a brand in small letters before a company suffix, "theglobe.com, Inc.")
that opens one of the clauses the preamble lists after "between", "among" or "entered into by", and that the
contract then describes ("a Delaware corporation", "an individual") or names with a defined term ("(“Kite”)"),
perhaps after an address ("… Minnesota 55391 USA (“Cargill”)"). A cover page's bare "BETWEEN ACME CORP AND BETA
LLC" is read only when no list below describes two parties. A contract with no such list (a letter, an employee's
undertaking) gives the names in its opening lines that end in a company suffix or are given a defined term, at most
four of them. Names are returned as written, as CUAD's labels give them.
"""

from __future__ import annotations

import re

from english.places import PLACE_NAMES
from english.sentences import sentence_span
from retrievers.extraction.found import Found

PREAMBLE_CHARS = 6000
"""How far into a contract its list of parties is looked for (after cover pages and confidentiality legends)."""
_LIST_CHARS = 2500
"""How much text after "between" the list of parties may take."""

_BETWEEN_RE = re.compile(
    r"\b(?:(?:by\s+and\s+)?(?:between|among|amongst)|(?:entered\s+into|made)\s+by(?!\s+and\b))\b[\s:]*", re.IGNORECASE
)
_SUFFIX = (
    r"(?i:Inc|Incorporated|Corp|Corporation|Co|Company|Ltd|Limited|LLC|L\.L\.C|LLP|L\.L\.P|LP|L\.P|N\.A|N\.V|S\.A"
    r"|S\.A\.S|B\.V|AG|GmbH|plc|Pte|S\.p\.A|S\.r\.l|SRL|SE|AB|ASA|KK|KG|Limitada|Ltda)(?: ?\.)?"
)
"""A company suffix, its full stop perhaps spaced off by the text extraction ("RMS TITANIC, INC .")."""
_TITLE = r",?\s+(?:M\.D\.|Ph\.D\.|Jr\.|Sr\.|Esq\.)"
_WORD_REST = r"[^\s,;:()\[\]“”\"]*"
_CAPITAL = r"(?:[A-Z0-9]|[a-z](?=[A-Z]))"
"""How a word of a name starts: a capital or a digit, or one small letter before a capital ("iVillage", "eBay")."""
_WORD = rf"(?:{_CAPITAL}{_WORD_REST}|&|of|the|de|du|des|la|for|von|van|der)"
# What may follow a party's name: a description, an address or a defined term; the next party; or a small word
# ("Cargill, Incorporated through its …"), as long as a defined term follows (`_DEFINED_LATER_RE`).
_AFTER_NAME = (
    r"\s*\(|\s*,|\s*;|\s*\.?\s*$|\s+and\b"
    r"|\s+(?:an?|d/b/a|f/k/a|having|with|located|whose|organized|incorporated|residing|of)\b|\s+[a-z]"
)
# A place or a branch in brackets before a company suffix: "Dialog Semiconductor (UK) Ltd.", "China Online Housing
# (Hong Kong) Co., Ltd.".
_BRACKETED = rf"(?:,?\s+\((?:[A-Z][\w.]*\s?){{1,3}}\)(?=\s+{_SUFFIX}))?"
# A brand written in small letters, as a web address or with a hyphen, before a company suffix: "theglobe.com, Inc.",
# "e-centives, Inc.".
_BRAND = rf"[a-z]+[.-]{_WORD_REST}(?=,?\s+{_SUFFIX}(?!\w))"
# The other name a party trades or traded under, part of its name as written: "Cellco Partnership d/b/a Verizon
# Wireless", "Glu Mobile, Inc. f/k/a Sorrent, Inc.".
_TRADE_NAME = (
    rf"(?:,?\s+(?i:d/b/a/?|f/k/a|dba|doing\s+business\s+as|formerly\s+known\s+as)\s+"
    rf"(?:{_WORD}\s+){{0,6}}{_CAPITAL}{_WORD_REST}(?:,?\s+(?:&\s+)?{_SUFFIX}(?!\w))*)?"
)
# A name: capitalised words (with the few small words names hold), then any company suffixes, each of which may
# follow a comma or "&" ("Kite Pharma, Inc.", "Ono Pharmaceutical Co., Ltd.", "Cremer Oleo GmbH & Co KG"), and any
# trade name; a personal title
# ("M.D.") is dropped.
_NAME_RE = re.compile(
    rf"(?P<name>(?:(?:{_WORD}\s+){{0,9}}{_CAPITAL}{_WORD_REST}|{_BRAND}){_BRACKETED}(?:,?\s+(?:&\s+)?{_SUFFIX}(?!\w))*{_TRADE_NAME})"
    rf"(?:{_TITLE})?(?={_AFTER_NAME})"
)
# What follows a party's name: a description, an address, or a defined term.
_DESCRIBED_RE = re.compile(
    r"\s*,?\s*(?:\(|an?\s|having\b|with\s|located\b|whose\b|organized\b|incorporated\b|residing\b|of\s|d/b/a\b"
    r"|f/k/a\b)",
    re.IGNORECASE,
)
# A defined term later in the party's clause: "Cargill, Incorporated through its Bio Technology Development Center,
# having its principal place of business at … (“Cargill”)", "Bruce Jenner, Individual (“CELEBRITY”)". The clause
# holds no "and" before a capital (an address is no party: "UTEK Corporation (“UTK”), 202 South Wheeler Street, …,
# and World Energy Solutions, (“AVDU”)"), and no "Agreement" (a cover page's last name is not described by "This
# Agreement (“Agreement”)" after it).
_DEFINED_LATER_RE = re.compile(
    r"(?:(?!\band\s+(?-i:[A-Z])|\bagreement\b)[^()“”\";]){0,300}?"
    r"\(\s*(?:(?:the|hereinafter|referred|to|as|individually|collectively)\s+)*[“\"]",
    re.IGNORECASE,
)
# Where the next party's clause begins: "and", ";" or "), " after the end of the previous clause, then any "(2)".
_NEXT_PARTY_RE = re.compile(
    r"(?:\)\s*,\s*(?:and\b)?|[;,]?\s*\band\b|;)[\s,:_-]*(?:\(\s*(?:\d|[a-z]|ii?i?)\s*\)\s*)?", re.IGNORECASE
)
_ENUMERATOR_RE = re.compile(r"\s*\(\s*(?:\d|[a-z]|ii?i?)\s*\)\s*")
# A list of parties ends with its sentence: a full stop after a word (not after an initial, "R. J. Seifert") before
# a capital or a numbered heading ("Beta Retail Inc.\n1. Term."), or a blank line, unless "and" stands on one side
# of it (a cover page puts each party and the "and" on lines of their own).
_LIST_END_RE = re.compile(
    r"(?<=[a-z]{2})\.\s+(?=[A-Z]|\d+(?:\.\d+)*\.?[ \t]+[A-Z])(?!AND\b|And\b)"
    r"|(?<![ \t])(?<!(?i:and))[ \t]*\n[ \t]*\n(?![ \t\n]*(?i:and)\b)"
    r"|\bWHEREAS\b|\bRECITALS\b"
)
# Two bare names and the end of the sentence: "between High Speed Net Solutions and R. J. Seifert Enterprises.",
# "between Cargill, Incorporated and BioAmber S.A.S.", a cover page's "BETWEEN INGRAM MICRO AND NETGEAR".
_TWO_NAMES_RE = re.compile(
    rf"(?P<first>(?:{_WORD}\s+){{0,9}}?{_CAPITAL}{_WORD_REST}(?:,?\s+(?:&\s+)?{_SUFFIX}(?!\w))*),?\s+(?i:and)\s+(?={_CAPITAL})"
)
_AND_RE = re.compile(r"\s(?i:and)\s")
# Words of a name are spaced, or broken over two lines ("UBS\nSecurities LLC", as text extraction wraps them); three
# spaces or more part a layout's columns ("Legal Representative: Ku Guohua   Xi'an Zhonghong … Co., Ltd.").
_GAP = r"(?:[ \t]{1,2}|[ \t]*\n[ \t]*(?=[A-Z&]))"
# A name in the opening lines of a contract with no list of parties: capitalised words ending in a company suffix
# or followed by their defined term.
_DEFINED_NAME_RE = re.compile(
    rf"(?<![\w.])(?P<name>[A-Z]{_WORD_REST}{_GAP}(?:{_WORD}{_GAP}){{0,6}}"
    rf"(?:[A-Z0-9]{_WORD_REST}(?:,?\s+{_SUFFIX}(?![\w.]))+"
    rf"|[A-Z0-9]{_WORD_REST}(?=\s*\((?:the\s+|hereinafter\s+)?[“\"])))"
)
_SIGNATORY_TITLE_RE = re.compile(r"\b(?:Officer|President|Secretary|Treasurer|Chairman)\b", re.IGNORECASE)
OPENING_CHARS = 1500
"""How far into a contract with no list of parties its parties are looked for."""
_MOST_DEFINED = 4
_WRAPPED_LINE_CHARS = 60
_NUMBER_RE = re.compile(r"\b\d+\b")
# Words no party's name holds, but the capitalised headings, sentences and defined terms of an opening do.
_NOT_IN_NAMES = {
    "agreement", "amendment", "contract", "section", "act", "commission", "meeting", "protocol", "web", "office",
    "state", "whereas", "shares", "authorized", "signatory", "that", "my", "with", "by", "to", "or", "this", "board",
    "directors", "option", "i", "we",
}  # fmt: skip
# Words that name a document, not a party: "a Plan and Agreement of Merger", "Addendum Exhibit 10.6".
_DOCUMENT_WORDS = {"agreement", "amendment", "addendum", "contract", "exhibit", "section"}
# "a Delaware corporation" describes a party; it does not name one.
_PLACE_CORPORATION_RE = re.compile(r"^[A-Z][a-z]+(?: [A-Z][a-z]+)? (?i:corporation|company|limited liability company)$")
_NOT_NAMES = {
    "the",
    "and",
    "of",
    "party",
    "parties",
    "each",
    "this",
    "such",
    "company",
    "you",
    "i",
    "we",
    "it",
    "agreement",
    "inc",
}


def parties(body: str) -> list[Found]:
    """The names the preamble lists as the contract's parties, in order, each with the preamble as its source; a
    place is no party ("a company organised under the laws of the People's Republic of China")."""
    head = body[:PREAMBLE_CHARS]
    first: list[Found] = []
    for opening in _BETWEEN_RE.finditer(head):
        names = [listed for listed in _listed_names(body, opening.end()) if not _a_place(listed[0])]
        names = [listed for listed in names if not _DOCUMENT_WORDS.intersection(re.findall(r"\w+", listed[0].lower()))]
        if not names:
            continue
        start, end = sentence_span(body, opening.start(), opening.end(), clauses=True)
        found = [Found(name, start, max(end, name_end)) for name, name_end, _ in names]
        # a cover page's bare "BETWEEN ACME AND BETA" is read only when no preamble below describes its parties
        if sum(described for _, _, described in names) >= 2:
            return found
        first = first or found
    if first:
        return first
    return [found for found in _defined_names(body) if not _a_place(found.value)]


def _a_place(name: str) -> bool:
    """Whether `name` is a place's, as the places table writes it ("People's Republic of China", "Delaware")."""
    written = re.sub(r"^the\s+", "", name.strip(), flags=re.IGNORECASE).replace("’", "'")
    return written.lower() in PLACE_NAMES


def _defined_names(body: str) -> list[Found]:
    """For a preamble with no "between" list (a letter, an employee's undertaking): the company names with a
    suffix and the names given a defined term ("Eric Dean Sprunk (“EMPLOYEE”)") in the opening lines."""
    found: list[Found] = []
    end = min(len(body), OPENING_CHARS)
    position = 0
    while match := _DEFINED_NAME_RE.search(body, position, end):
        position = match.end()
        titles = list(_SIGNATORY_TITLE_RE.finditer(match["name"]))
        if titles:
            # a signature block's "By: /s/ Thomas Sipp Chief Financial Officer SCULPTOR MANAGEMENT, INC.": read again
            # after the signatory's title
            position = match.start() + titles[-1].end()
            continue
        name = _written(match["name"])
        words = re.sub(r"[^\w\s]", "", name).lower().split()
        # "1. ENGAGEMENT The COMPANY agrees", "A. The Company and Datakey": a heading before a party's defined term
        the_party = len(words) > 1 and words[-2] == "the"
        unlikely = the_party or _NOT_IN_NAMES.intersection(words) or words[0] in _NOT_NAMES
        unlikely = unlikely or _PLACE_CORPORATION_RE.match(name)
        if "\n" in match["name"] and (unlikely or not _wrapped(body, match.start() + match["name"].index("\n"))):
            # a heading or a line of a letter's address block joined to the name below it: read that line again
            position = match.start() + match["name"].index("\n") + 1
            continue
        # a number: an address ("CA 94710 (“Aduro”)"), a statute ("Section 11 of the 1933 Act")
        if unlikely or _NUMBER_RE.search(name):
            continue
        if any(name.lower() in known.value.lower() for known in found):
            continue
        found = [known for known in found if known.value.lower() not in name.lower()]
        found.append(Found(name, *sentence_span(body, match.start(), match.end(), clauses=True)))
    return found if len(found) <= _MOST_DEFINED else []


def _wrapped(body: str, line_end: int) -> bool:
    """Whether the line ending at `line_end` is a paragraph's line wrapped by the text extraction (a long one), not
    a line of its own ("LOGO", "Execution Version", a signatory's name above the company's)."""
    return line_end - body.rfind("\n", 0, line_end) > _WRAPPED_LINE_CHARS


def _listed_names(body: str, start: int) -> list[tuple[str, int, bool]]:
    """The party names of the list that starts at `start`, each with where it ends and whether the list describes
    it; [] when it is no list.

    The first clause must open with a described name; each later "and" or ";" that is followed by one opens
    another party, and an "and" inside a description ("organized and existing") is passed over.
    """
    list_end = _LIST_END_RE.search(body, start, start + _LIST_CHARS)
    end = list_end.start() if list_end else min(len(body), start + _LIST_CHARS)
    names: list[tuple[str, int, bool]] = []
    first = _party_at(body, start, end)
    if first is None:
        return _two_bare_names(body, start, end)
    names.append(first)
    for separator in _NEXT_PARTY_RE.finditer(body, first[1], end):
        if separator.start() < names[-1][1]:
            continue
        party = _party_at(body, separator.end(), end)
        if party and party[0] not in (known for known, _, _ in names):
            names.append(party)
    return names


def _party_at(body: str, position: int, end: int) -> tuple[str, int, bool] | None:
    """The name that opens a party's clause at `position` (after any "(1)"), where it ends, and whether it is
    described (else it ends the list)."""
    enumerator = _ENUMERATOR_RE.match(body, position, end)
    if enumerator:
        position = enumerator.end()
    match = _NAME_RE.match(body, position, end)
    if match is None:
        return None
    name = _written(match["name"])
    last = not body[match.end() : end].strip(" \n,.")
    described = bool(_DESCRIBED_RE.match(body, match.end(), end) or _DEFINED_LATER_RE.match(body, match.end(), end))
    # "between the Parties." refers to parties named elsewhere; "INGRAM MICRO AND NETGEAR" ending a list is two
    if " " not in name or name.startswith("the ") or not (last or described) or not described and _AND_RE.search(name):
        return None
    return name, match.end(), described


def _two_bare_names(body: str, start: int, end: int) -> list[tuple[str, int, bool]]:
    """ "High Speed Net Solutions and R. J. Seifert Enterprises": two names with no description, ending the list."""
    pair = _TWO_NAMES_RE.match(body, start, end)
    second = pair and _NAME_RE.match(body, pair.end(), end)
    if not second or body[second.end() : end].strip(" \n,."):
        return []
    return [(_written(pair["first"]), pair.end(), False), (_written(second["name"]), second.end(), False)]


def _written(name: str) -> str:
    """A name on one line, single-spaced, with no space before a full stop ("INC ." is "INC.")."""
    return re.sub(r"\s+", " ", name).replace(" .", ".").strip(" ,")
