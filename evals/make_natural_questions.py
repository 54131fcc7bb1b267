"""The natural question set, `evals/questions/natural.jsonl`: questions phrased the way people type them.

Every phrasing here was written by hand, blind to the planner: without reading `graph/` (its rule decomposer and
word lists) or the project's other question sets and their generator, so that the set measures what a user gets,
not how well the rules match their own wording. Phrasings are short and informal on purpose: synonyms ("bill",
"shop", "NDA", "US dollars", "Indian rupees"), abbreviations, a few misspellings, currency names and symbols,
everyday company names ("Mr DIY"), grouping words, averages, superlatives, OR and negation, months and relative
dates, document ids, text questions ("what does ... say", "why ...") and questions that should be answered with a
clarification because nothing matches or far too much does.

Only the phrasings are hand-written. Every expected answer is computed here from the labels, loaded through the
project's own loaders (`retrievers.loaders`), which is exactly what `ragent ingest --dataset` indexes, over the
union of all seven corpora (the runner ingests them into one folder): a contracts question covers CUAD, Kleister-NDA
and the sample contracts, a receipts question SROIE and the sample receipts, an invoices question invoice2data and
the sample invoices. The qa items take their relevant documents from the datasets' qrels (SciFact train, HotpotQA
dev: the splits meant for tuning) or, for the sample corpus and the contract clauses, from the labels.

Rules the gold follows (the same for every question):
- A count is a number of distinct documents: a document counts once when at least one of its annotation rows
  matches, however many rows it has.
- A comparison on a list-valued field (CUAD's `renewal_term_days`, `notice_period_days`, `governing_law`,
  `parties`) matches a document when any one of its values satisfies it.
- Sums and averages are over documents: each matching document contributes its one `properties` value of the field
  (receipt `total`, invoice `amount`, NDA `term_days`); a document without that value is left out (not counted as
  0). An average over a list-valued field is asked only where every matching document holds exactly one value
  (asserted below). A sum over line items adds the `line_item` rows of the named invoice.
- Duplicates are separate documents: the sample corpus's sample-invoice-008 restates sample-invoice-003 (same
  invoice number) and both are indexed, so both count in totals over US-dollar or Harbor Point invoices.
- The governing law of a contract is its `governing_law`, in CUAD, Kleister-NDA (whose `jurisdiction` label the
  loader stores under that name) and the sample alike. A value names a state when the state's name appears in it
  as words: "Delaware, Illinois" (one CUAD label left unsplit) is under Delaware law and under Illinois law;
  "England and Wales, UK" is English law.
- An NDA is a Kleister-NDA document (the whole dataset is non-disclosure agreements, labelled or not) or a contract
  whose `contract_type` says Non-Disclosure. Contract types are matched as a user means them: "distribution
  agreements" are CUAD's "Distributor Agreement" and the sample's "Distribution Agreement"; "license agreements"
  include the sample's "Software License Agreement"; "hosting agreements" include "Hosting Services Agreement";
  "maintenance agreements" include "Facilities Maintenance Agreement".
- A clause "without X" (negation) is a contract whose flag X is labelled false; contracts that carry no label for X
  (Kleister NDAs, and the sample contracts for all but six clauses) are unknown, not "without".
- A shop named in everyday spelling is every `company` label that contains it once case, spaces and punctuation are
  dropped: "Mr DIY" is MR. D.I.Y. (M) SDN BHD, MR. D.I.Y. (KUCHAI) SDN BHD, MR D.I.Y. (JOHOR) SDN BHD, ...
- Receipts carry no currency field: SROIE's are Malaysian ringgit, the sample's US dollars. Totals across both are
  never asked; "RM" appears only where the shop already restricts the question to SROIE.
- A numeric answer (sum, average, largest or smallest value) is kind "sum" and graded on the value; a superlative
  whose answer is a document is kind "list" with that one document; a value read off one document is "lookup",
  and only values that print the same however they are formatted (strings, or amounts with two non-zero
  decimals) are used as lookups.
- Relative dates ("already expired", "next 12 months", "older than five years") are computed against the day the
  script runs; the script prints how long each such gold stays unchanged, and warns below 30 days.
- Lists with more than 25 expected documents carry `"context": {"max_hits": 1000}` so that they are scored as lists
  and not stopped by the default overload cut-off; overload clarify items set a small `max_hits` on purpose.
- Follow-ups are conversations of two turns on one thread (`"turns": [first, second]`, `question` being the second):
  the second turn refines the first's result set ("which of those ...", "only the Delaware ones", "how many of them
  ...", "and in 2018?"), and only the second is scored. Its gold is computed by the same helpers over the first
  turn's set refined (the documents passing both turns' conditions); the one other shape is a swap, "invoices in
  euros" then "and in dollars?", whose gold is the first turn's scope (all invoices) under the new condition. The
  item's context holds for both turns, so a follow-up whose first turn lists more than 25 documents carries
  `max_hits` 1000 like any big list.

Run: `.venv/bin/python -m evals.make_natural_questions` (reads ../shared/data; writes the JSONL and prints counts).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from statistics import mean
from typing import Any

from retrievers.loaders import DATASETS, dataset_path

OUT = Path(__file__).resolve().parent / "questions" / "natural.jsonl"
ALL_DATASETS = ["cuad", "hotpotqa", "invoices", "kleister_nda", "sample", "scifact", "sroie"]
BIG_LIST = 25
"""Lists expecting more documents than this are asked with a large max_hits (see the module docstring)."""
STABLE_WARN_DAYS = 30


# --------------------------------------------------------------------------------------------------------------
# The corpus, as the loaders produce it


@dataclass
class Doc:
    dataset: str
    doc_id: str
    bucket: str
    title: str
    body: str
    props: dict[str, Any]
    items: list[dict[str, Any]]
    """Rows of other kinds: invoice line items, datasheet parameters."""


def load_corpus() -> dict[str, Doc]:
    corpus: dict[str, Doc] = {}
    for name in ALL_DATASETS:
        path = None if name == "sample" else dataset_path(name)
        for source in DATASETS[name].load(path):
            document = source.document
            props: dict[str, Any] = {}
            items = []
            for row in source.annotations:
                if row.kind == "properties":
                    props.update(row.row)
                else:
                    items.append(dict(row.row))
            if document.doc_id in corpus:
                raise SystemExit(f"doc_id {document.doc_id} appears twice; gold over the union would be ambiguous")
            corpus[document.doc_id] = Doc(
                name, document.doc_id, document.bucket, document.title, document.body, props, items
            )
    return corpus


def read_qrels(dataset: str, split: str) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = defaultdict(set)
    with (dataset_path(dataset) / "qrels" / f"{split}.tsv").open(encoding="utf-8") as lines:
        for record in csv.DictReader(lines, delimiter="\t"):
            if int(record["score"]) > 0:
                qrels[record["query-id"]].add(record["corpus-id"])
    return qrels


def read_queries(dataset: str) -> dict[str, str]:
    with (dataset_path(dataset) / "queries.jsonl").open(encoding="utf-8") as lines:
        return {(r := json.loads(line))["_id"]: r["text"] for line in lines if line.strip()}


CORPUS: dict[str, Doc] = {}
"""Every document of the seven corpora by doc_id, filled by `main`."""


# --------------------------------------------------------------------------------------------------------------
# Predicates over the labels


def in_bucket(bucket: str) -> list[Doc]:
    return [d for d in CORPUS.values() if d.bucket == bucket]


def squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def company(doc: Doc, *names: str) -> bool:
    """The receipt's shop contains one of `names`, case, spaces and punctuation ignored."""
    label = squash(doc.props.get("company", ""))
    return any(squash(name) in label for name in names)


