"""The dates written beside a contract's signatures ("Date: 24 OCT 2011", "Dated: 13/07/05", "January 22, 2020
(Date)"), which date a contract whose opening does not: the day its last signature was written, when the contract
was made (the one day every signature carries, or the latest of them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrievers.extraction.found import Found

# What stands above a date in a signature block: a signature, a signer's name or title, the witness clause.
_SIGNER_RE = re.compile(
    r"/s/|\\s\\|\b(?:By|Name|Title|Its)\s*:|\bSignature\b|\bIN\s+WITNESS\s+WHEREOF\b|\bSigned\b", re.IGNORECASE
)
_SIGNER_REACH = 600
"""How far above a date its signature block may begin: a block's names, titles and addresses."""
_SIGNATURE_RE = re.compile(r"/s/|\\s\\|\bSignature\b", re.IGNORECASE)
# A line that is a signature ("\s\ John Dick      General Manager ------      19 Jan. 1998"): a date ending it is the
# day that signature was written.
_SIGNATURE_LINE_RE = re.compile(r"[ \t]*(?:By:?[ \t]*)?(?:/s/|\\s\\)")
_SIGNER_BELOW = 300
"""How far below a date its signature may stand, where a block's rows run date, signature, name, title."""
_LABEL_BEFORE_RE = re.compile(r"\bdated?\s*[:.]?[ \t]*$", re.IGNORECASE)
_LABEL_BEFORE_CHARS = 20
# The words before a date that say a signature was made on it: "Signed on", "[signature authenticated by third party
# document depository on December 17, 2018]".
_SIGNED_ON_RE = re.compile(r"\b(?:signed|signature\b[^.;\n\d]{0,60}?)\s+on\s*$", re.IGNORECASE)
_SIGNED_ON_CHARS = 80
# The caption under or after a date written on a signature line: "January 22, 2020 (Date)", "9/9/97 ______ Date",
# or a row of captions under a row of signature lines ("1/14/02 ------ Name (type or print) Date", "24 OCT 2011
# Place Date", "5/17/12 GENO AURIEMMA Date"): lines and capitalised words between, no figures or sentence, and not
# another date's name ("March 3, 2011 Effective Date"). A run of lines and spaces is read whole (possessively), so a
# long run that leads to no caption is not read again piece by piece.
_CAPTION_WORD = (
    r"(?!(?i:effective|commencement|termination|expiration|expiry|renewal|start|end|due)\b)[A-Z][\w.&'’-]*\b"
)
_LABEL_AFTER_RE = re.compile(
    rf"(?:[\s_\-–—]++|\((?i:type\s+or\s+print|print(?:ed)?(?:\s+name)?)\)|{_CAPTION_WORD}){{0,12}}?"
    r"\(?\s*(?i:date)\b(?!\s*:)"
)
# The contract saying its date is that of its last signature: "as of the last date provided for on the signature
# page", "the later of the dates beneath the Parties' signatures", "the date of last signature", "the latest date
# referenced on the signature page", "as of the date last written below", "the completion of the execution by both
# Parties", "the signatures and seals of both Parties". A pattern, for `contract_dates` to read where the effective
# date is said to be that date.
LAST_SIGNING = (
    r"\b(?:last|latest|later)\s+(?:of\s+the\s+)?(?:signature|signing"
    r"|dates?\b[^.;]{0,50}?\b(?:signature|signing|signed|execut\w*|below))"
    r"|\bdate\s+last\s+(?:written|signed|set\s+forth|executed)"
    r"|\b(?:execution|signatures?|signing)\s+(?:and\s+\w+\s+)?(?:of|by)\s+(?:both|all|the)\s+parties\b"
)


# The place a contract was signed, alone on the line before its date ("Hamburg, November 19th, 2012" above the
# signatures, as European contracts date themselves): one to four capitalised words and a comma.
_PLACE_BEFORE_RE = re.compile(r"(?:^|\n)[ \t]*[A-Z][\w.'’-]*(?:[ \t]+[A-Z][\w.'’-]*){0,3}[ \t]*,[ \t]*$")
_PLACE_CHARS = 60
_LINE_END_RE = re.compile(r"[ \t]*(?:\n|$)")


def beside_a_signature(body: str, start: int, end: int) -> bool:
    """Whether the date at `body[start:end]` is labelled as a signature's date and stands in a signature block: a
    signature block above it, or, for a date captioned below or a line giving only the place and date of signing,
    a signature just below it."""
    placed = _PLACE_BEFORE_RE.search(body, max(0, start - _PLACE_CHARS), start) and _LINE_END_RE.match(body, end)
    if placed and _SIGNATURE_RE.search(body, end, end + _SIGNER_BELOW):
        return True
    line_start = body.rfind("\n", 0, start) + 1
    if _SIGNATURE_LINE_RE.match(body, line_start, start) and _LINE_END_RE.match(body, end):
        return True
    if _SIGNER_RE.search(body, max(0, start - _SIGNER_REACH), start):
        return bool(
            _LABEL_BEFORE_RE.search(body, max(0, start - _LABEL_BEFORE_CHARS), start)
            or _SIGNED_ON_RE.search(body, max(0, start - _SIGNED_ON_CHARS), start)
            or _LABEL_AFTER_RE.match(body, end)
        )
    return bool(_LABEL_AFTER_RE.match(body, end) and _SIGNATURE_RE.search(body, end, end + _SIGNER_BELOW))


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


def dated_by_signatures(signature_dates: Sequence[Found]) -> list[Found]:
    """The contract's date from its signatures' dates (each cited by its line): the latest, the day the last party
    signed and the contract was made, as CUAD's lawyers date such a contract (all 6 of the tune split's contracts
    dated only by signatures on different days); [] when there are none."""
    return [max(signature_dates, key=lambda found: found.value)] if signature_dates else []
