"""The first sentences of a contract that satisfy a clause's conditions.

A cue (a few lower-case words) finds candidates fast in the lower-cased text; each candidate is read in its
sentence (`english.sentences.sentence_span`, shared with every other reader of sentences), and the sentence must
then match the clause's case-blind patterns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from english.sentences import sentence_span

MAX_CANDIDATES = 400
"""Matches of an anchor looked at per document: a clause is in one of the first few, a hostile text has millions."""

MIN_WORDS = 6
"""Fewer words make a heading or a title ("EXCLUSIVE DISTRIBUTOR AGREEMENT", "Exclusivity."), not a clause."""

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