def party(doc: Doc, name: str) -> bool:
    """One of the parties is `name`, as a whole word (so "Intel" is not "Intellisense")."""
    return any(re.search(rf"\b{re.escape(name)}\b", p, re.IGNORECASE) for p in doc.props.get("parties", []))


def laws(doc: Doc) -> list[str]:
    return list(doc.props.get("governing_law") or [])


def under(doc: Doc, *places: str) -> bool:
    """Governed by the law of one of `places` (a value naming the place as words)."""
    return any(re.search(rf"\b{re.escape(p)}\b", law, re.IGNORECASE) for p in places for law in laws(doc))


def is_nda(doc: Doc) -> bool:
    return doc.dataset == "kleister_nda" or "non-disclosure" in doc.props.get("contract_type", "").lower()


CONTRACT_TYPES = {
    "license": {"License Agreement", "Software License Agreement"},
    "distribution": {"Distributor Agreement", "Distribution Agreement"},
    "hosting": {"Hosting Agreement", "Hosting Services Agreement"},
    "maintenance": {"Maintenance Agreement", "Facilities Maintenance Agreement"},
    "supply": {"Supply Agreement"},
    "reseller": {"Reseller Agreement"},
    "franchise": {"Franchise Agreement"},
    "consulting": {"Consulting Agreement"},
    "joint venture": {"Joint Venture Agreement"},
}


def of_type(doc: Doc, kind: str) -> bool:
    return doc.props.get("contract_type") in CONTRACT_TYPES[kind]


def flag(doc: Doc, name: str, value: bool = True) -> bool:
    """The clause flag is labelled `value` (a missing label is neither true nor false)."""
    return doc.props.get(name) is value


def any_value(doc: Doc, field: str, test: Callable[[Any], bool]) -> bool:
    value = doc.props.get(field)
    values = value if isinstance(value, list) else ([] if value is None else [value])
    return any(test(v) for v in values)


def on(doc: Doc, field: str, prefix: str) -> bool:
    """The date field starts with `prefix` ("2018", "2018-03")."""
    return str(doc.props.get(field, "")).startswith(prefix)


def num(doc: Doc, field: str) -> float | None:
    value = doc.props.get(field)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def iso(value: date) -> str:
    return value.isoformat()


# --------------------------------------------------------------------------------------------------------------
# The questions


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


def years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


# ---- vocabulary shared by the questions ----------------------------------------------------------------------

R, INV, K, DS, CERT, G = "receipts", "invoices", "contracts", "datasheets", "certificates", "generic"
MR_DIY = "MR D.I.Y"  # squashed to "mrdiy": every MR. D.I.Y. / MR D.I.Y / MR. D. I. Y. spelling


def total(doc: Doc) -> float | None:
    return num(doc, "total")


def currency(doc: Doc, *codes: str) -> bool:
    return doc.props.get("currency") in codes


def renewal(doc: Doc, test: Callable[[Any], bool]) -> bool:
    return any_value(doc, "renewal_term_days", test)


def notice(doc: Doc, test: Callable[[Any], bool]) -> bool:
    return any_value(doc, "notice_period_days", test)


def label(doc_id: str, field: str) -> str:
    return str(CORPUS[doc_id].props[field])


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


