"""Whether a question is written in another language than English: the planners read English only (their word
tables, number words, dates and intent phrases are English), so a question in another language is asked back
plainly rather than read word by word as names no document holds.

Told without a language model: a question mostly in letters outside the Latin alphabet (Cyrillic, Greek, Arabic,
Chinese, ...) is not English; one in the Latin alphabet is not English when it holds more of another language's
function words (`data/languages.toml`: articles, prepositions, question words) than of English's, and at least two.
A name from another language inside an English question ("the Banco de la Nación contract") leaves it English: its
English words outnumber the name's."""

from __future__ import annotations

import re
import unicodedata

from english.lexicon import STOPWORDS
from english.tables import table

OTHER_LANGUAGES_WORDS: frozenset[str] = frozenset(w for words in table("languages").values() for w in words)
FOREIGN_WORDS_NEEDED = 2
_WORD = re.compile(r"[^\W\d_]+")
_INVERTED = re.compile(r"[¿¡]")
"""Spanish opens a question or an exclamation with these; English never does."""


def _latin(letter: str) -> bool:
    return unicodedata.name(letter, "").startswith("LATIN")


def in_another_language(text: str) -> bool:
    """Whether `text` is written in another language than English (see the module's docstring)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    if sum(not _latin(c) for c in letters) * 2 > len(letters):
        return True
    words = _WORD.findall(text.lower())
    english = sum(w in STOPWORDS for w in words)
    foreign = sum(w in OTHER_LANGUAGES_WORDS for w in words) + len(_INVERTED.findall(text))
    return foreign >= FOREIGN_WORDS_NEEDED and foreign > english
