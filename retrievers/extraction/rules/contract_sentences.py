"""The sentence around a match in a contract, and the first sentence that satisfies a clause's conditions.

Contracts are hard-wrapped, full of "Inc." and "Section 2.1", and sometimes one 10 MB line: a sentence here is
bounded by ". X", "? X", "! X" or a blank line, and never reaches more than `REACH` characters either side of the
match, so finding one costs a bounded amount of work however the text is laid out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

REACH = 700
"""At most this many characters of a sentence on each side of the words that matched."""

MAX_CANDIDATES = 400
"""Matches of an anchor looked at per document: a clause is in one of the first few, a hostile text has millions."""

_SENTENCE_END = re.compile(r"[.!?](?=[\s\"”')]*\s[\"“(]?[A-Z0-9])|\n[ \t\r]*\n")


def sentence_span(body: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding `body[start:end]`, without surrounding whitespace."""
    lowest = max(0, start - REACH)
    begin = lowest
    for boundary in _SENTENCE_END.finditer(body, lowest, start):
        begin = boundary.end()
    after = _SENTENCE_END.search(body, end, min(len(body), end + REACH))
    finish = after.end() if after else min(len(body), end + REACH)
    while begin < finish and body[begin].isspace():
        begin += 1
    while finish > begin and body[finish - 1].isspace():
        finish -= 1
    return begin, finish


def sentences_matching(
    body: str, anchor: re.Pattern[str], require: re.Pattern[str] | None = None, exclude: re.Pattern[str] | None = None
) -> Iterator[tuple[int, int]]:
    """Spans of the sentences holding `anchor` that also match `require` and not `exclude`, each once, in order."""
    last: tuple[int, int] | None = None
    for count, match in enumerate(anchor.finditer(body)):
        if count >= MAX_CANDIDATES:
            return
        span = sentence_span(body, match.start(), match.end())
        if span == last:
            continue
        last = span
        sentence = body[span[0] : span[1]]
        if require is not None and not require.search(sentence):
            continue
        if exclude is not None and exclude.search(sentence):
            continue
        yield span