# SciFact (qrels/train.tsv); the claim as written in queries.jsonl is in the comment, the question is ours.
SCIFACT_QA = [
    ("168", "does weight loss surgery lower colon cancer risk?"),  # Bariatric surgery reduces colorectal cancer.
    ("797", "do mitochondria matter much for energy production"),  # Mitochondria play a major role in energy ...
    # Taking 400mg of a-tocopheryl acetate in combination with vitamin C reduces the risk of prostate cancer.
    ("1141", "vitamin E plus vitamin C - does it cut prostate cancer risk?"),
    ("116", "are anthrax spores still deadly until the area is decontaminated?"),  # Anthrax spores remain deadly ...
    ("825", "what does the N348I mutation do to nevirapine resistance"),  # N348I mutations reduce resistance ...
    ("804", "can an antibody against N-cadherin slow tumour growth?"),  # Monoclonal antibody targeting of N-cadherin
    ("138", "is screening elderly people for poor eyesight actually useful?"),  # Asymptomatic visual impairment ...
    ("90", "where do adult tissue macrophages come from, yolk sac?"),  # Adult tissue-resident macrophages stem ...
    ("149", "does autophagy loss in the liver make insulin resistance worse"),  # Autophagy deficiency in the liver ...
]
# HotpotQA (qrels/dev.tsv); both gold paragraphs are expected.
HOTPOT_QA = [
    ("5a7bbb64554299042af8f7cc", "annie morton or terry richardson, who's older?"),  # Who is older, Annie Morton ...
    ("5ae383e15542992f92d822fb", "which came out later, apple dumpling gang or heavyweights"),
    # What was the name of the 1996 loose adaptation of William Shakespeare's "Romeo & Juliet" written by James Gunn?
    ("5ae37c765542992f92d822d4", "name of the romeo and juliet spoof james gunn wrote in 96?"),
    # Based on a True Story... is an album by which country music star, with the single My Eyes?
    ("5a818387554299260e20a291", "who's the country singer behind Based on a True Story... with My Eyes on it"),
    # hree Men on a Horse is a play by a playwright born in which year ?
    ("5ab659e355429954757d324e", "what year was the guy who wrote Three Men on a Horse born"),
    # Other than racing, what sport does the 1998 champion of the Toyota GRand Prix practice?
    ("5a8dd5f955429917b4a5bcc7", "the guy who won the 1998 toyota grand prix - what other sport does he do?"),
]


# ---- the questions, by bucket ---------------------------------------------------------------------------------


