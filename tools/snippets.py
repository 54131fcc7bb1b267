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
_WORD = re.compile(r"\w+")
ELLIPSIS = "…"


def strip_markup(text: str) -> str:
    """Text without HTML tags, scripts, styles or entities; line breaks kept."""
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))


def clean_text(text: str) -> str:
    """Text without markup, all whitespace collapsed to single spaces (for snippets)."""
    return _SPACE.sub(" ", strip_markup(text)).strip()


def _anchor(text: str, query: str) -> int:
    """Offset of the first query word (or five-letter prefix) in `text`, or 0."""
    lowered = text.lower()
    words = sorted({w for w in _WORD.findall(query.lower()) if len(w) >= 3}, key=len, reverse=True)
    positions = [
        m.start()
        for w in words
        for m in [re.search(rf"\b{re.escape(w)}", lowered) or re.search(rf"\b{re.escape(w[:5])}", lowered)]
        if m
    ]
    return min(positions) if positions else 0


def snippet(text: str, query: str, context_chars: int) -> str:
    """About `context_chars` characters of `text` around the first match of `query`, cut at word boundaries."""
    clean = clean_text(text)
    if len(clean) <= context_chars:
        return clean
    start = max(0, _anchor(clean, query) - context_chars // 3)
    end = min(len(clean), start + context_chars)
    start = max(0, end - context_chars)
    if start > 0:
        start = clean.find(" ", start) + 1 or start
    if end < len(clean):
        end = clean.rfind(" ", start, end) if clean.rfind(" ", start, end) > start else end
    return (ELLIPSIS if start > 0 else "") + clean[start:end].strip() + (ELLIPSIS if end < len(clean) else "")
