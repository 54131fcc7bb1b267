"""Proper names in running text: quoted titles and runs of capitalised words ("Bank of England", "Roger O.
Egeberg"), as questions and passages write them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from english.lexicon import DEMONYMS, STOPWORDS
from english.numbers import MONTHS, WEEKDAYS

_CAPITAL = r"[A-ZÀ-ÖØ-Þ]"
_NAME_WORD = rf"(?:{_CAPITAL}\.|{_CAPITAL}[\w'’&!-]*)"
_NAME_CONNECTORS = r"(?:of|the|de|du|da|del|von|van|der|la|le|&)"
_PROPER_NAME = re.compile(
    rf"\"(?P<quoted>[^\"]{{2,80}})\"|(?P<words>{_NAME_WORD}(?:\s+(?:{_NAME_CONNECTORS}\s+)*{_NAME_WORD})*)"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n)\W*$")
_CALENDAR_WORDS = set(MONTHS) | set(WEEKDAYS)


@dataclass(frozen=True)
class Name:
    text: str
    span: tuple[int, int]


def _trimmed(words: str, starts_sentence: bool) -> str:
    """A capitalised run without the function words capitalised only because they start the sentence ("Are
    Local H" -> "Local H"; mid-sentence, "For Against" is a name) and without a possessive or closing stop."""
    kept = words.split()
    while starts_sentence and kept and kept[0].lower() in STOPWORDS:
        kept.pop(0)
    return re.sub(r"(?:['’]s|[.,;:])$", "", " ".join(kept))


def proper_names(text: str) -> list[Name]:
    """The names running text mentions: quoted titles and runs of capitalised words with the small words names
    hold ("Bank of England", "Roger O. Egeberg"). Not a lone capitalised word that only starts a sentence
    ("Later", "Winners"), not dates, not demonyms ("American" qualifies, it names nothing to look up)."""
    found = []
    for m in _PROPER_NAME.finditer(text):
        starts_sentence = _SENTENCE_START.search(text[: m.start()]) is not None
        name = m.group("quoted").strip() if m.group("quoted") else _trimmed(m.group("words"), starts_sentence)
        words = name.lower().split()
        if len(name) < 3 or all(w in _CALENDAR_WORDS or w in DEMONYMS or w in STOPWORDS for w in words):
            continue
        if not m.group("quoted") and starts_sentence and len(words) == 1 and name == m.group("words"):
            continue
        found.append(Name(name, m.span()))
    return found