def receipt_questions() -> None:
    """SROIE and the sample receipts."""
    ask_count("How many receipts do we have from Mr DIY?", R, lambda d: company(d, MR_DIY))
    ask_count("how many recipts from gardenia", R, lambda d: company(d, "Gardenia"))
    ask_count("no. of receipts in 2017?", R, lambda d: on(d, "date", "2017"))
    ask_count("how many receipts are from march 2018", R, lambda d: on(d, "date", "2018-03"))
    ask_count("How many receipts came to more than 100?", R, lambda d: (total(d) or 0) > 100)
    ask_count(
        "99 speedmart receipts in 2017 - how many?", R, lambda d: company(d, "99 Speed Mart") and on(d, "date", "2017")
    )
    ask_count(
        "how many Popular bookstore receipts were under 10 ringgit",
        R,
        lambda d: company(d, "Popular Book") and (total(d) or 0) < 10,
    )
    ask_relative(
        "count",
        "How many receipts are older than five years?",
        R,
        lambda day: [d for d in in_bucket(R) if d.props.get("date") and d.props["date"] < iso(years_before(day, 5))],
    )

    ask_list("receipts from december 2018", R, lambda d: on(d, "date", "2018-12"))
    ask_list("show me the receipts from 2019", R, lambda d: on(d, "date", "2019"))
    ask_list(
        "Which Sanyu Stationery receipts were over RM 40?", R, lambda d: company(d, "Sanyu") and (total(d) or 0) > 40
    )
    ask_list("mr diy receipts above 100 ringgit", R, lambda d: company(d, MR_DIY) and (total(d) or 0) > 100)
    ask_list("receipts for more than RM 1,000", R, lambda d: (total(d) or 0) > 1000)
    ask_list("gardenia receipts from july 2017", R, lambda d: company(d, "Gardenia") and on(d, "date", "2017-07"))
    ask_list(
        "Popular or Sanyu receipts from Dec 2017",
        R,
        lambda d: company(d, "Popular Book", "Sanyu") and on(d, "date", "2017-12"),
    )
    ask_list("aik huat hardware receipts", R, lambda d: company(d, "Aik Huat Hardware"))
    ask_list("Domino's pizza receipts", R, lambda d: company(d, "Domino"))
    ask_list("receipts from Boston", R, lambda d: "boston" in d.props.get("address", "").lower())
    ask_extreme("biggest receipt?", R, lambda d: True, total, high=True)
    ask_extreme("which Mr DIY receipt was the most expensive", R, lambda d: company(d, MR_DIY), total, high=True)
    ask_extreme("largest gardenia bill", R, lambda d: company(d, "Gardenia"), total, high=True)

    ask_sum("How much did we spend at Mr DIY in total?", R, lambda d: company(d, MR_DIY), "total")
    ask_sum("total spent at Sanyu stationery", R, lambda d: company(d, "Sanyu"), "total")
    ask_sum(
        "how much did we spend at 99 Speed Mart in 2018?",
        R,
        lambda d: company(d, "99 Speed Mart") and on(d, "date", "2018"),
        "total",
    )
    ask_sum("what did the 2019 receipts add up to", R, lambda d: on(d, "date", "2019"), "total")
    ask_sum("sum of all Kedai Papan Yew Chuan receipts", R, lambda d: company(d, "Kedai Papan Yew Chuan"), "total")
    ask_sum("Gin Kee total spend?", R, lambda d: company(d, "Gin Kee"), "total")
    ask_mean("average receipt at mr diy", R, lambda d: company(d, MR_DIY), "total")
    ask_mean("what's the avg gardenia receipt", R, lambda d: company(d, "Gardenia"), "total")
    ask_mean("average total of receipts from december 2017", R, lambda d: on(d, "date", "2017-12"), "total")
    ask_max("how much was our biggest receipt", R, lambda d: True, "total")
    ask_max("smallest Sanyu receipt, how much?", R, lambda d: company(d, "Sanyu"), "total", high=False)
    ask_max("what's the most we spent in one go at popular book co", R, lambda d: company(d, "Popular Book"), "total")

    x51005361907, x00016469612 = [CORPUS["X51005361907"]], [CORPUS["X00016469612"]]
    ask_lookup("What was the total on receipt X51005361907?", R, x51005361907, "153.35", "total")
    address = label("X51005361907", "address")
    ask_lookup("Where is the shop that issued receipt X51005361907 located?", R, x51005361907, address)
    ask_lookup("which shop is receipt X00016469612 from?", R, x00016469612, label("X00016469612", "company"))
    ask_lookup("what did we pay at Sunrise Pharmacy?", R, [CORPUS["sample-receipt-004"]], "49.86", "total")

    receipts = in_bucket(R)
    by_shop = Counter(d.props["company"] for d in receipts)
    ask_grouping(
        "receipts per shop - which shop do we have the most receipts from?",
        R,
        by_shop,
        "GARDENIA BAKERIES (KL) SDN BHD",
        "GARDENIA BAKERIES",
        receipts,
    )
    spend_by_shop: Counter = Counter()
    for doc in receipts:
        spend_by_shop[doc.props["company"]] += total(doc) or 0
    ask_grouping(
        "which shop did we spend the most at?",
        R,
        spend_by_shop,
        "KAISON FURNISHING SDN BHD",
        "KAISON FURNISHING",
        receipts,
    )
    by_year = Counter(d.props["date"][:4] for d in receipts if d.props.get("date"))
    ask_grouping("breakdown of receipts by year: which year has the most?", R, by_year, "2018", "2018", receipts)

    ask_nothing(
        "Which Sanyu Stationery receipts came to more than RM 50?",
        [R],
        {R: lambda d: company(d, "Sanyu") and (total(d) or 0) > 50},
    )
    ask_nothing("starbucks receipts", [R], {R: lambda d: company(d, "Starbucks") or "starbucks" in d.body.lower()})
    ask_nothing("How much did we spend at KFC?", [R], {R: lambda d: company(d, "KFC") or "kfc" in d.body.lower()})
    ask_nothing("mr diy receipts from 2015", [R], {R: lambda d: company(d, MR_DIY) and on(d, "date", "2015")})
    ask_too_many("list all receipts", R, lambda d: True, 50)
    ask_too_many("receipts from 2018", R, lambda d: on(d, "date", "2018"), 100)


def invoice_questions() -> None:
    """invoice2data and the sample invoices."""
    ask_count("how many invoices do we have", INV, lambda d: True)
    ask_count("How many invoices are in euros?", INV, lambda d: currency(d, "EUR"))
    ask_count("number of invoices from 2014", INV, lambda d: on(d, "date", "2014"))
    ask_count("how many bills were in US dollars or pounds?", INV, lambda d: currency(d, "USD", "GBP"))

    ask_list("invoices in Indian rupees", INV, lambda d: currency(d, "INR"))
    ask_list("Which invoices are in euros or pounds?", INV, lambda d: currency(d, "EUR", "GBP"))
    ask_list("any invoices in £?", INV, lambda d: currency(d, "GBP"))
    ask_list("bills from coolblue", INV, lambda d: "coolblue" in d.props.get("issuer", "").lower())
    ask_list(
        "which invoices went to Harbor Point Foods?", INV, lambda d: d.props.get("customer") == "Harbor Point Foods Co."
    )
    ask_list("invoices dated march 2014", INV, lambda d: on(d, "date", "2014-03"))
    ask_list("$ invoices over 5000", INV, lambda d: currency(d, "USD") and (num(d, "amount") or 0) > 5000)
    ask_list(
        "invoices from Kestrel or Silverleaf",
        INV,
        lambda d: d.props.get("issuer", "").startswith(("Kestrel", "Silverleaf")),
    )
    ask_extreme(
        "which euro invoice is the largest?", INV, lambda d: currency(d, "EUR"), lambda d: num(d, "amount"), high=True
    )
    ask_extreme("cheapest dollar invoice", INV, lambda d: currency(d, "USD"), lambda d: num(d, "amount"), high=False)

    ask_sum("What do the dollar invoices add up to?", INV, lambda d: currency(d, "USD"), "amount")
    ask_sum("How much did we pay in Indian rupees in total?", INV, lambda d: currency(d, "INR"), "amount")
    ask_sum("total of the € invoices", INV, lambda d: currency(d, "EUR"), "amount")
    ask_sum(
        "How much was Harbor Point Foods billed altogether?",
        INV,
        lambda d: d.props.get("customer") == "Harbor Point Foods Co.",
        "amount",
    )
    ask_mean("average invoice amount in euros", INV, lambda d: currency(d, "EUR"), "amount")
    ask_mean("avg rupee invoice?", INV, lambda d: currency(d, "INR"), "amount")
    azure_lines = [row["subtotal"] for row in CORPUS["AzureInterior"].items if "subtotal" in row]
    azure_total = {"value": round(sum(azure_lines), 2)}
    ITEMS.append(Item("sum", "add up the line items on the Azure Interior bill", azure_total, [INV], {"invoices"}))

    ask_lookup(
        "What's the invoice number on the bill from Nimbus Hosting?",
        INV,
        [CORPUS["sample-invoice-005"]],
        "NH-000512",
        "invoice_number",
    )
    ask_lookup("what currency is the orlen invoice in", INV, [CORPUS["Orlen"]], "PLN", "currency")
    ask_lookup("how much was the AWS invoice", INV, [CORPUS["AmazonWebServices"]], "4.11", "amount")
    ask_lookup("when is KA-INV-10432 due?", INV, [CORPUS["sample-invoice-002"]], "2022-08-14", "date_due")
    ask_lookup("VAT number on the Free fibre invoice?", INV, [CORPUS["free_fiber"]], "FR60421938861", "vat")
    tp_88213 = matching(INV, lambda d: d.props.get("invoice_number") == "TP-88213")
    ask_lookup("who sent invoice TP-88213", INV, tp_88213, "Tamarack Packaging Inc.", "issuer")

    ask_nothing("invoices paid in swiss francs", [INV], {INV: lambda d: currency(d, "CHF")})
    ask_relative(
        "list",
        "any invoices from the last 12 months?",
        INV,
        lambda day: [d for d in in_bucket(INV) if d.props.get("date", "") >= iso(years_before(day, 1))],
    )
    if not ITEMS[-1].expected["doc_ids"]:  # nothing in the window: the honest answer is a no_low clarification
        ITEMS[-1].kind, ITEMS[-1].expected = "clarify", {"clarify": "no_low"}


