"""Words of questions as English uses them, whatever the documents: stop words, filler, the words that stand before
a name, a clause or an amount, demonyms, negations. The lists are `data/words.toml`."""

from __future__ import annotations

import re

from english.tables import table

_WORDS = table("words")
STOPWORDS: set[str] = set(_WORDS["stopwords"])
"""Words that only phrase a question. They include every English stop word the keyword index drops ("will",
"such"): a word the index never keeps would look like a word no document holds."""
FILLER: set[str] = set(_WORDS["filler"])
"""Words that fill a question out without being a condition; never reported as unmapped."""
CLAUSE_WORDS: set[str] = set(_WORDS["clause_words"])
"""Words just before these name a clause ("an arbitration clause")."""
NAME_SLOT: set[str] = set(_WORDS["name_slot"])
HOLDING_VERBS: set[str] = set(_WORDS["holding_verbs"])
"""After one of these and a determiner stands a thing a document holds ("have an audit right", "with no insurance")."""
CONTAINING_VERBS: set[str] = set(_WORDS["containing_verbs"])
"""Right after one of these stands a thing a document holds ("use paneer", "involving hemp")."""
TOPIC_SLOT: set[str] = set(_WORDS["topic_slot"])
"""After one of these stands what documents are said to be about ("contracts about software")."""
COPULAS: set[str] = set(_WORDS["copulas"])
"""Verbs that say what the documents are ("recipes that are spicy")."""
AMOUNT_SLOT: set[str] = set(_WORDS["amount_slot"])
"""Where a sum's words name what it adds up in ("in doubloons") or what it adds up ("the average tip")."""
DEFINITE: set[str] = set(_WORDS["definite"])
INDEFINITE: set[str] = set(_WORDS["indefinite"])
"""Determiners: the nearest before a noun says whether it is one thing already known ("the contract") or not."""
ASKING_VERBS: set[str] = set(_WORDS["asking_verbs"])
"""Verbs that end the thing a question names ("the note on working from home say ..."): they phrase the question."""
DEMONYMS: dict[str, str] = dict(_WORDS["demonyms"])
"""A people's adjective and the country its values name ("english" law is England's)."""
UNIT_WORDS: dict[str, str] = dict(table("comparisons")["unit_words"])
"""Units said in words, as the symbols a datasheet's unit field holds (compared without case: "mv" is "mV")."""

NEGATIONS = re.compile(
    r"(?:\b(?:no|not|without|lack(?:s|ing)?|missing|excluding|exclude|absent|neither|nor|never|other than|except|"
    r"omit(?:s|ted|ting)?|leave out|leaves out|left out|fail(?:s|ed|ing)? to|"
    r"(?:do|does|did|is|are|has|have)n['’]?t)\b|\bw/o(?!\w))",
    re.IGNORECASE,
)
