"""Sentences and numbers of answer text: what the extractive answer picks from and the verifier checks, read the
same way on both sides; and the sentence around a match in a long document, which the extraction rules read and
cite.

Sentence boundaries come from `sentencex` (Wikimedia's rule-based segmenter: abbreviations, initials and
decimals stay inside their sentence, so "Acme Inc. and" is one sentence, and it needs no model). Numbers are read
by hand because the rule is the verifier's and must be plain: every run of digits, with its thousands separators
and decimals ("1,234.50", "RM50.00", "13th", "COVID-19", the decimal comma of "34,73"), and the words of small
counts ("three"), read alike in the answer and in the evidence.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from decimal import Decimal
from functools import lru_cache

from sentencex import segment

from english.numbers import COUNT_WORDS

_NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)([.,]\d{1,2}(?!\d)|\.\d+)?(?!\d|[.,]\d)")
_NUMBER_WORD = re.compile(rf"\b({'|'.join(COUNT_WORDS)})\s+(?=[a-z]{{3,}})", re.IGNORECASE)
"""A count's word (`COUNT_WORDS`) only before a word: "the older of the two" counts nothing."""


def split_sentences(text: str, paragraph_break: str = "\n\n") -> list[str]:
    """The sentences of `text`, stripped, empty ones left out; a paragraph break (a snippet keeps them as
    `paragraph_break`) always ends one, so that a title or heading line is not joined to the sentence after it."""
    return [s.strip() for paragraph in text.split(paragraph_break) for s in segment("en", paragraph) if s.strip()]


SENTENCE_REACH = 700
"""The most characters of a sentence `sentence_span` gives on each side of the words it was asked about: a
contract hard-wrapped without full stops, or a hostile 10 MB line, still gives a citation a user can read."""

CLAUSE_REACH = 600
"""The same for a clause (`sentence_span(..., clauses=True)`): the rules reading a date, a law or a party from the
words around it were tuned with this reach, and read a few values differently with the sentences' one."""

# A document's sentence ends at ". X", "? X" or "! X" (a capital or a digit next, past closing quotes and
# brackets: "Inc. and" and "Section 2.1" stay inside) or at a blank line, but not at a full stop typed between a
# date's day and its year ("until March 18. 2021"). A clause ends at any of ". ; ! ?" before a space: tighter,
# for a value that must be read from the few words around it (a date, a law).
_SENTENCE_END = re.compile(
    r"[.!?](?!(?:(?<=[A-Za-z] \d\.)|(?<=[A-Za-z] \d\d\.))\s(?:19|20)\d\d\b)(?=[\s\"\u201d')]*\s[\"\u201c(]?[A-Z0-9])"
    r"|\n[ \t\r]*\n"
)
_CLAUSE_END = re.compile(r"[.;!?](?=\s)|\n[ \t\r]*\n")
_RUNS_ON = re.compile(r"(?:,|\b(?:the|of|and|or|to|by|in|a|an|for|with|under|that|which))\s*$", re.IGNORECASE)
"""Words a clause cannot end with: a blank line after them is a page break inside the clause ("governed by, the
[page break] laws of the State of Georgia"), not its end."""


@lru_cache(maxsize=8)
def _starts(text: str, clauses: bool) -> list[int]:
    """Where each sentence (or clause) of `text` starts, found in one pass and shared by every rule reading the
    same text."""
    if not clauses:
        return [0, *(end.end() for end in _SENTENCE_END.finditer(text))]
    return [
        0,
        *(
            end.end()
            for end in _CLAUSE_END.finditer(text)
            if end.group(0)[0] != "\n" or not _RUNS_ON.search(text, max(0, end.start() - 12), end.start())
        ),
    ]


def sentence_span(text: str, start: int, end: int, *, clauses: bool = False) -> tuple[int, int]:
    """The bounds of the sentence holding `text[start:end]`, without the whitespace around it, reaching at most
    `SENTENCE_REACH` characters beyond the match on each side; with `clauses`, of the clause holding it (ended
    by any stop or semicolon, at most `CLAUSE_REACH` beyond it).

    Written for long documents (contracts are hard-wrapped, full of "Inc." and "Section 2.1"): the boundaries
    are found once per text and each sentence is then two binary searches. `split_sentences`, for the short
    text of an answer, reads with `sentencex` instead: in a contract it joins sentences across the quotes and
    brackets of defined terms ('the "Effective Date")'), which measurably cost the extraction rules."""
    starts, reach = _starts(text, clauses), CLAUSE_REACH if clauses else SENTENCE_REACH
    begin = max(starts[bisect_right(starts, start) - 1], start - reach)
    after = bisect_left(starts, end)
    finish = min(starts[after] if after < len(starts) else len(text), end + reach)
    while begin < finish and text[begin].isspace():
        begin += 1
    while finish > begin and text[finish - 1].isspace():
        finish -= 1
    return begin, finish


def numbers(text: str) -> list[Decimal]:
    """The quantities `text` writes, in digits or as a count's word, as exact decimals (1,234.50 -> 1234.50)."""
    digits = [
        Decimal(m.group(1).replace(",", "") + (m.group(2) or "").replace(",", ".")) for m in _NUMBER.finditer(text)
    ]
    return digits + [Decimal(COUNT_WORDS[m.group(1).lower()]) for m in _NUMBER_WORD.finditer(text)]


def same_number(written: Decimal, source: Decimal) -> bool:
    """`written` is `source`, or `source` rounded to the places `written` shows (63.18 for 63.182558)."""
    return written == source or source.quantize(written) == written
