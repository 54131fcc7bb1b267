"""Sentences and numbers of answer text: what the extractive answer picks from and the verifier checks, read the
same way on both sides.

Sentence boundaries come from `sentencex` (Wikimedia's rule-based segmenter: abbreviations, initials and
decimals stay inside their sentence, and it needs no model). Numbers are read by hand because the rule is the
verifier's and must be plain: every run of digits, with its thousands separators and decimals ("1,234.50",
"RM50.00", "13th", "COVID-19", the decimal comma of "34,73"), and the words of small counts ("three"), read
alike in the answer and in the evidence.
"""

from __future__ import annotations

import re
from decimal import Decimal

from sentencex import segment

from english.numbers import COUNT_WORDS

_NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)([.,]\d{1,2}(?!\d)|\.\d+)?(?!\d|[.,]\d)")
_NUMBER_WORD = re.compile(rf"\b({'|'.join(COUNT_WORDS)})\s+(?=[a-z]{{3,}})", re.IGNORECASE)
"""A count's word (`COUNT_WORDS`) only before a word: "the older of the two" counts nothing."""


def split_sentences(text: str, paragraph_break: str = "\n\n") -> list[str]:
    """The sentences of `text`, stripped, empty ones left out; a paragraph break (a snippet keeps them as
    `paragraph_break`) always ends one, so that a title or heading line is not joined to the sentence after it."""
    return [s.strip() for paragraph in text.split(paragraph_break) for s in segment("en", paragraph) if s.strip()]


def numbers(text: str) -> list[Decimal]:
    """The quantities `text` writes, in digits or as a count's word, as exact decimals (1,234.50 -> 1234.50)."""
    digits = [
        Decimal(m.group(1).replace(",", "") + (m.group(2) or "").replace(",", ".")) for m in _NUMBER.finditer(text)
    ]
    return digits + [Decimal(COUNT_WORDS[m.group(1).lower()]) for m in _NUMBER_WORD.finditer(text)]


def same_number(written: Decimal, source: Decimal) -> bool:
    """`written` is `source`, or `source` rounded to the places `written` shows (63.18 for 63.182558)."""
    return written == source or source.quantize(written) == written
