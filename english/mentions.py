"""Where a question mentions a word or phrase, as users inflect and misspell it: by stems ("renewal" says
"renew"), said whole with an optional plural ("ndas"), or misspelt ("recipts" for "receipts")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from english.value_match import normalise
from english.words import STEM_CHARS

FUZZY_WORD_SCORE = 85
"""RapidFuzz ratio a misspelt bucket or field word needs ("recipts" for "receipts" scores 93, "agreemnts" 94)."""
FUZZY_WORD_MIN = 6


@dataclass(frozen=True)
class Mention:
    """Where the question names something, by which words, and the alias they say."""

    span: tuple[int, int]
    text: str
    alias: str = ""


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str, stem_chars: int = STEM_CHARS) -> re.Pattern:
    """A word or phrase as users inflect it: each word by its stem when long ("renew" in "renewal", "expir" in
    "expires"), whole with an optional plural otherwise, or, where longer stems are asked for (yes/no fields), with
    a verb's endings ("poaching", "hiring"); words separated by any spaces or hyphens."""
    parts = []
    for word in normalise(phrase).split():
        if len(word) > stem_chars:
            parts.append(re.escape(word[:stem_chars]) + r"\w*")
        elif stem_chars > STEM_CHARS and len(word) > 3:  # "poach" says "poaching", "hire" "hiring"
            parts.append(re.escape(word.removesuffix("e")) + "(?:e|es|ed|ing|s)?")
        else:
            parts.append(re.escape(word) + "(?:s|es)?")
    return re.compile(r"\b" + r"[\s-]+".join(parts) + r"\b")


@lru_cache(maxsize=4096)
def _whole_pattern(phrase: str) -> re.Pattern:
    """A word or phrase said whole, with an optional plural ("nda" and "ndas", not "resistor" in "resistance")."""
    words = [re.escape(w) for w in normalise(phrase).split()]
    return re.compile(r"\b" + r"[\s-]+".join(words) + r"(?:s|es)?\b")


def find_mentions(lowered: str, phrases: list[str], whole: bool = False, stem_chars: int = STEM_CHARS) -> list[Mention]:
    """Where `phrases` occur: by stems of `stem_chars` letters (field words: "renewal" says "renew"), or `whole`
    (bucket words)."""
    found = []
    for phrase in phrases:
        if not normalise(phrase):
            continue
        pattern = _whole_pattern(phrase) if whole else _phrase_pattern(phrase, stem_chars)
        for m in pattern.finditer(lowered):
            found.append(Mention(m.span(), m.group(0), phrase))
    return found


def fuzzy_mentions(lowered: str, words: list[str]) -> list[Mention]:
    """Misspelt single words ("recipts", "agreemnts"): a question word of FUZZY_WORD_MIN letters or more close to
    one of `words`."""
    single = [w for w in words if " " not in w and len(w) >= FUZZY_WORD_MIN - 1]
    found = []
    for m in re.finditer(rf"[a-z]{{{FUZZY_WORD_MIN},}}", lowered):
        token = m.group(0)
        if any(
            fuzz.ratio(token, w) >= FUZZY_WORD_SCORE or fuzz.ratio(token, w + "s") >= FUZZY_WORD_SCORE for w in single
        ):
            found.append(Mention(m.span(), token))
    return found
