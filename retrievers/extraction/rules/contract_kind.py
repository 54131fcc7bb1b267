"""The kind of a contract ("License Agreement", "Supply Agreement"), read from its title.

CUAD files each contract under one of 25 kinds, named after what its title says it is. The title is the first
capitalised "... Agreement" in the opening of the text; its kind is the last kind-word in it, because titles name
the main subject last ("Site Development and Hosting Agreement" is filed under hosting, "Trademark License
Agreement" under licences), except that services and supply right after another kind only qualify it
("Transportation Services Agreement" is filed under transportation). A title with no kind-word ("Amendment
No. 2", "Escrow Agreement") gets no answer.
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
    (r"joint\s+(?:venture|filing)", "Joint Venture Agreement"),
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
_KIND_WORD = re.compile("|".join(rf"\b(?P<k{i}>{words})\b" for i, (words, _) in enumerate(_KINDS)), re.IGNORECASE)


def contract_type(body: str) -> list[Found]:
    """The kind named by the title's last kind-word, cited by the title; [] when the title names none."""
    title = _TITLE.search(body, 0, min(len(body), _OPENING_CHARS))
    if title is None:
        return []
    kinds = list(_KIND_WORD.finditer(title[0]))
    if not kinds:
        return []
    last = kinds[-1]
    if len(kinds) > 1 and _kind(last) in _WEAK_KINDS and _JOINED.fullmatch(title[0][kinds[-2].end() : last.start()]):
        last = kinds[-2]
    return [Found(_kind(last), title.start(), title.end())]


def _kind(word: re.Match[str]) -> str:
    return _KINDS[int(str(word.lastgroup)[1:])][1]


RULES: dict[str, FieldRule] = {"contract_type": contract_type}
