"""The `ask_*` recorders: each computes one item's gold from the labels, checks what the labels must confirm, and
appends the item to `ITEMS`, the one list of the set's questions (in the order they are asked, which numbers them).

Rules the gold follows (the same for every question):
- A count is a number of distinct documents: a document counts once when at least one of its annotation rows
  matches, however many rows it has.
- Sums and averages are over documents: each matching document contributes its one `properties` value of the field
  (receipt `total`, invoice `amount`, NDA `term_days`); a document without that value is left out (not counted as
  0). An average over a list-valued field is asked only where every matching document holds exactly one value
  (asserted by `ask_label_mean`). A sum over line items adds the `line_item` rows of the named invoice.
- A numeric answer (sum, average, largest or smallest value) is kind "sum" and graded on the value; a superlative
  whose answer is a document is kind "list" with that one document; a value read off one document is "lookup",
  and only values that print the same however they are formatted (strings, or amounts with two non-zero
  decimals) are used as lookups.
- Relative dates ("already expired", "next 12 months", "older than five years") are computed against the day the
  script runs; `__main__` prints how long each such gold stays unchanged, and warns below 30 days.
- Lists with more than 25 expected documents carry `"context": {"max_hits": 1000}` so that they are scored as lists
  and not stopped by the default overload cut-off; overload clarify items set a small `max_hits` on purpose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from statistics import mean
from typing import Any

from evals.natural_questions.corpus import CORPUS, Doc, in_bucket
from evals.natural_questions.labels import num

BIG_LIST = 25
"""Lists expecting more documents than this are asked with a large max_hits (see the module docstring)."""


@dataclass
class Item:
    kind: str
    question: str
    expected: dict[str, Any]
    buckets: list[str]
    sources: set[str]
    """Datasets whose documents decide the gold (for the report; not written)."""
    context: dict[str, Any] | None = None
    relative: Callable[[date], Any] | None = None
    """For relative-date items: the expected value as a function of today's date (to report its stability)."""
    turns: list[str] | None = None
    """For follow-ups: every turn of the conversation, the last one being `question` (the one scored)."""


ITEMS: list[Item] = []


def _sources(docs: Iterable[Doc]) -> set[str]:
    return {d.dataset for d in docs}


def matching(bucket: str, test: Callable[[Doc], bool]) -> list[Doc]:
    return sorted((d for d in in_bucket(bucket) if test(d)), key=lambda d: d.doc_id)


def ask_list(question: str, bucket: str, test: Callable[[Doc], bool], *, expect_size: int | None = None) -> None:
    docs = matching(bucket, test)
    if not docs:
        raise SystemExit(f"list question with no expected documents (make it a clarify item): {question}")
    if expect_size is not None and len(docs) != expect_size:
        raise SystemExit(f"{question}: expected {expect_size} documents, the labels give {len(docs)}")
    context = {"max_hits": 1000} if len(docs) > BIG_LIST else None
    ITEMS.append(Item("list", question, {"doc_ids": [d.doc_id for d in docs]}, [bucket], _sources(docs), context))


def ask_extreme(question: str, bucket: str, test: Callable[[Doc], bool], key: Callable[[Doc], Any], *, high: bool):
    """A superlative whose answer is a document: the one document holding the extreme (it must be unique)."""
    docs = [d for d in matching(bucket, test) if key(d) is not None]
    best = (max if high else min)(key(d) for d in docs)
    winners = [d for d in docs if key(d) == best]
    if len(winners) != 1:
        raise SystemExit(f"{question}: {len(winners)} documents share the extreme {best}; not gradable")
    ITEMS.append(Item("list", question, {"doc_ids": [winners[0].doc_id]}, [bucket], _sources(docs)))


def ask_count(question: str, bucket: str, test: Callable[[Doc], bool]) -> None:
    docs = matching(bucket, test)
    ITEMS.append(Item("count", question, {"value": len(docs)}, [bucket], _sources(docs)))


def _values(bucket: str, test: Callable[[Doc], bool], field: str) -> tuple[list[float], list[Doc]]:
    docs = [d for d in matching(bucket, test) if num(d, field) is not None]
    if not docs:
        raise SystemExit(f"no {field} values for an aggregate question in {bucket}")
    return [num(d, field) for d in docs], docs


def ask_sum(question: str, bucket: str, test: Callable[[Doc], bool], field: str) -> None:
    values, docs = _values(bucket, test, field)
    ITEMS.append(Item("sum", question, {"value": round(sum(values), 2)}, [bucket], _sources(docs)))


def ask_mean(question: str, bucket: str, test: Callable[[Doc], bool], field: str) -> None:
    values, docs = _values(bucket, test, field)
    ITEMS.append(Item("sum", question, {"value": round(mean(values), 2)}, [bucket], _sources(docs)))


def ask_max(question: str, bucket: str, test: Callable[[Doc], bool], field: str, *, high: bool = True) -> None:
    values, docs = _values(bucket, test, field)
    ITEMS.append(Item("sum", question, {"value": (max if high else min)(values)}, [bucket], _sources(docs)))


def ask_lookup(question: str, bucket: str, docs: list[Doc], answer: str, field: str | None = None) -> None:
    """A value read off `docs`: with `field`, the hand-written answer must appear in that field's label of every one
    of them (case and spacing ignored, list values read as their text)."""
    if not docs:
        raise SystemExit(f"{question}: a lookup needs the documents it reads")
    for doc in docs:
        held = doc.props.get(field) if field else None
        held_text = " ".join(held) if isinstance(held, list) else str(held)
        expect(
            field is None or " ".join(answer.lower().split()) in " ".join(held_text.lower().split()),
            f"{doc.doc_id}.{field} = {held!r} does not hold {answer!r}",
        )
    ITEMS.append(Item("lookup", question, {"answer": answer}, [bucket], _sources(docs)))


