"""The sentence around a match, as every extraction rule reads and cites it, and the answer's sentences."""

from __future__ import annotations

import time

from english.sentences import CLAUSE_REACH, SENTENCE_REACH, sentence_span, split_sentences

CONTRACT = (
    "EXCLUSIVE DISTRIBUTOR AGREEMENT\n\n"
    "This Agreement is made by Acme Inc. and Beta LLC under Section 2.1 of the Master Agreement. "
    "Beta shall not compete with Acme; Acme may audit Beta. Done."
)


def span_of(text: str, words: str, **options) -> str:
    at = text.index(words)
    start, end = sentence_span(text, at, at + len(words), **options)
    return text[start:end]


def test_a_sentence_keeps_its_abbreviations_and_section_numbers():
    assert span_of(CONTRACT, "Beta LLC") == (
        "This Agreement is made by Acme Inc. and Beta LLC under Section 2.1 of the Master Agreement."
    )


def test_a_blank_line_ends_a_heading():
    assert span_of(CONTRACT, "DISTRIBUTOR") == "EXCLUSIVE DISTRIBUTOR AGREEMENT"


def test_a_clause_ends_at_a_semicolon_and_a_sentence_does_not():
    assert span_of(CONTRACT, "not compete") == "Beta shall not compete with Acme; Acme may audit Beta."
    assert span_of(CONTRACT, "not compete", clauses=True) == "Beta shall not compete with Acme;"


def test_a_full_stop_between_a_dates_day_and_year_does_not_end_the_sentence():
    text = "This Agreement shall be in effect until March 18. 2021, unless sooner terminated. Next one."
    assert span_of(text, "March") == "This Agreement shall be in effect until March 18. 2021, unless sooner terminated."


def test_a_huge_line_gives_a_bounded_span_quickly():
    text = "word " * 2_000_000
    started = time.perf_counter()
    start, end = sentence_span(text, 5_000_000, 5_000_004)
    clause = sentence_span(text, 5_000_000, 5_000_004, clauses=True)
    assert time.perf_counter() - started < 5
    assert end - start <= 2 * SENTENCE_REACH + 4
    assert clause[1] - clause[0] <= 2 * CLAUSE_REACH + 4


def test_odd_text_never_raises():
    assert sentence_span("", 0, 0) == (0, 0)
    nul = "\x00" * 100
    start, end = sentence_span(nul, 50, 51)
    assert 0 <= start <= 50 < end <= 100


def test_answer_text_is_split_by_paragraph_and_sentence():
    assert split_sentences("Title\n\nAcme Inc. won the bid. It starts in May.") == [
        "Title",
        "Acme Inc. won the bid.",
        "It starts in May.",
    ]