def contract_questions() -> None:
    """CUAD, Kleister-NDA and the sample contracts."""
    ask_count("how many NDAs are there?", K, is_nda)
    ask_count("How many NDAs are under New York law?", K, lambda d: is_nda(d) and under(d, "New York"))
    ask_count("number of contracts goverened by California law", K, lambda d: under(d, "California"))
    ask_count("how many agreemnts are under delaware law", K, lambda d: under(d, "Delaware"))
    ask_count("How many contracts have a non-compete?", K, lambda d: flag(d, "non_compete"))
    ask_count(
        "how many contracts can be terminated for convenience", K, lambda d: flag(d, "termination_for_convenience")
    )
    ask_count("how many contracts renew for a year or longer?", K, lambda d: renewal(d, lambda v: v >= 365))
    ask_count(
        "contracts needing at least 90 days notice to stop renewal - how many?",
        K,
        lambda d: notice(d, lambda v: v >= 90),
    )
    ask_count("how many 2-year NDAs do we have", K, lambda d: is_nda(d) and d.props.get("term_days") == 730)
    ask_count(
        "NDAs lasting a year or longer, how many?", K, lambda d: is_nda(d) and (d.props.get("term_days") or 0) >= 365
    )
    ask_count("How many license agreements are there?", K, lambda d: of_type(d, "license"))
    ask_count("how many distribution agreements do we have", K, lambda d: of_type(d, "distribution"))
    ask_count(
        "contracts with a liability cap but no audit rights: how many?",
        K,
        lambda d: flag(d, "cap_on_liability") and flag(d, "audit_rights", False),
    )
    ask_count(
        "How many contracts don't have an anti-assignment clause?", K, lambda d: flag(d, "anti_assignment", False)
    )
    ask_count("how many contracts never expire", K, lambda d: flag(d, "perpetual"))
    ask_count("How many NDAs took effect in 2007?", K, lambda d: is_nda(d) and on(d, "effective_date", "2007"))
    ask_count("how many contracts expire in 2020", K, lambda d: on(d, "expiration_date", "2020"))
    ask_count("how many contracts have we got with Kestrel Analytics?", K, lambda d: party(d, "Kestrel Analytics"))
    ask_count("contracts under english law, how many", K, lambda d: under(d, "England"))
    ask_count("How many contracts have a most favoured nation clause?", K, lambda d: flag(d, "most_favored_nation"))

    ask_list("show me the NDAs we signed with Nike", K, lambda d: is_nda(d) and party(d, "Nike"), expect_size=7)
    ask_list("contracts with microsoft", K, lambda d: party(d, "Microsoft"), expect_size=4)
    ask_list("any agreements with Bank of America?", K, lambda d: party(d, "Bank of America"), expect_size=5)
    ask_list("Intel NDAs", K, lambda d: is_nda(d) and party(d, "Intel"), expect_size=3)
    ask_list("NDAs under Delaware law", K, lambda d: is_nda(d) and under(d, "Delaware"))
    ask_list("which contracts have a 30 day notice period?", K, lambda d: notice(d, lambda v: v == 30))
    ask_list(
        "which delaware contracts have audit rights", K, lambda d: under(d, "Delaware") and flag(d, "audit_rights")
    )
    ask_list("contracts with a notice period under 30 days", K, lambda d: notice(d, lambda v: v < 30))
    ask_list("NDAs that last less than a year", K, lambda d: is_nda(d) and (d.props.get("term_days") or 10**9) < 365)
    ask_list(
        "source code escrow contracts under NY law",
        K,
        lambda d: flag(d, "source_code_escrow") and under(d, "New York"),
    )
    ask_list(
        "distribution agreements without exclusivity",
        K,
        lambda d: of_type(d, "distribution") and flag(d, "exclusivity", False),
    )
    ask_list(
        "hosting agreements governed by California or New York law",
        K,
        lambda d: of_type(d, "hosting") and under(d, "California", "New York"),
    )
    ask_list("supply agreements signed in 2019", K, lambda d: of_type(d, "supply") and on(d, "agreement_date", "2019"))
    ask_list("which contracts expire in 2029?", K, lambda d: on(d, "expiration_date", "2029"))
    ask_list("Contracts under Israeli law", K, lambda d: under(d, "Israel"))
    ask_list("which contracts are governed by dutch law", K, lambda d: under(d, "Netherlands"))
    ask_list("license agreements that never expire", K, lambda d: of_type(d, "license") and flag(d, "perpetual"))
    ask_list("franchise agreemnts under texas law", K, lambda d: of_type(d, "franchise") and under(d, "Texas"))
    ask_list(
        "contracts that auto-renew for a year or more and need 90 days notice",
        K,
        lambda d: renewal(d, lambda v: v >= 365) and notice(d, lambda v: v == 90),
    )
    ask_list(
        "consulting agreements w/o a non-compete",
        K,
        lambda d: of_type(d, "consulting") and flag(d, "non_compete", False),
    )
    ask_list(
        "joint venture agreements with a change of control clause",
        K,
        lambda d: of_type(d, "joint venture") and flag(d, "change_of_control"),
    )
    ask_extreme("what's our longest NDA?", K, is_nda, lambda d: d.props.get("term_days"), high=True)
    ask_extreme(
        "oldest NDA we have",
        K,
        lambda d: is_nda(d) and bool(d.props.get("effective_date")),
        lambda d: d.props["effective_date"],
        high=False,
    )
    ask_extreme(
        "most recently signed contract",
        K,
        lambda d: bool(d.props.get("agreement_date")),
        lambda d: d.props["agreement_date"],
        high=True,
    )
    ask_relative(
        "list",
        "Which contracts expire in the next two years?",
        K,
        lambda day: [
            d for d in in_bucket(K) if iso(day) < d.props.get("expiration_date", "") <= iso(years_before(day, -2))
        ],
    )

    ask_mean("what's the average NDA term in days?", K, lambda d: is_nda(d), "term_days")
    ask_label_mean(
        "avg notice period (days) for delaware law contracts", K, lambda d: under(d, "Delaware"), "notice_period_days"
    )
    ask_max("longest NDA term, in days?", K, is_nda, "term_days")
    ask_max("shortest NDA term in days", K, is_nda, "term_days", high=False)

    bank_of_america = [d for d in matching(K, lambda d: party(d, "Bank of America")) if laws(d)]
    ask_lookup(
        "Which state's law applies to our agreement with Bank of America?",
        K,
        bank_of_america,  # five contracts name Bank of America; one of them (cuad_081) names a governing law
        "North Carolina",
        "governing_law",
    )
    nike = matching(K, lambda d: party(d, "Nike"))
    ask_lookup("what state law covers the nike NDAs", K, nike, "Oregon", "governing_law")
    ask_lookup("what kind of contract is cuad_042?", K, [CORPUS["cuad_042"]], label("cuad_042", "contract_type"))
    nimbus = [CORPUS["sample-contract-010"]]
    ask_lookup("effective date of the Nimbus hosting agreement?", K, nimbus, "2023-06-01", "effective_date")
    ask_lookup(
        "who's the other party on sample-contract-007 besides Kestrel?",
        K,
        [CORPUS["sample-contract-007"]],
        "Alder & Finch",
        "parties",
    )
    contracts = in_bucket(K)
    # Exact labels: a compound label ("Delaware, Illinois") would add one to a state, far from closing the gap.
    by_law = Counter(law for d in contracts for law in laws(d))
    (_, first), (_, second) = by_law.most_common(2)
    expect(first - second > 20, f"the governing-law lead is only {first - second}")
    ask_grouping("contracts by governing law - which law comes up most?", K, by_law, "New York", "New York", contracts)
    ndas = [d for d in contracts if is_nda(d)]
    ndas_by_year = Counter(d.props["effective_date"][:4] for d in ndas if d.props.get("effective_date"))
    ask_grouping("NDAs per year - which year did the most of them start?", K, ndas_by_year, "2007", "2007", ndas)

    ask_nothing("contracts with a notice period over 2 years", [K], {K: lambda d: notice(d, lambda v: v > 730)})
    ask_nothing("which leases expire in 2025?", [K], {K: lambda d: "lease" in d.props.get("contract_type", "").lower()})
    ask_nothing("NDAs governed by Alaska law", [K], {K: lambda d: is_nda(d) and under(d, "Alaska")})
    ask_too_many("contracts with audit rights", K, lambda d: flag(d, "audit_rights"), 25)
    ask_too_many("all our NDAs", K, is_nda, 100)
    ask_too_many("everything under new york law", K, lambda d: under(d, "New York"), 50)


