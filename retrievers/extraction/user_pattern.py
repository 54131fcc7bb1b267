"""The `pattern` finder: a user's regular expression for a field ("Ref(?:erence)? no\\.?\\s*(?P<value>[A-Z]{3}-\\d+)").

Run with the `regex` module's timeout, because a user's pattern can backtrack for ever on a hostile document; a
pattern that runs out of time finds nothing in that document, and the ingest goes on.
"""

from __future__ import annotations

import regex

from core.models import FieldSpec
from retrievers.extraction.found import Found
from retrievers.extraction.typed_value import typed

TIMEOUT_S = 0.5
"""Seconds a pattern may search one document: far above what a sane pattern needs on a 300-page contract."""
MAX_MATCHES = 100


def find_by_pattern(body: str, spec: FieldSpec) -> list[Found]:
    """The values `spec.pattern` matches (every one: a single field matched with two values is ambiguous, which
    the extractor sees): its group `value` when it has one, else the whole match."""
    compiled = regex.compile(spec.pattern, regex.IGNORECASE | regex.MULTILINE)
    group = "value" if "value" in compiled.groupindex else 0
    found: list[Found] = []
    try:
        for match in compiled.finditer(body, timeout=TIMEOUT_S):
            value = typed(match.group(group), spec)
            if value is not None:
                found.append(Found(value, *_line_around(body, *match.span())))
                if len(found) == MAX_MATCHES:
                    break
    except TimeoutError:
        return []
    return found


def _line_around(body: str, start: int, end: int) -> tuple[int, int]:
    """The match widened to its whole line(s), which is what a reader wants to see cited."""
    line_end = body.find("\n", end)
    return body.rfind("\n", 0, start) + 1, len(body) if line_end == -1 else line_end