def ask_grouping(question: str, bucket: str, groups: Counter, winner: str, answer: str, docs: list[Doc]) -> None:
    """A grouping question answered by the group at the top: `winner` must lead `groups` with no tie, and the
    expected `answer` is (part of) its name."""
    expect(top(groups) == winner, f"{question}: the top group is {groups.most_common(2)}, not {winner!r}")
    expect(answer.lower() in winner.lower(), f"{answer!r} is not part of {winner!r}")
    ITEMS.append(Item("lookup", question, {"answer": answer}, [bucket], _sources(docs)))


def ask_label_mean(question: str, bucket: str, test: Callable[[Doc], bool], field: str) -> None:
    """The average of a list-valued field, asked only where every matching document holds exactly one value."""
    docs = [d for d in matching(bucket, test) if d.props.get(field)]
    expect(all(len(d.props[field]) == 1 for d in docs), f"{question}: some document holds several {field} values")
    value = round(mean(d.props[field][0] for d in docs), 2)
    ITEMS.append(Item("sum", question, {"value": value}, [bucket], _sources(docs)))


def ask_qa(question: str, bucket: str, doc_ids: Iterable[str]) -> None:
    ids = sorted(set(doc_ids))
    missing = [i for i in ids if i not in CORPUS]
    if missing:
        raise SystemExit(f"{question}: relevant documents not in the corpus: {missing}")
    ITEMS.append(Item("qa", question, {"doc_ids": ids}, [bucket], _sources(CORPUS[i] for i in ids)))


def ask_nothing(question: str, buckets: list[str], tests: dict[str, Callable[[Doc], bool]]) -> None:
    """Should be answered with a no_low clarification: the labels hold no match (asserted)."""
    found = [d.doc_id for b, t in tests.items() for d in matching(b, t)]
    if found:
        raise SystemExit(f"{question}: meant to match nothing, matches {found[:5]}")
    sources = {d.dataset for b in buckets for d in in_bucket(b)}
    ITEMS.append(Item("clarify", question, {"clarify": "no_low"}, buckets, sources))


def ask_too_many(question: str, bucket: str, test: Callable[[Doc], bool], max_hits: int) -> None:
    """Should be answered with an overload clarification: far more matches than `max_hits` (asserted)."""
    docs = matching(bucket, test)
    if len(docs) <= 2 * max_hits:
        raise SystemExit(f"{question}: {len(docs)} matches is not far more than max_hits={max_hits}")
    ITEMS.append(
        Item("clarify", question, {"clarify": "overload"}, [bucket], _sources(docs), context={"max_hits": max_hits})
    )


def ask_relative(kind: str, question: str, bucket: str, gold: Callable[[date], list[Doc]]) -> None:
    """A question with a relative date: gold computed for today, and its stability reported."""
    docs = gold(date.today())
    if kind == "list":
        expected: dict[str, Any] = {"doc_ids": sorted(d.doc_id for d in docs)}
        context = {"max_hits": 1000} if len(docs) > BIG_LIST else None
    elif kind == "count":
        expected, context = {"value": len(docs)}, None
    else:
        raise ValueError(kind)
    ids_today = sorted(d.doc_id for d in docs)
    ITEMS.append(
        Item(
            kind,
            question,
            expected,
            [bucket],
            _sources(docs) or _sources(in_bucket(bucket)),
            context,
            relative=lambda day: sorted(d.doc_id for d in gold(day)) == ids_today,
        )
    )


def ask_follow_up(
    turns: tuple[str, str],
    ask: Callable[..., None],
    bucket: str,
    first: Callable[[Doc], bool],
    refine: Callable[[Doc], bool],
    *args: Any,
    swap: bool = False,
    **kwargs: Any,
) -> None:
    """A two-turn conversation on one thread: the first turn asks for the documents of `bucket` that pass `first`,
    the second narrows that result set with `refine`. The gold is the second turn's, computed by `ask` (one of the
    helpers above: ask_list, ask_count, ask_sum, ask_extreme) over the first turn's set refined, that is the
    documents passing both. With `swap` the second turn replaces the first's filter instead ("invoices in euros",
    then "and in dollars?"): the gold is the documents of the first turn's scope, `bucket`, that pass `refine`."""
    opening, follow_up = turns
    first_docs = matching(bucket, first)
    test = refine if swap else (lambda d: first(d) and refine(d))
    last_docs = matching(bucket, test)
    if not first_docs or not last_docs:
        raise SystemExit(
            f"{turns}: {len(first_docs)} documents after the first turn, {len(last_docs)} after the second"
        )
    if not swap and not set(map(id, last_docs)) <= set(map(id, first_docs)):
        raise SystemExit(f"{turns}: the follow-up's documents are not a subset of the first turn's")
    count = len(ITEMS)
    ask(follow_up, bucket, test, *args, **kwargs)
    expect(len(ITEMS) == count + 1, f"{turns}: {ask.__name__} did not add one item")
    item = ITEMS[-1]
    item.turns = [opening, follow_up]
    item.sources |= _sources(first_docs)
    if len(first_docs) > BIG_LIST:  # the context holds for both turns: the first must list its set, not overload
        item.context = {**(item.context or {}), "max_hits": 1000}


def top(counter: Counter) -> str:
    """The most common key, refusing a tie (a grouping question with a tie at the top has no single answer)."""
    (first, n1), (_, n2) = counter.most_common(2)
    if n1 == n2:
        raise SystemExit(f"grouping tie at the top: {counter.most_common(3)}")
    return first


def expect(condition: bool, what: str) -> None:
    """A hand-written answer checked against the labels."""
    if not condition:
        raise SystemExit(f"the labels disagree with a hand-written answer: {what}")