def datasheet_and_certificate_questions() -> None:
    """The sample datasheets and certificates."""
    ask_count("how many datasheets say RoHS compliant?", DS, lambda d: flag(d, "rohs_compliant"))
    ask_list(
        "parts made by Kestrel Semiconductor", DS, lambda d: d.props.get("manufacturer") == "Kestrel Semiconductor Inc."
    )
    ask_list("which parts come in an 0603 package", DS, lambda d: d.props.get("package") == "0603")
    ask_list(
        "resistors or capacitors from northwind",
        DS,
        lambda d: (
            d.props.get("category") in {"resistor", "capacitor"}
            and d.props.get("manufacturer", "").startswith("Northwind")
        ),
    )
    mosfet, led = [CORPUS["sample-datasheet-005"]], [CORPUS["sample-datasheet-008"]]
    ask_lookup("what package does the KST-MOS-N30 come in", DS, mosfet, "SOT-23", "package")
    ask_lookup("who makes the NWC-LED-W5050?", DS, led, "Northwind Components Ltd", "manufacturer")
    ask_nothing(
        "datasheets from Texas Instruments",
        [DS],
        {DS: lambda d: "texas instruments" in (d.props.get("manufacturer", "") + d.body).lower()},
    )

    ask_count("How many ISO certificates do we have?", CERT, lambda d: d.props.get("standard", "").startswith("ISO"))
    ask_count("how many certs does Northwind hold", CERT, lambda d: d.props.get("holder") == "Northwind Components Ltd")
    ask_list("ISO 9001 certs", CERT, lambda d: d.props.get("standard", "").startswith("ISO 9001"))
    ask_list("certificates issued by Atlas", CERT, lambda d: d.props.get("issuer", "").startswith("Atlas"))
    ask_list("which certificates expire in 2026?", CERT, lambda d: on(d, "valid_until", "2026"))
    ask_relative(
        "list",
        "which certificates have already expired?",
        CERT,
        lambda day: [d for d in in_bucket(CERT) if d.props.get("valid_until") and d.props["valid_until"] < iso(day)],
    )
    ask_relative(
        "list",
        "certs running out in the next 12 months",
        CERT,
        lambda day: [
            d for d in in_bucket(CERT) if iso(day) <= d.props.get("valid_until", "") <= iso(years_before(day, -1))
        ],
    )
    ask_extreme(
        "which certificate is valid the longest?",
        CERT,
        lambda d: bool(d.props.get("valid_until")),
        lambda d: d.props["valid_until"],
        high=True,
    )
    kestrel_27001 = matching(CERT, lambda d: "27001" in d.props.get("standard", "") and "Kestrel" in d.props["holder"])
    ask_lookup("Who issued Kestrel's ISO 27001 cert?", CERT, kestrel_27001, "Atlas Certification Services", "issuer")
    iso_13485 = matching(CERT, lambda d: d.props.get("standard", "").startswith("ISO 13485"))
    ask_lookup("when does the ISO 13485 certificate expire", CERT, iso_13485, "2023-03-01", "valid_until")
    ask_nothing("ISO 45001 certificates", [CERT], {CERT: lambda d: "45001" in d.props.get("standard", "") + d.body})


