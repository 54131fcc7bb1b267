"""The sentences of a contract that may state a yes/no clause, and the text of each the embedder reads.

A few broad words per clause (any sentence of the clause holds one) pick candidate sentences cheaply, so that only a
few percent of a contract's sentences are embedded; the learned decision (`learned_clauses`) reads their vectors.
The training script (`evals.extraction.clause_training`) reads the same candidates and the same text, so what was
learned is what runs.
"""

from __future__ import annotations

import re

from retrievers.extraction.rules.contract_sentences import cue, sentences_matching

_LIABILITY = cue(r"liab|damages|exceed|limitation|limited to")
"""Where a contract limits liability or says it is not limited: the same sentences for both clauses."""
_AFFILIATES = cue(r"affiliat|subsidiar")
"""A licence by or to a party's affiliates: the same sentences for either side."""

CANDIDATE_CUES: dict[str, re.Pattern[str]] = {
    "non_compete": cue(r"compet|engage in|similar|prohibited|agrees? not|undertakes? not|covenants? not"),
    "exclusivity": cue(r"exclusiv|\bsole\b|solely|only from|only to|only through|only distributor|any other"),
    "change_of_control": cue(r"control|merge|acqui|consolidat|sale of|ownership|substantially all"),
    "termination_for_convenience": cue(r"convenience|without cause|any reason|no reason|terminat|cancel"),
    "most_favored_nation": cue(
        r"favo|lowest|best price|no less|not less|no greater|not exceed|any other customer|other customers|"
        r"comparable|equivalent|lower|higher|other client"
    ),
    "insurance": cue(r"insur|coverage|policies|policy limits|bodily injury|umbrella"),
    "no_solicit_of_employees": cue(r"solicit|induce|recruit|\bhire|hiring|employ|personnel"),
    "no_solicit_of_customers": cue(r"solicit|divert|induce|entice|interfere|customer|client"),
    "joint_ip_ownership": cue(r"joint|undivided|co-own|owned by both|shared ownership|equal"),
    "source_code_escrow": cue(r"escrow|source code|deposit"),
    "ip_ownership_assignment": cue(
        r"assign|title|ownership|owned|\bown\b|belong|vest|works? made for hire|property of"
    ),
    "license_grant": cue(r"licen[cs]|grants?\b|granted|right to use"),
    "non_transferable_license": cue(r"non-?transfer|not transfer|nontransfer|non-?assign|not assign|licen[cs]"),
    "irrevocable_or_perpetual_license": cue(r"perpetu|irrevoc|survive"),
    "cap_on_liability": _LIABILITY,
    "uncapped_liability": _LIABILITY,
    "liquidated_damages": cue(
        r"liquidat|penalt|damages|termination (?:fee|payment)|break-?up|multipl|in consideration"
    ),
    "warranty_duration": cue(r"warrant|defect|guarant"),
    "minimum_commitment": cue(r"minimum|at least|not less than|no less than|commit|guarantee"),
    "revenue_profit_sharing": cue(r"revenue|profit|percent|%|royalt|net sales|gross|share"),
    "rofr_rofo_rofn": cue(
        r"first refusal|first offer|first negotiat|right of first|option|refusal|offer|negotiat|match"
    ),
    "non_disparagement": cue(
        r"disparag|reputation|defam|slander|libel|goodwill|derogator|negative|detriment|injurious|disrepute|discredit"
    ),
    "post_termination_services": cue(r"terminat|expir|wind|transition|after the term|following the term|thereafter"),
    "third_party_beneficiary": cue(r"beneficiar|third part|intended to benefit|confer|for the benefit|enforce"),
    "covenant_not_to_sue": cue(
        r"contest|challeng|dispute|attack|impair|\bsue\b|covenants? not|validity|bring (?:any|a) |claim"
    ),
    "price_restrictions": cue(r"increas|decreas|price|adjust|discount"),
    "volume_restriction": cue(r"exceed|maximum|in excess|limit|cap\b|up to|no more than|not more than"),
    "affiliate_license_licensor": _AFFILIATES,
    "affiliate_license_licensee": _AFFILIATES,
    "unlimited_all_you_can_eat_license": cue(
        r"unlimit|any number|all-you|enterprise|site licen|without limit|no limit"
    ),
    "competitive_restriction_exception": cue(
        r"notwithstanding|except|provided|however|nothing|shall not (?:apply|prevent|restrict|prohibit|limit|preclude)|"
        r"not be deemed|excluding|other than"
    ),
}
"""Words one of which nearly every sentence of the clause CUAD marks on the tune split holds (but a few per cent of
a contract's sentences: 0.3% for non-disparagement to 6% for IP ownership assignment, 8% for competitive
restriction exceptions), for the clauses whose rules fall short or which have none; audit rights and
anti-assignment are left to their rules, which read them well enough (F1 0.85 and 0.94 held out)."""

MAX_EMBEDDED_CHARS = 300
"""What the learned decision reads of a candidate: a clause is said in its first few lines, and a sentence running on
(a hard-wrapped list, a hostile line) costs embedding time in proportion to its length."""


def candidates(body: str, clause: str) -> list[tuple[int, int]]:
    """The spans of the sentences of `body` that may state `clause`, in the order of the text."""
    return list(sentences_matching(body, CANDIDATE_CUES[clause]))


def candidate_text(body: str, span: tuple[int, int]) -> str:
    """What the learned decision reads of the sentence at `span`: its words with runs of spaces and line breaks
    closed up (contracts are hard-wrapped and padded), cut at `MAX_EMBEDDED_CHARS`."""
    return " ".join(body[span[0] : span[1]].split())[:MAX_EMBEDDED_CHARS]
