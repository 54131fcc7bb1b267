"""The `text` finder: a value the document writes after the field's name or one of its aliases, as a form or a
memo does ("Cuisine: Thai", "**Governing law:** Delaware", "Total due - RM 12.30").

Only a name at the start of a line (after a bullet, a number or Markdown emphasis) followed by ':' or a dash counts:
a field's name in the middle of a sentence ("the total is subject to ...") says nothing about its value. The first
lines that give a value of the field's type are all returned (up to `MAX_FOUND`): a single field written twice with
two values is ambiguous, which the extractor sees and leaves empty.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.models import FieldSpec
from retrievers.extraction.found import Found
from retrievers.extraction.typed_value import typed

MAX_FOUND = 20
LABEL_REACH = 500
"""How much of a line is read: a label opens it, and its value is what follows up to the line's end, or, on a longer
line (a label, then prose: "Notice to: Acme Corp., 1 Main St. All notices shall ..."), up to the end of its first
sentence. A hostile one-line file is read no further than this."""
_SENTENCE_END = re.compile(r";(?=\s|$)|\.(?=\s+[A-Z(\"“]|$)")
"""A semicolon, or a full stop before the next sentence's capital: the dots of "Acme Corp., 1 Main St. of Ohio" end
nothing."""
_LEAD = r"^[ \t>*#\-•]*(?:\d+[.)]\s+)?[*_]*"
_SEPARATOR = r"[*_]*\s*(?::|–|—|-|=)\s*[*_]*\s*"


def names(spec: FieldSpec) -> list[str]:
    """The words a document may label the field with: its name in words ("prep_minutes" -> "prep minutes", "prep")
    and its aliases, longest first so that "notice period" is tried before "notice"."""
    words = spec.name.replace("_", " ")
    said = {words, *spec.aliases}
    if time_word := re.fullmatch(r"(.+) (?:minutes|hours|days|weeks|months|years)", words):
        said.add(time_word.group(1))
    return sorted(said, key=len, reverse=True)


@lru_cache(maxsize=512)
def _line_pattern(labels: tuple[str, ...]) -> re.Pattern:
    alternatives = "|".join(r"\s+".join(map(re.escape, label.split())) for label in labels)
    return re.compile(rf"{_LEAD}(?:{alternatives}){_SEPARATOR}(?P<value>\S.*)$", re.IGNORECASE | re.MULTILINE)


def find_labelled(body: str, spec: FieldSpec) -> list[Found]:
    """The values of `spec` that `body` writes on labelled lines, each with its line as the source."""
    pattern = _line_pattern(tuple(names(spec)))
    found: list[Found] = []
    start = 0
    for line in body.splitlines(keepends=True):
        end = start + len(line)
        text = line.rstrip("\r\n")
        if (said := _labelled(text, pattern)) is not None and (value := typed(said[0], spec)) is not None:
            found.append(Found(value, start, start + said[1]))
            if len(found) == MAX_FOUND:
                break
        start = end
    return found


def _labelled(text: str, pattern: re.Pattern) -> tuple[str, int] | None:
    """(the value a labelled line gives, where its source ends in the line), or None: the rest of a short line;
    of a long one, the rest of its first sentence, ended within `LABEL_REACH` (a label before a page of prose
    with no sentence end gives nothing)."""
    match = pattern.match(text[:LABEL_REACH])
    if match is None:
        return None
    if len(text) <= LABEL_REACH:
        return match.group("value"), len(text)
    ended = _SENTENCE_END.search(text, match.start("value"), LABEL_REACH)
    if ended is None:
        return None
    return text[match.start("value") : ended.start()], ended.end()
