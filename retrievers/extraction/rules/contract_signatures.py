"""The dates written beside a contract's signatures ("Date: 24 OCT 2011", "Dated: 13/07/05", "January 22, 2020
(Date)"), which date a contract whose opening does not: the one date every signature carries, or the latest of them
where the contract says it is dated by its last signature ("effective as of the last date provided for on the
signature page"). Signatures dated on different days date nothing else: which of them the contract means is a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrievers.extraction.found import Found

# What stands above a date in a signature block: a signature, a signer's name or title, the witness clause.
_SIGNER_RE = re.compile(
    r"/s/|\b(?:By|Name|Title|Its)\s*:|\bSignature\b|\bIN\s+WITNESS\s+WHEREOF\b|\bSigned\b", re.IGNORECASE
)
_SIGNER_REACH = 600
"""How far above a date its signature block may begin: a block's names, titles and addresses."""
_LABEL_BEFORE_RE = re.compile(r"\bdated?\s*[:.]?[ \t]*$", re.IGNORECASE)
_LABEL_BEFORE_CHARS = 20
# The caption under or after a date written on a signature line: "January 22, 2020 (Date)", "9/9/97 ______ Date".
_LABEL_AFTER_RE = re.compile(r"[ \t_-]{0,60}\(?\s*date\b", re.IGNORECASE)
# The contract saying its date is that of its last signature: "as of the last date provided for on the signature
# page", "the later of the dates beneath the Parties' signatures", "the date of last signature", "the latest date
# referenced on the signature page", "as of the date last written below". A pattern, for `contract_dates` to read
# the same words where the effective date is said to be that date.
LAST_SIGNING = (
    r"\b(?:last|latest|later)\s+(?:of\s+the\s+)?(?:signature|signing"
    r"|dates?\b[^.;]{0,50}?\b(?:signature|signing|signed|execut\w*|below))"
    r"|\bdate\s+last\s+(?:written|signed|set\s+forth|executed)"
)
_LAST_SIGNING_RE = re.compile(LAST_SIGNING, re.IGNORECASE)


def beside_a_signature(body: str, start: int, end: int) -> bool:
    """Whether the date at `body[start:end]` is labelled as a signature's date and stands in a signature block."""
    labelled = bool(
        _LABEL_BEFORE_RE.search(body, max(0, start - _LABEL_BEFORE_CHARS), start) or _LABEL_AFTER_RE.match(body, end)
    )
    return labelled and bool(_SIGNER_RE.search(body, max(0, start - _SIGNER_REACH), start))


def line_around(body: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the line holding `body[start:end]`, without the whitespace around it."""
    begin = body.rfind("\n", 0, start) + 1
    finish = body.find("\n", end)
    finish = len(body) if finish < 0 else finish
    while begin < start and body[begin].isspace():
        begin += 1
    while finish > end and body[finish - 1].isspace():
        finish -= 1
    return begin, finish


def dated_by_signatures(body: str, signature_dates: Sequence[Found]) -> list[Found]:
    """The contract's date from its signatures' dates (each cited by its line): the one they share, or the latest
    where the contract says it is dated by its last signature; [] when they differ otherwise or there are none."""
    values = {found.value for found in signature_dates}
    if len(values) == 1:
        return [signature_dates[0]]
    if len(values) > 1 and _LAST_SIGNING_RE.search(body):
        return [max(signature_dates, key=lambda found: found.value)]
    return []
