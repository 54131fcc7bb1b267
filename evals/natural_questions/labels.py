"""Predicates over the labels, and the vocabulary the question families share.

How a label is read (the same for every question):
- A comparison on a list-valued field (CUAD's `renewal_term_days`, `notice_period_days`, `governing_law`,
  `parties`) matches a document when any one of its values satisfies it.
- The governing law of a contract is its `governing_law`, in CUAD, Kleister-NDA (whose `jurisdiction` label the
  loader stores under that name) and the sample alike. A value names a state when the state's name appears in it
  as words: "Delaware, Illinois" (one CUAD label left unsplit) is under Delaware law and under Illinois law;
  "England and Wales, UK" is English law.
- An NDA is a Kleister-NDA document (the whole dataset is non-disclosure agreements, labelled or not) or a contract
  whose `contract_type` says Non-Disclosure. Contract types are matched as a user means them: "distribution
  agreements" are CUAD's "Distributor Agreement" and the sample's "Distribution Agreement"; "license agreements"
  include the sample's "Software License Agreement"; "hosting agreements" include "Hosting Services Agreement";
  "maintenance agreements" include "Facilities Maintenance Agreement".
- A clause "without X" (negation) is a contract whose flag X is labelled false; contracts that carry no label for X
  (Kleister NDAs, and the sample contracts for all but six clauses) are unknown, not "without".
- A shop named in everyday spelling is every `company` label that contains it once case, spaces and punctuation are
  dropped: "Mr DIY" is MR. D.I.Y. (M) SDN BHD, MR. D.I.Y. (KUCHAI) SDN BHD, MR D.I.Y. (JOHOR) SDN BHD, ...
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from evals.natural_questions.corpus import CORPUS, Doc


def squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def company(doc: Doc, *names: str) -> bool:
    """The receipt's shop contains one of `names`, case, spaces and punctuation ignored."""
    label = squash(doc.props.get("company", ""))
    return any(squash(name) in label for name in names)


def party(doc: Doc, name: str) -> bool:
    """One of the parties is `name`, as a whole word (so "Intel" is not "Intellisense")."""
    return any(re.search(rf"\b{re.escape(name)}\b", p, re.IGNORECASE) for p in doc.props.get("parties", []))


def laws(doc: Doc) -> list[str]:
    return list(doc.props.get("governing_law") or [])


def under(doc: Doc, *places: str) -> bool:
    """Governed by the law of one of `places` (a value naming the place as words)."""
    return any(re.search(rf"\b{re.escape(p)}\b", law, re.IGNORECASE) for p in places for law in laws(doc))


def is_nda(doc: Doc) -> bool:
    return doc.dataset == "kleister_nda" or "non-disclosure" in doc.props.get("contract_type", "").lower()


CONTRACT_TYPES = {
    "license": {"License Agreement", "Software License Agreement"},
    "distribution": {"Distributor Agreement", "Distribution Agreement"},
    "hosting": {"Hosting Agreement", "Hosting Services Agreement"},
    "maintenance": {"Maintenance Agreement", "Facilities Maintenance Agreement"},
    "supply": {"Supply Agreement"},
    "reseller": {"Reseller Agreement"},
    "franchise": {"Franchise Agreement"},
    "consulting": {"Consulting Agreement"},
    "joint venture": {"Joint Venture Agreement"},
}


def of_type(doc: Doc, kind: str) -> bool:
    return doc.props.get("contract_type") in CONTRACT_TYPES[kind]


def flag(doc: Doc, name: str, value: bool = True) -> bool:
    """The clause flag is labelled `value` (a missing label is neither true nor false)."""
    return doc.props.get(name) is value


def any_value(doc: Doc, field: str, test: Callable[[Any], bool]) -> bool:
    value = doc.props.get(field)
    values = value if isinstance(value, list) else ([] if value is None else [value])
    return any(test(v) for v in values)


def on(doc: Doc, field: str, prefix: str) -> bool:
    """The date field starts with `prefix` ("2018", "2018-03")."""
    return str(doc.props.get(field, "")).startswith(prefix)


def num(doc: Doc, field: str) -> float | None:
    value = doc.props.get(field)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def iso(value: date) -> str:
    return value.isoformat()


def years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


# ---- vocabulary shared by the questions ----------------------------------------------------------------------

# The buckets, abbreviated because nearly every question names one.
R, INV, K, DS, CERT, G = "receipts", "invoices", "contracts", "datasheets", "certificates", "generic"
MR_DIY = "MR D.I.Y"  # squashed to "mrdiy": every MR. D.I.Y. / MR D.I.Y / MR. D. I. Y. spelling


def total(doc: Doc) -> float | None:
    return num(doc, "total")


def currency(doc: Doc, *codes: str) -> bool:
    return doc.props.get("currency") in codes


def renewal(doc: Doc, test: Callable[[Any], bool]) -> bool:
    return any_value(doc, "renewal_term_days", test)


def notice(doc: Doc, test: Callable[[Any], bool]) -> bool:
    return any_value(doc, "notice_period_days", test)


def label(doc_id: str, field: str) -> str:
    return str(CORPUS[doc_id].props[field])