def text_questions() -> None:
    """qa: the sample's documents, contract clauses, SciFact claims and HotpotQA questions."""
    ask_qa("What caused the outage described in the postmortem?", G, ["sample-generic-005"])
    ask_qa("why did the invoice export job stop on 14 march?", G, ["sample-generic-005"])
    ask_qa("how long do we keep supplier bills?", G, ["sample-generic-004"])
    ask_qa("vpn keeps dropping at the hotel, what do I do", G, ["sample-generic-002"])
    ask_qa("when does the office open again after xmas?", G, ["sample-generic-003"])
    ask_qa("do I need itemised receipts for my expenses?", G, ["sample-generic-001"])
    ask_qa("what certificates do new suppliers have to give us", G, ["sample-generic-006"])
    ask_qa("what does the Nimbus hosting agreement say about uptime?", K, ["sample-contract-010"])
    ask_qa(
        "What does the Kestrel / Northwind MSA say about audits?",
        K,
        [d.doc_id for d in matching(K, lambda d: party(d, "Kestrel Analytics") and party(d, "Northwind Components"))],
    )
    escrow = [d.doc_id for d in matching(K, lambda d: flag(d, "source_code_escrow"))]
    ask_qa("What do the contracts with a source code escrow say about releasing the code?", K, escrow)
    ask_qa("Summarize the source code escrow terms in contracts that have one", K, escrow)

    for dataset, split, items, relevant in (("scifact", "train", SCIFACT_QA, 1), ("hotpotqa", "dev", HOTPOT_QA, 2)):
        qrels, queries = read_qrels(dataset, split), read_queries(dataset)
        for query_id, question in items:
            expect(
                query_id in queries and len(qrels[query_id]) == relevant,
                f"{dataset} query {query_id} is not in {split} with {relevant} relevant documents",
            )
            ask_qa(question, G, qrels[query_id])


