"""How the rule planner matches words, in one place: whole phrases, word starts, and stems.

A stem is a word's first STEM_CHARS letters, a cheap stand-in for the stemming the keyword engine does
("terminat" for "terminated" and "termination", "renew" for "renewal"). Words shorter than a stem are matched
whole, so "term" does not match "terminate". Hand-written because these are a few lines over `re`, and a
stemmer library would bring its own idea of English that the catalogs' field names do not follow.
"""

from __future__ import annotations

import re

from english.lexicon import STOPWORDS
from english.numbers import NUMBER_WORDS

STEM_CHARS = 5
FLAG_STEM_CHARS = 6
"""Yes/no field names are matched by longer stems: their words ("termination", "convenience") are long, and five
letters of them would also match unrelated words the questions use."""
_WORDS = re.compile(r"[a-z0-9]+")
_HOW_MANY = re.compile(r"\bhow many\s+(?P<words>[a-z0-9/-]+(?:\s+[a-z0-9/-]+)?)")
_NUMBER = (
    "(?:"
    + "|".join([r"\d[\d,.]*", *sorted(NUMBER_WORDS, key=len, reverse=True), "hundred", "thousand", "million", "dozen"])
    + ")"
)


def stem(word: str, chars: int = STEM_CHARS) -> str:
    return word[:chars]


def stems(text: str) -> list[str]:
    """The content words of `text` (not stop words, three letters or more) by their stems."""
    return [stem(w) for w in _WORDS.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS]


def occurs(text: str, phrase: str) -> bool:
    """`phrase` occurs in `text` as whole words, not inside a longer word; case counts (a plain scan: the grade
    checks every page title against every passage, too many distinct patterns for the regex cache)."""
    start = text.find(phrase) if phrase else -1
    while start != -1:
        end = start + len(phrase)
        if not (start and text[start - 1].isalnum()) and not (end < len(text) and text[end].isalnum()):
            return True
        start = text.find(phrase, start + 1)
    return False


def has_phrase(text: str, phrase: str) -> bool:
    """`phrase` occurs in `text` as whole words, case ignored."""
    return occurs(text.lower(), phrase.lower())


def holds(text: str, wanted: list[str]) -> float:
    """Share of `wanted` stems (three to STEM_CHARS letters, as `stems` gives them) that start a word of `text`."""
    starts = {w[:n] for w in re.findall(r"\w+", text) for n in range(3, STEM_CHARS + 1)}
    return sum(t in starts for t in wanted) / len(wanted) if wanted else 0.0


def counted(question: str) -> list[str]:
    """What a "how many" question counts: the words after it that are not stop words, at most two ("how many HR
    policies are there?": hr, policies; "over how many centuries were the tombs built?": centuries); none for
    another question."""
    m = _HOW_MANY.search(question.lower())
    return [w for w in m.group("words").split() if w not in STOPWORDS] if m else []


def counted_noun(question: str) -> str | None:
    """The word right after "how many" when it is a word and not a stop word: what the question counts ("orders" in
    "how many orders did we place"; nothing in "how many of them" or "how many 2-year NDAs"); past a "non-" that
    negates it ("how many non-vegetarian dishes": "vegetarian")."""
    m = _HOW_MANY.search(question.lower())
    first = re.match(r"(?:non[- ])?([a-z]+)", m.group("words")) if m else None
    return first.group(1) if first and first.group(1) not in STOPWORDS else None


def states_a_number_of(text: str, things: list[str]) -> bool:
    """`text` puts a number just before one of `things` (at most two words between: "three internal audits",
    "200 full-time employees"): what a passage must say to answer how many of them there are. The words between
    are plain words, not "of" ("5.4.1.1 (Letter of Credit)" puts no number on credit notes, nor does "one letter
    of credit")."""
    lowered = text.lower()
    between = r"(?:(?!of\s)[a-z][\w'-]*\s+){0,2}?"
    return any(re.search(rf"\b{_NUMBER}\s+{between}{re.escape(stem(thing))}", lowered) for thing in things)


def singular(word: str) -> str:
    """A plural's singular by its last "s" ("orders" -> "order"), leaving "address" and short words be."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def plural(word: str) -> bool:
    """Looks like a plural noun ("orders", "printers"), not "address", "status" or "basis"."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


POSSESSIVE = re.compile(r"['’]s\b")
"""A possessive ending ("Reed's"): the name is the word before it (a party "Reed's, Inc." is named "Reed's")."""
