"""The annotation tools, annotations_search and annotations_aggregate, on the sample corpus and on real data.

Expected answers come from the datasets' own labels (read here from ../shared/data), so a predicate or an
aggregate that the pushdown gets wrong shows up as a mismatch with what the labels say. Counts, sums, groups
(by value, year or month), ordering, the named-documents restriction and the counting bound are checked.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from retrievers.loaders import sample
from retrievers.loaders.normalize import parse_amount, parse_date
from retrievers.postgres import annotations as postgres_annotations
from tests.conftest import SHARED_DATA
from tests.tool_calls.conftest import SROIE_RECEIPTS, _cuad_subset, _ids, call
from tools.envelope import Envelope

# -- the sample corpus ---------------------------------------------------------------------------------


def test_aggregate_counts_groups_and_total(context):
    with_law = {"governing_law": {"op": "exists"}}
    result = call(
        context,
        "annotations_aggregate",
        bucket="contracts",
        aggregate="count",
        group_by=["governing_law"],
        predicates=with_law,
    )
    rows = call(context, "annotations_search", bucket="contracts", predicates=with_law, top_k=50)
    assert result["status"] == "ok" and result["total"]["documents"] == rows["total_hits"]
    by_law = {g["group"]["governing_law"]: g["documents"] for g in result["hits"]}
    for law, count in by_law.items():
        matching = call(
            context,
            "annotations_search",
            bucket="contracts",
            predicates={"governing_law": {"op": "=", "value": law}},
            top_k=50,
        )
        assert matching["total_hits"] == count


def test_a_search_past_the_counting_bound_says_its_total_is_a_lower_bound(context, monkeypatch):
    """The count stops past MATCHES_COUNTED_UP_TO (2 here) or the page size, whichever is larger; the aggregate
    still counts every row."""
    monkeypatch.setattr(postgres_annotations, "MATCHES_COUNTED_UP_TO", 2)
    every = {"bucket": "receipts", "aggregate": "count", "predicates": {"total": {"op": ">", "value": 0}}}
    documents = call(context, "annotations_aggregate", **every)["total"]["documents"]
    assert documents > 3, "the sample holds more receipts than the bound"
    found = Envelope.model_validate(
        call(context, "annotations_search", bucket="receipts", predicates=every["predicates"], top_k=1)
    )
    assert (found.total_hits, found.total_is_lower_bound, found.total_said()) == (2, True, "more than 2")
    listed = call(context, "annotations_search", bucket="receipts", predicates=every["predicates"], top_k=50)
    assert (listed["total_hits"], listed["total_is_lower_bound"]) == (min(documents, 50), documents > 50)
    one_shop = {"company": {"op": "=", "value": found.rows()[0].row["company"]}}
    shop = call(context, "annotations_search", bucket="receipts", predicates=one_shop, top_k=50)
    assert not shop["total_is_lower_bound"] and shop["total_hits"] == len(shop["hits"]), "a few rows: counted"


def _sample_rows(bucket: str) -> dict[str, dict]:
    return {s.document.doc_id: s.annotations[0].row for s in sample.load() if s.document.bucket == bucket}


def test_order_by_answers_the_biggest_and_the_smallest_with_top_k_1(context):
    receipts = _sample_rows("receipts")
    totals = {doc_id: row["total"] for doc_id, row in receipts.items()}
    for direction, pick in (("desc", max), ("asc", min)):
        result = call(
            context,
            "annotations_search",
            bucket="receipts",
            doc_id=sorted(receipts),
            order_by={"field": "total", "direction": direction},
            top_k=1,
        )
        assert result["status"] == "ok" and result["total_hits"] == len(receipts)
        assert [(h["doc_id"], h["row"]["total"]) for h in result["hits"]] == [
            (doc_id, total) for doc_id, total in totals.items() if total == pick(totals.values())
        ]


def test_order_by_a_date_puts_rows_without_it_last(context):
    certificates = _sample_rows("certificates")
    result = call(
        context,
        "annotations_search",
        bucket="certificates",
        doc_id=sorted(certificates),
        order_by={"field": "valid_until", "direction": "asc"},
        top_k=50,
    )
    dated = sorted((row["valid_until"], doc_id) for doc_id, row in certificates.items() if "valid_until" in row)
    undated = sorted(doc_id for doc_id, row in certificates.items() if "valid_until" not in row)
    assert undated and _ids(result) == [doc_id for _, doc_id in dated] + undated
    longest = call(context, "annotations_search", bucket="certificates", order_by={"field": "valid_until"}, top_k=1)
    assert longest["hits"][0]["row"]["valid_until"] == max(valid for valid, _ in dated)


def test_doc_id_restricts_rows_and_aggregates_to_the_named_documents(context):
    receipts = _sample_rows("receipts")
    named = sorted(receipts)[:3]
    rows = call(context, "annotations_search", bucket="receipts", doc_id=named)
    assert sorted(_ids(rows)) == named and rows["total_hits"] == len(named)
    summed = call(context, "annotations_aggregate", bucket="receipts", aggregate="sum(total)", doc_id=named)
    assert summed["total"]["documents"] == len(named)
    assert summed["total"]["value"] == pytest.approx(sum(receipts[d]["total"] for d in named))
    elsewhere = call(context, "annotations_search", bucket="receipts", doc_id=["sample-invoice-001"])
    assert elsewhere["status"] == "no_results" and "among documents ['sample-invoice-001']" in elsewhere["hint"]


def test_group_by_year_of_a_date_counts_the_documents_of_each_year(context):
    receipts = _sample_rows("receipts")
    result = call(
        context,
        "annotations_aggregate",
        bucket="receipts",
        aggregate="count",
        group_by=["year(date)"],
        doc_id=sorted(receipts),
    )
    expected = Counter(row["date"][:4] for row in receipts.values())
    assert {g["group"]["year(date)"]: g["documents"] for g in result["hits"]} == expected
    assert result["hits"][0]["documents"] == max(expected.values())


# -- real data: CUAD and SROIE ------------------------------------------------------------------------


def _cuad_labels() -> dict[str, dict]:
    ids = {s.document.doc_id for s in _cuad_subset()}
    return {
        r["contract_id"]: r["answers"]
        for r in map(json.loads, (SHARED_DATA / "cuad" / "derived_contracts.jsonl").read_text().splitlines())
        if r["contract_id"] in ids
    }


def test_cuad_governing_law_predicate_returns_exactly_the_labelled_contracts(context, real_data):
    labels = _cuad_labels()
    expected = sorted(cid for cid, a in labels.items() if "new york" in (a.get("Governing Law") or "").lower())
    result = call(
        context,
        "annotations_search",
        bucket="contracts",
        predicates={"governing_law": {"op": "=", "value": "New York"}},
        top_k=50,
    )
    found = sorted(d for d in _ids(result) if d.startswith("cuad_"))
    assert expected and found == expected


def test_cuad_boolean_clause_flags_match_the_labels(context, real_data):
    labels = _cuad_labels()
    expected = sorted(cid for cid, a in labels.items() if a.get("Exclusivity") == "Yes")
    result = call(
        context,
        "annotations_search",
        bucket="contracts",
        top_k=50,
        predicates={"exclusivity": {"op": "=", "value": True}, "contract_type": {"op": "exists"}},
    )
    found = sorted(d for d in _ids(result) if d.startswith("cuad_"))
    assert expected and result["total_hits"] < 50 and found == expected


def _sroie_labels() -> list[dict]:
    lines = (SHARED_DATA / "sroie" / "derived_receipts.jsonl").read_text().splitlines()[:SROIE_RECEIPTS]
    return [json.loads(line) for line in lines]


def test_sroie_total_and_date_predicates_return_exactly_the_labelled_receipts(context, real_data):
    labels = _sroie_labels()
    expected = sorted(
        r["receipt_id"]
        for r in labels
        if (t := parse_amount(r["entities"].get("total", ""))) is not None
        and t > 150
        and (d := parse_date(r["entities"].get("date", ""))) is not None
        and d.year == 2018
    )
    result = call(
        context,
        "annotations_search",
        bucket="receipts",
        top_k=50,
        predicates={
            "total": {"op": ">", "value": 150},
            "date": {"op": "between", "value": ["2018-01-01", "2018-12-31"]},
        },
    )
    assert expected and result["total_hits"] == len(expected) and sorted(_ids(result)) == expected


def test_sroie_sum_and_count_by_company_equal_the_labels(context, real_data):
    companies = [r["entities"].get("company", "") for r in _sroie_labels()]
    busiest = max(set(companies), key=companies.count)
    labels = [r for r in _sroie_labels() if r["entities"].get("company") == busiest]
    expected_sum = round(sum(parse_amount(r["entities"]["total"]) for r in labels), 2)
    result = call(
        context,
        "annotations_aggregate",
        bucket="receipts",
        aggregate="sum(total)",
        predicates={"company": {"op": "=", "value": busiest}},
    )
    assert labels and result["total"]["documents"] == len(labels)
    assert result["total"]["value"] == pytest.approx(expected_sum, abs=0.01)
    counted = call(context, "annotations_aggregate", bucket="receipts", aggregate="count", group_by=["company"])
    by_company = {g["group"]["company"].lower(): g["documents"] for g in counted["hits"]}
    expected_counts: dict[str, int] = {}
    for r in _sroie_labels():
        key = r["entities"].get("company", "").lower()
        if key:
            expected_counts[key] = expected_counts.get(key, 0) + 1
    assert {company: by_company.get(company) for company in expected_counts} == expected_counts


def _sroie_parsed() -> dict[str, tuple]:
    """(date, total) of each SROIE receipt of the subset, parsed as the loader parses them."""
    return {
        r["receipt_id"]: (
            parse_date(r["entities"].get("date", ""), day_first=True),
            parse_amount(r["entities"].get("total", "")),
        )
        for r in _sroie_labels()
    }


def test_sroie_month_sums_and_the_busiest_year_match_the_labels(context, real_data):
    parsed = _sroie_parsed()
    in_2018 = {"date": {"op": "between", "value": ["2018-01-01", "2018-12-31"]}}
    result = call(
        context,
        "annotations_aggregate",
        bucket="receipts",
        aggregate="sum(total)",
        group_by=["month(date)"],
        predicates=in_2018 | {"total": {"op": "exists"}},
    )
    expected: dict[str, float] = {}
    for day, total in parsed.values():
        if day is not None and day.year == 2018 and total is not None:
            month = day.isoformat()[:7]
            expected[month] = expected.get(month, 0) + total
    assert expected and {g["group"]["month(date)"]: g["value"] for g in result["hits"]} == pytest.approx(expected)
    years = call(context, "annotations_aggregate", bucket="receipts", aggregate="count", group_by=["year(date)"])
    counts = Counter(row["date"][:4] for row in _sample_rows("receipts").values())
    counts.update(str(day.year) for day, _ in parsed.values() if day is not None)
    assert {g["group"]["year(date)"]: g["documents"] for g in years["hits"] if g["group"]["year(date)"]} == counts
    assert years["hits"][0]["group"]["year(date)"] == max(counts, key=counts.get)


def test_sroie_total_of_a_named_receipt_and_the_biggest_receipt_match_the_labels(context, real_data):
    totals = {doc_id: total for doc_id, (_, total) in _sroie_parsed().items() if total is not None}
    named = next(iter(totals))
    one = call(context, "annotations_search", bucket="receipts", doc_id=[named])
    assert _ids(one) == [named] and one["hits"][0]["row"]["total"] == pytest.approx(totals[named])
    everything = totals | {d: row["total"] for d, row in _sample_rows("receipts").items()}
    biggest = call(context, "annotations_search", bucket="receipts", order_by={"field": "total"}, top_k=1)
    assert biggest["hits"][0]["row"]["total"] == pytest.approx(max(everything.values()))
    assert biggest["total_hits"] == len(everything) + sum(total is None for _, total in _sroie_parsed().values())