def follow_up_questions() -> None:
    """Two turns on one thread, the second refining the first's result set; scored on the second turn."""
    # Contracts: CUAD, Kleister-NDA and the sample contracts.
    ask_follow_up(
        ("Which contracts are under New York law?", "which of those have audit rights?"),
        ask_list,
        K,
        lambda d: under(d, "New York"),
        lambda d: flag(d, "audit_rights"),
    )
    ask_follow_up(
        ("NDAs with a 2 year term", "only the Delaware ones"),
        ask_list,
        K,
        lambda d: is_nda(d) and d.props.get("term_days") == 730,
        lambda d: under(d, "Delaware"),
    )
    ask_follow_up(
        ("license agreements", "how many of those never expire?"),
        ask_count,
        K,
        lambda d: of_type(d, "license"),
        lambda d: flag(d, "perpetual"),
    )
    ask_follow_up(
        ("contracts with a non-compete", "without the ones under California law"),
        ask_list,
        K,
        lambda d: flag(d, "non_compete"),
        lambda d: not under(d, "California"),  # a contract with no governing law label is not under California law
    )
    ask_follow_up(
        ("delaware contracts", "how many of them can be terminated for convenience?"),
        ask_count,
        K,
        lambda d: under(d, "Delaware"),
        lambda d: flag(d, "termination_for_convenience"),
    )
    ask_follow_up(
        ("nike ndas", "which of them started before 2005?"),
        ask_list,
        K,
        lambda d: is_nda(d) and party(d, "Nike"),
        lambda d: bool(d.props.get("effective_date")) and d.props["effective_date"] < "2005",
    )
    ask_follow_up(
        ("NDAs from 2007", "how many of them are under delaware law"),
        ask_count,
        K,
        lambda d: is_nda(d) and on(d, "effective_date", "2007"),
        lambda d: under(d, "Delaware"),
    )
    ask_follow_up(
        ("contracts with Kestrel Analytics", "which ones are governed by delaware law?"),
        ask_list,
        K,
        lambda d: party(d, "Kestrel Analytics"),
        lambda d: under(d, "Delaware"),
    )

    # Receipts: SROIE and the sample receipts.
    ask_follow_up(
        ("mr diy receipts", "and in 2018?"), ask_list, R, lambda d: company(d, MR_DIY), lambda d: on(d, "date", "2018")
    )
    ask_follow_up(
        ("receipts from gardenia", "how many in sept 2017?"),
        ask_count,
        R,
        lambda d: company(d, "Gardenia"),
        lambda d: on(d, "date", "2017-09"),
    )
    ask_follow_up(
        ("sanyu stationery receipts", "what do the november ones add up to?"),
        ask_sum,
        R,
        lambda d: company(d, "Sanyu"),
        lambda d: on(d, "date", "2017-11"),
        "total",
    )
    ask_follow_up(
        ("receipts from december 2017", "just the popular bookstore ones"),
        ask_list,
        R,
        lambda d: on(d, "date", "2017-12"),
        lambda d: company(d, "Popular Book"),
    )
    ask_follow_up(
        ("receipts from 2023", "which of those were over $50?"),  # only the sample's (US dollar) receipts are 2023
        ask_list,
        R,
        lambda d: on(d, "date", "2023"),
        lambda d: (total(d) or 0) > 50,
    )

    # Invoices: invoice2data and the sample invoices.
    ask_follow_up(
        ("invoices in euros", "which of them is the biggest?"),
        ask_extreme,
        INV,
        lambda d: currency(d, "EUR"),
        lambda d: True,
        lambda d: num(d, "amount"),
        high=True,
    )
    ask_follow_up(
        ("how many euro invoices do we have", "and in dollars?"),
        ask_count,
        INV,
        lambda d: currency(d, "EUR"),
        lambda d: currency(d, "USD"),
        swap=True,
    )
    ask_follow_up(
        ("invoices billed to Harbor Point Foods", "how much do the 2021 ones come to?"),
        ask_sum,
        INV,
        lambda d: d.props.get("customer") == "Harbor Point Foods Co.",
        lambda d: on(d, "date", "2021"),
        "amount",
    )
    ask_follow_up(
        ("invoices from 2014", "which ones are in euros?"),
        ask_list,
        INV,
        lambda d: on(d, "date", "2014"),
        lambda d: currency(d, "EUR"),
    )

    # The sample datasheets.
    ask_follow_up(
        ("northwind datasheets", "which of those are resistors?"),
        ask_list,
        DS,
        lambda d: d.props.get("manufacturer", "").startswith("Northwind"),
        lambda d: d.props.get("category") == "resistor",
    )


# --------------------------------------------------------------------------------------------------------------
# Writing and reporting


def stable_days(check: Callable[[date], bool], limit: int = 365) -> int:
    today = date.today()
    for offset in range(1, limit + 1):
        if not check(today + timedelta(days=offset)):
            return offset - 1
    return limit


def main() -> None:
    CORPUS.update(load_corpus())
    receipt_questions()
    invoice_questions()
    contract_questions()
    datasheet_and_certificate_questions()
    text_questions()
    follow_up_questions()
    questions = [" / ".join(i.turns) if i.turns else i.question for i in ITEMS]
    repeated = [q for q, n in Counter(questions).items() if n > 1]
    if repeated:
        raise SystemExit(f"questions repeat: {repeated}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as out:
        for number, item in enumerate(ITEMS, start=1):
            line: dict[str, Any] = {
                "id": f"nat-{number:03d}",
                "question": item.question,
                **({"turns": item.turns} if item.turns else {}),
                "kind": item.kind,
                "expected": item.expected,
                "buckets": item.buckets,
                "datasets": ALL_DATASETS,
            }
            if item.context:
                line["context"] = item.context
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(ITEMS)} questions to {OUT}")
    print("per kind:", dict(Counter(i.kind for i in ITEMS)))
    print("follow-ups (two turns) per kind:", dict(Counter(i.kind for i in ITEMS if i.turns)))
    print("per dataset (questions whose gold draws on it):", dict(Counter(s for i in ITEMS for s in i.sources)))
    for number, item in enumerate(ITEMS, start=1):
        if item.relative is not None:
            days = stable_days(item.relative)
            note = "  WARNING: re-run the script before evaluating" if days < STABLE_WARN_DAYS else ""
            print(f"nat-{number:03d} (relative date) gold unchanged for the next {days} days{note}", file=sys.stderr)


if __name__ == "__main__":
    main()
