"""Snippets a model can read: markup removed, centred on where the query's words occur.

EDGAR filings and web text carry HTML; a snippet never passes it on. Matching is on lowercased words and
their first five letters, a cheap stand-in for the stemmed match the keyword engine made (deliver/delivery).
"""

from __future__ import annotations

import html
import re

_HIDDEN = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^<>]{0,2000}>")
_SPACE = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v]*\n\s*")
PARAGRAPH_BREAK = "\n\n"
_WORD = re.compile(r"\w+")
ELLIPSIS = "…"
_QUESTION_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "how",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "with",
        "does",
        "did",
        "was",
        "were",
        "are",
        "can",
        "could",
        "should",
        "would",
        "from",
        "that",
        "this",
        "these",
        "those",
        "have",
        "has",
        "had",
        "our",
        "your",
        "you",
        "they",
        "their",
        "there",
        "into",
        "about",
        "any",
        "all",
    ]
)
"""Words a question is built of rather than about: a window is not placed for holding "when" or "the"."""


def strip_markup(text: str) -> str:
    """Text without HTML tags, scripts, styles or entities; line breaks kept."""
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))


def clean_text(text: str) -> str:
    """Text without markup, whitespace collapsed to single spaces except a paragraph break (a blank line), kept as
    one: it is where a heading or a title ends, which a reader of the snippet (and a sentence splitter) needs."""
    paragraphs = _PARAGRAPH_BREAK.split(strip_markup(text))
    return PARAGRAPH_BREAK.join(p for p in (_SPACE.sub(" ", p).strip() for p in paragraphs) if p)


def _anchor(text: str, query: str, context_chars: int) -> int:
    """The offset of the first match in the window of `context_chars` that holds the most of the query's distinct
    words (or their five-letter prefixes; a word counts by its length, as long words say more than "the"), the
    earliest such window on a tie; 0 when no word matches. The first match alone would centre a memo's snippet on
    its title, which names the topic, rather than on the paragraph that answers."""
    lowered = text.lower()
    words = {w for w in _WORD.findall(query.lower()) if len(w) >= 3 and w not in _QUESTION_WORDS}
    matches = sorted((m.start(), w) for w in words for m in re.finditer(rf"\b{re.escape(w[:5])}", lowered))
    best, held = 0, 0
    for start, _ in matches:
        inside = sum(len(w) for w in {w for at, w in matches if start <= at < start + context_chars * 2 // 3})
        if inside > held:
            best, held = start, inside
    return best


def snippet(text: str, query: str, context_chars: int) -> str:
    """About `context_chars` characters of `text` around where `query`'s words gather, cut at word boundaries."""
    clean = clean_text(text)
    if len(clean) <= context_chars:
        return clean
    start = max(0, _anchor(clean, query, context_chars) - context_chars // 3)
    end = min(len(clean), start + context_chars)
    start = max(0, end - context_chars)
    if start > 0:
        start = clean.find(" ", start) + 1 or start
    if end < len(clean):
        end = clean.rfind(" ", start, end) if clean.rfind(" ", start, end) > start else end
    return (ELLIPSIS if start > 0 else "") + clean[start:end].strip() + (ELLIPSIS if end < len(clean) else "")
