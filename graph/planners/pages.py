"""What passages and page titles say, as the rule planner reads them: the pages a question names (in a collection of
pages about one thing each, such as Wikipedia paragraphs, a page's title is its subject)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from english.names import Name
from english.words import occurs
from graph.schemas import Evidence
from tools.envelope import PassageHit

NEAR_CHARS = 80
"""How far around a name in a passage the question's own words count as pointing at it."""


def around(text: str, name: Name) -> str:
    """The words of `text` near where it mentions `name`."""
    start, end = name.span
    return text[max(0, start - NEAR_CHARS) : end + NEAR_CHARS]


def page_title(title: str) -> str:
    """A title without its disambiguation ("Kiss and Tell (1945 film)" -> "Kiss and Tell")."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def passage_hits(evidence: list[Evidence]) -> dict[str, PassageHit]:
    """A passage hit of every document the evidence found passages of."""
    return {h.doc_id: h for e in evidence for h in e.envelope.passages()}


def page_titles(hits: dict[str, PassageHit]) -> dict[str, str]:
    """The page title of each document."""
    return {doc_id: page_title(h.metadata.title or "") for doc_id, h in hits.items()}


def names_page(text: str, page: str) -> bool:
    """`text` writes the page's title as the title is written (three letters or more, whole words, same case): a
    question about working from home does not name the page of the song "Home"."""
    return len(page) > 2 and occurs(text, page)


def named_pages(question: str, pages: dict[str, str]) -> dict[str, str]:
    """The pages whose title the question names."""
    return {doc_id: page for doc_id, page in pages.items() if names_page(question, page)}


def linked_pages(question: str, evidence: list[Evidence], pages: dict[str, str]) -> dict[str, str]:
    """Why each page is relevant by its title alone: it is the page of something the question names, or a passage of
    such a page names it (the second hop). In a collection of pages about one thing each, that is relevance even
    when the page shares no word with the question ("the actress who plays Bobbi Bacha": Bobbi Bacha's page names
    Sela Ward)."""
    named = named_pages(question, pages)
    naming = {h.snippet: named[h.doc_id] for e in evidence for h in e.envelope.passages() if h.doc_id in named}
    why = {doc_id: f"the page of {page!r}, which the question names" for doc_id, page in named.items()}
    for doc_id, page in pages.items():
        by = (
            next((owner for snippet, owner in naming.items() if names_page(snippet, page)), None)
            if doc_id not in why
            else None
        )
        if by:
            why[doc_id] = f"named on the page of {by!r}"
    return why


@dataclass(frozen=True)
class Lead:
    """A name a passage mentions that no search has found, and how strongly the question's words point at it."""

    name: str
    page: str
    bucket: str
    pointed: float
