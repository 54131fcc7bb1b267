"""The kind of a contract ("License Agreement", "Supply Agreement"), read from its title.

CUAD files each contract under one of 25 kinds, named after what its title says it is. The title is the first
capitalised "... Agreement" in the opening of the text; its kind is the last kind-word in it, because titles name
the main subject last ("Site Development and Hosting Agreement" is filed under hosting, "Trademark License
Agreement" under licences), except that services and supply right after another kind only qualify it
("Transportation Services Agreement" is filed under transportation). That main kind comes first, then the kind
of each other part of a title that joins several with "and" ("Manufacturing and Supply", "License, Development
and Commercialization"), each part's kind read as a title's: a user listing their supply agreements expects the
"Manufacturing and Supply Agreement" among them (`contract_type` is a multi-valued field). A word that only
qualifies another ("Trademark License", "Transportation Services") names no kind of its own. A title with no
kind-word ("Amendment No. 2", "Escrow Agreement") gets no answer. One kind is not CUAD's: it files a "Joint
Filing Agreement" (a letter filed with a Schedule 13D) under joint ventures, which a user counting their joint
ventures does not expect.
"""

from __future__ import annotations

import re

from retrievers.extraction.found import FieldRule, Found

_OPENING_CHARS = 3000
_AGREEMENT_WORD = r"(?:AGREEMENT|Agreement|CONTRACT|Contract)\b"
_TITLE = re.compile(
    rf"\b((?:(?!{_AGREEMENT_WORD})[A-Z][\w&/-]*,?\s+(?:(?:and|AND|of|OF|&)\s+)?){{1,6}}){_AGREEMENT_WORD}"
)
"""A title: up to six capitalised words up to its first agreement word, where it ends ("STRATEGIC ALLIANCE
AGREEMENT   This Strategic Collaboration Agreement" is a title of two words)."""
_KINDS = (
    (r"licen[cs]\w*", "License Agreement"),
    (r"distribut\w*", "Distributor Agreement"),
    (r"suppl(?:y|ier)", "Supply Agreement"),
    (r"maintenance|support", "Maintenance Agreement"),
    (r"(?:co-)?hosting", "Hosting Agreement"),
    (r"sponsorship", "Sponsorship Agreement"),
    (r"endorse\w*", "Endorsement Agreement"),
    (r"joint\s+venture", "Joint Venture Agreement"),
    (r"joint\s+filing", "Joint Filing Agreement"),
    (r"co-?brand\w*", "Co-Branding Agreement"),
    (r"(?:strategic\s+)?alliance", "Strategic Alliance Agreement"),
    (r"develop\w*", "Development Agreement"),
    (r"services?|servicing", "Service Agreement"),
    (r"collaborat\w*|cooperat\w*|co-operat\w*", "Collaboration/Cooperation Agreement"),
    (r"outsourc\w*", "Outsourcing Agreement"),
    (r"manufactur\w*", "Manufacturing Agreement"),
    (r"intellectual\s+property|patent|trademark|ip", "IP Agreement"),
    (r"(?:re)?marketing", "Marketing Agreement"),
    (r"franchis\w*", "Franchise Agreement"),
    (r"agency|agent", "Agency Agreement"),
    (r"transport\w*|shipping|carrier|freight|transit", "Transportation Agreement"),
    (r"resell\w*|resale|value\s+added", "Reseller Agreement"),
    (r"promot\w*", "Promotion Agreement"),
    (r"consult\w*", "Consulting Agreement"),
    (r"affiliate", "Affiliate Agreement"),
    (r"non-?compet\w*|non-?solicit\w*|non-?disparage\w*", "Non-Compete/No-Solicit/Non-Disparagement Agreement"),
)
_WEAK_KINDS = {"Service Agreement", "Supply Agreement"}
"""Kinds that, right after another kind, only qualify it ("Transportation Services", "Manufacturing and Supply")."""
_JOINED = re.compile(r"\s+(?:and\s+|&\s+)?", re.IGNORECASE)
_AND = re.compile(r"\s(?:and|&)\s", re.IGNORECASE)
_PART_BREAK = re.compile(r"\s*,\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+", re.IGNORECASE)
"""Where one part of a title that joins kinds ends: "and", "&" or a comma. A title without "and" joins none: a comma
alone may end a company's name ("Goosehead Insurance Agency, LLC Franchise Agreement")."""
_KIND_WORD = re.compile("|".join(rf"\b(?P<k{i}>{words})\b" for i, (words, _) in enumerate(_KINDS)), re.IGNORECASE)


_REFERENCE = re.compile(r"\b(?:this|the|such|said|that)\s*,?\s*$", re.IGNORECASE)
"""The words before an agreement word that refer to the agreement rather than name it: the legend EDGAR filings
open with ("CONFIDENTIAL TREATMENT HAS BEEN REQUESTED FOR CERTAIN REDACTED PROVISIONS OF THIS AGREEMENT") is no
title, and the title follows it ("SPONSORSHIP AGREEMENT")."""


def contract_type(body: str) -> list[Found]:
    """Every kind the title names, its main kind first, each cited by the title; [] when it names none."""
    end = min(len(body), _OPENING_CHARS)
    title = next((m for m in _TITLE.finditer(body, 0, end) if not _REFERENCE.search(m[1])), None)
    if title is None:
        return []
    parts = _PART_BREAK.split(title[0]) if _AND.search(title[0]) else []
    named = [kind for part in [title[0], *parts] if (kind := _kind_of(part)) is not None]
    return [Found(kind, title.start(), title.end()) for kind in dict.fromkeys(named)]


def _kind_of(title: str) -> str | None:
    """The kind a title (or a part of one) is filed under: its last kind-word, unless that only qualifies the one
    before it."""
    words = list(_KIND_WORD.finditer(title))
    if not words:
        return None
    last = words[-1]
    if len(words) > 1 and _kind(last) in _WEAK_KINDS and _JOINED.fullmatch(title[words[-2].end() : last.start()]):
        last = words[-2]
    return _kind(last)


def _kind(word: re.Match[str]) -> str:
    return _KINDS[int(str(word.lastgroup)[1:])][1]


RULES: dict[str, FieldRule] = {"contract_type": contract_type}
