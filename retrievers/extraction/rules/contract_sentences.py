"""The sentence around a match in a contract, and the first sentence that satisfies a clause's conditions.

Contracts are hard-wrapped, full of "Inc." and "Section 2.1", and sometimes one 10 MB line: a sentence here is
bounded by ". X", "? X", "! X" or a blank line, and never reaches more than `REACH` characters either side of the
match. The boundaries are found once per text (the last few texts are remembered, so the rules of all fields
reading one contract share them), and each sentence is then two binary searches.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import lru_cache

REACH = 700
"""At most this many characters of a sentence on each side of the words that matched."""

MAX_CANDIDATES = 400
"""Matches of an anchor looked at per document: a clause is in one of the first few, a hostile text has millions."""

MIN_WORDS = 6
"""Fewer words make a heading or a title ("EXCLUSIVE DISTRIBUTOR AGREEMENT", "Exclusivity."), not a clause."""

_SENTENCE_END = re.compile(r"[.!?](?=[\s\"”')]*\s[\"“(]?[A-Z0-9])|\n[ \t\r]*\n")


@lru_cache(maxsize=4)
def _sentence_starts(body: str) -> list[int]:
    """Where each sentence of `body` starts, found in one pass and shared by every rule reading the same body."""
    return [0, *(boundary.end() for boundary in _SENTENCE_END.finditer(body))]


def sentence_span(body: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding `body[start:end]`, without surrounding whitespace."""
    starts = _sentence_starts(body)
    begin = max(starts[bisect_right(starts, start) - 1], start - REACH)
    after = bisect_left(starts, end)
    finish = min(starts[after] if after < len(starts) else len(body), end + REACH)
    while begin < finish and body[begin].isspace():
        begin += 1
    while finish > begin and body[finish - 1].isspace():
        finish -= 1
    return begin, finish


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@lru_cache(maxsize=4)
def lowered(body: str) -> str:
    """`body` in lower case with every character where it was, so offsets found in one hold in the other."""
    low = body.lower()
    return low if len(low) == len(body) else body.translate(_ASCII_LOWER)


def cue(pattern: str) -> re.Pattern[str]:
    """A cue: lower-case words that any sentence of a clause holds, found fast in the lower-cased text.

    Scanning a whole contract with a case-blind pattern of many alternatives costs tens of milliseconds; a
    case-sensitive scan of the lower-cased text for a few words costs about one, and the full patterns then read
    only the sentences the cue found."""
    return re.compile(pattern)


def words(pattern: str) -> re.Pattern[str]:
    """A case-blind pattern, read only inside the sentences a cue found."""
    return re.compile(pattern, re.IGNORECASE)


def sentences_matching(
    body: str,
    cue_words: re.Pattern[str],
    anchor: re.Pattern[str] | None = None,
    require: re.Pattern[str] | None = None,
    exclude: re.Pattern[str] | None = None,
) -> Iterator[tuple[int, int]]:
    """Spans of the sentences holding `cue_words` that match `anchor` and `require` and not `exclude`, each once."""
    last: tuple[int, int] | None = None
    for count, match in enumerate(cue_words.finditer(lowered(body))):
        if count >= MAX_CANDIDATES:
            return
        span = sentence_span(body, match.start(), match.end())
        if span == last:
            continue
        last = span
        sentence = body[span[0] : span[1]]
        if sentence.count(" ") < MIN_WORDS - 1:
            continue
        if anchor is not None and not anchor.search(sentence):
            continue
        if require is not None and not require.search(sentence):
            continue
        if exclude is not None and exclude.search(sentence):
            continue
        yield span
