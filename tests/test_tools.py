"""Every tool against the embedded engines, on the sample corpus and on real CUAD and SROIE data.

Expected answers come from the datasets' own labels (read here from ../shared/data), so a predicate or an
aggregate that the pushdown gets wrong shows up as a mismatch with what the labels say.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from core.models import SourceDocument
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import cuad, field_specs, sample, sroie
from retrievers.loaders.normalize import parse_amount, parse_date
from retrievers.postgres import annotations as postgres_annotations
from tests.conftest import SHARED_DATA, fresh_database, make_stack
from tools.context import ToolContext, ToolLimits
from tools.envelope import AggregateGroup, Envelope
from tools.guard import _bounded
from tools.langchain_tools import build_tools
from tools.registry import TOOLS, call_tool

CUAD_MAX_CHARS = 15_000
SROIE_RECEIPTS = 200
SECRET_WORD = "zebracornium"


def _cuad_subset() -> list[SourceDocument]:
    return [s for s in cuad.load(SHARED_DATA / "cuad") if len(s.document.body) < CUAD_MAX_CHARS]


def _tenant_b_documents() -> list[SourceDocument]:
    """The other tenant: a copy of one sample contract plus a document only it may ever see."""
    copy = next(iter(sample.load(limit=1)))
    secret = SourceDocument.model_validate(
        {
            "document": {
                "doc_id": "tenant-b-secret",
                "bucket": "contracts",
                "scope": "tenant_b",
                "title": "Secret supply deal",
                "body": (
                    f"The {SECRET_WORD} supply agreement is governed by the laws of Delaware with thirty days notice."
                ),
            },
            "annotations": [
                {
                    "row": {
                        "governing_law": ["Delaware"],
                        "notice_period_days": [30],
                        "parties": [f"{SECRET_WORD.title()} Holdings"],
                    }
                }
            ],
        }
    )
    copy.document = copy.document.model_copy(update={"scope": "tenant_b"})
    return [copy, secret]


def _html_document() -> SourceDocument:
    body = (
        "<html><head><style>p {color: red}</style><script>alert('x')</script></head><body>"
        "<p>The <b>quarterly</b> outlook for Q3 &amp; Q4 is stable.</p></body></html>"
    )
    return SourceDocument.model_validate(
        {"document": {"doc_id": "memo.html", "bucket": "generic", "title": "Outlook", "body": body}}
    )


@pytest.fixture(scope="module")
def context(postgres_url, minilm, tmp_path_factory):
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("tools"), minilm)
        ingestor = Ingestor(stack)
        ingestor.ingest(sample.load(), field_specs=field_specs("sample"), progress=False)
        ingestor.ingest(_tenant_b_documents(), field_specs=field_specs("sample"), progress=False)
        ingestor.ingest([_html_document()], progress=False)
        if (SHARED_DATA / "cuad").is_dir() and (SHARED_DATA / "sroie").is_dir():
            ingestor.ingest(_cuad_subset(), field_specs=field_specs("cuad"), progress=False)
            ingestor.ingest(
                sroie.load(SHARED_DATA / "sroie", limit=SROIE_RECEIPTS),
                field_specs=field_specs("sroie"),
                progress=False,
            )
        ctx = ToolContext(stack)
        yield ctx
        ctx.close()
        stack.close()


@pytest.fixture(scope="module")
def tenant_b(context):
    return ToolContext(context.stack, scope="tenant_b")


@pytest.fixture
def real_data(context):
    for name in ("cuad", "sroie"):
        if not (SHARED_DATA / name).is_dir():
            pytest.skip(f"{SHARED_DATA / name} is absent; real-data tool tests need ../shared/data")


def call(context, name, **arguments):
    return call_tool(name, arguments, context)


def _ids(envelope) -> list[str]:
    return [h["doc_id"] for h in envelope["hits"]]


# -- the sample corpus ---------------------------------------------------------------------------------


def test_search_text_finds_an_exact_invoice_number_first(context):
    result = call(context, "search_text", bucket="invoices", query="INV-2023-0147", top_k=5)
    assert result["status"] == "ok" and result["hits"][0]["doc_id"] == "sample-invoice-001"
    assert result["total_hits"] >= len(result["hits"])
    assert "INV-2023-0147" in " ".join(h["snippet"] for h in result["hits"] if h["doc_id"] == "sample-invoice-001")


def test_search_semantic_finds_a_paraphrase(context):
    result = call(
        context,
        "search_semantic",
        bucket="contracts",
        query="how long in advance must we tell them we are cancelling",
        top_k=3,
    )
    assert result["status"] == "ok"
    top = context.stack.store.chunks_by_id("default", [result["hits"][0]["chunk_id"]])[result["hits"][0]["chunk_id"]]
    assert re.search(r"days'? (prior )?(written )?notice|months' notice", top["text"]), top["text"]


def test_semantic_search_for_something_absent_is_low_confidence(context):
    result = call(
        context, "search_semantic", bucket="contracts", query="recipe for a chocolate layer cake with cherries"
    )
    assert result["status"] == "low_confidence" and "below 0.41" in result["hint"] and result["hits"]


def test_min_score_cuts_weak_matches_to_no_results_with_a_hint(context):
    result = call(context, "search_semantic", bucket="contracts", query="chocolate cake recipe", min_score=0.9)
    assert result["status"] == "no_results" and "search_text" in result["hint"]


def test_fused_search_combines_both_engines(context):
    result = call(context, "fused_search", bucket="datasheets", query="RoHS compliant low-dropout regulator", top_k=5)
    assert result["status"] == "ok" and result["hits"][0]["doc_id"] == "sample-datasheet-004"


def test_annotation_filters_prefilter_the_text_search(context):
    short_notice = call(
        context,
        "annotations_search",
        bucket="contracts",
        predicates={"notice_period_days": {"op": "<", "value": 90}},
        top_k=50,
    )
    allowed = set(_ids(short_notice))
    result = call(
        context,
        "search_text",
        bucket="contracts",
        query="notice terminate",
        top_k=50,
        filters={"notice_period_days": {"op": "<", "value": 90}},
    )
    assert result["status"] == "ok" and set(_ids(result)) <= allowed and allowed


def test_filters_on_author_tags_and_dates_are_applied(context):
    every = call(context, "search_text", bucket="invoices", query="invoice", top_k=50)
    one = next(
        h["metadata"]
        for h in every["hits"]
        if h["metadata"]["author"] and h["metadata"]["tags"] and h["metadata"]["created_at"]
    )
    narrowed = call(
        context,
        "search_text",
        bucket="invoices",
        query="invoice",
        top_k=50,
        filter={
            "author": [one["author"]],
            "tags": one["tags"][:1],
            "created_after": one["created_at"],
            "created_before": one["created_at"],
        },
    )
    assert narrowed["status"] == "ok"
    assert all(
        h["metadata"]["author"] == one["author"] and h["metadata"]["created_at"] == one["created_at"]
        for h in narrowed["hits"]
    )


def test_snippets_are_centred_on_the_match_and_bounded(context):
    result = call(context, "search_text", bucket="invoices", query="INV-2023-0147", context_chars=120)
    assert all(len(h["snippet"]) <= 122 for h in result["hits"])
    assert "INV-2023-0147" in result["hits"][0]["snippet"] or "INV-2023-0147" in result["hits"][1]["snippet"]


def test_snippets_and_documents_never_carry_markup(context):
    found = call(context, "search_text", bucket="generic", query="quarterly outlook")
    assert found["hits"][0]["doc_id"] == "memo.html"
    assert found["hits"][0]["snippet"] == "The quarterly outlook for Q3 & Q4 is stable."
    text = call(context, "get_document", doc_id="memo.html")["hits"][0]["text"]
    assert "<" not in text and "alert" not in text and "color" not in text and "Q3 & Q4" in text


def test_no_results_names_what_to_try(context):
    result = call(context, "search_text", bucket="invoices", query="qwxzyv", filter={"tags": ["no-such-tag"]})
    assert (
        result["status"] == "no_results"
        and "drop or loosen filter" in result["hint"]
        and "search_semantic" in result["hint"]
    )


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


def test_documents_metadata_and_bounded_body(context):
    meta = call(context, "get_document_metadata", doc_id="sample-invoice-001")
    assert meta["status"] == "ok" and meta["hits"][0]["annotation_ids"][0].startswith("sample-invoice-001#")
    body = call(context, "get_document", doc_id="sample-invoice-001", max_chars=300)
    assert (
        body["status"] == "ok"
        and len(body["hits"][0]["text"]) == 300
        and body["hits"][0]["truncated"]
        and "300" in body["hint"]
    )
    assert "<" not in body["hits"][0]["text"]


# -- real data: CUAD and SROIE ------------------------------------------------------------------------


def test_search_text_finds_a_sroie_document_number(context, real_data):
    receipts = [
        json.loads(line)
        for line in (SHARED_DATA / "sroie" / "derived_receipts.jsonl").read_text().splitlines()[:SROIE_RECEIPTS]
    ]
    numbered = [
        (r["receipt_id"], m.group(1))
        for r in receipts
        if (m := re.search(r"DOCUMENT NO\s*:\s*([A-Z]{2}\d{8})", r["text"]))
    ]
    assert numbered, "the SROIE subset must hold receipts with document numbers"
    for receipt_id, number in numbered[:5]:
        result = call(context, "search_text", bucket="receipts", query=number, top_k=3)
        assert result["hits"][0]["doc_id"] == receipt_id, number


def test_search_text_finds_a_cuad_party_name(context, real_data):
    subset = {s.document.doc_id: s for s in _cuad_subset()}
    checked = 0
    for doc_id, source in subset.items():
        parties = next((a.row.get("parties") for a in source.annotations if a.row.get("parties")), None)
        name = parties[0] if parties else None
        if not name or len(name) < 12 or sum(name.lower() in s.document.body.lower() for s in subset.values()) != 1:
            continue
        result = call(context, "search_text", bucket="contracts", query=name, top_k=5)
        assert doc_id in _ids(result), name
        checked += 1
        if checked == 5:
            break
    assert checked == 5


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


# -- scope isolation ----------------------------------------------------------------------------------


ISOLATION_CALLS = [
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD}),
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD, "doc_id": "tenant-b-secret"}),
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD, "filter": {"doc_id": ["tenant-b-secret"]}}),
    ("search_semantic", {"bucket": "contracts", "query": f"{SECRET_WORD} supply agreement Delaware", "top_k": 50}),
    ("fused_search", {"bucket": "contracts", "query": f"{SECRET_WORD} supply agreement", "top_k": 50}),
    ("annotations_search", {"bucket": "contracts", "predicates": {"parties": {"op": "~", "value": SECRET_WORD}}}),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "predicates": {"parties": {"op": "~", "value": SECRET_WORD}}},
    ),
    ("get_document_metadata", {"doc_id": "tenant-b-secret"}),
    ("get_document", {"doc_id": "tenant-b-secret"}),
]


@pytest.mark.parametrize(
    "name, arguments", ISOLATION_CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ISOLATION_CALLS)]
)
def test_another_scope_is_never_seen(context, tenant_b, name, arguments):
    """Outside its scope the secret document is never returned, counted or quoted; inside it, it is found."""
    outside, inside = call(context, name, **arguments), call(tenant_b, name, **arguments)
    assert "tenant-b-secret" not in json.dumps(outside["hits"]) and SECRET_WORD not in json.dumps(outside["hits"])
    assert inside["status"] in ("ok", "low_confidence")
    if name == "annotations_aggregate":
        assert (outside["total"] or {}).get("documents", 0) == 0 and inside["total"]["documents"] == 1
    else:
        assert "tenant-b-secret" in json.dumps(inside["hits"])


def test_scope_cannot_be_set_by_an_argument(context):
    result = call(context, "search_text", bucket="contracts", query=SECRET_WORD, scope="tenant_b")
    assert result["status"] == "invalid_request" and "scope: Extra inputs are not permitted" in result["hint"]


# -- invalid arguments ---------------------------------------------------------------------------------


INVALID = [
    (
        "search_text",
        {"bucket": "recipes", "query": "x"},
        "bucket 'recipes' does not exist; allowed buckets: certificates, contracts",
    ),
    ("search_text", {"query": "x"}, "bucket: Field required"),
    ("search_text", {"bucket": "invoices", "query": "   "}, "query is blank"),
    ("search_text", {"bucket": "invoices", "query": "x" * 5000}, "query: String should have at most 1000 characters"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "top_k": 51},
        "top_k: Input should be less than or equal to 50",
    ),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "top_k": 0},
        "top_k: Input should be greater than or equal to 1",
    ),
    ("search_text", {"bucket": "invoices", "query": "x", "context_chars": 10**6}, "context_chars"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "filter": {"created_after": "last tuesday"}},
        "filter.created_after",
    ),
    ("search_text", {"bucket": "invoices", "query": "x", "filter": {"bucket": "receipts"}}, "give the bucket once"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "filters": {"colour": {"op": "=", "value": "red"}}},
        "unknown field 'colour'; fields of this bucket:",
    ),
    (
        "search_semantic",
        {"bucket": "invoices", "query": "x", "min_score": 7},
        "min_score: Input should be less than or equal to 1",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"notice_period_days": {"op": "<", "value": "soon"}}},
        "is a number",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"agreement_date": {"op": ">", "value": "31/12/2019"}}},
        "YYYY-MM-DD",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law": {"op": "<", "value": "A"}}},
        "use one of =, !=, ~, in, not in, exists",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law": {"op": "like", "value": "A"}}},
        "predicates.governing_law.op",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law' OR 1=1 --": {"op": "=", "value": "x"}}},
        "unknown field",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "median(notice_period_days)"},
        "use count, sum(field)",
    ),
    ("annotations_aggregate", {"bucket": "contracts", "aggregate": "sum(governing_law)"}, "sum needs a number field"),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["a", "b", "c", "d"]},
        "group_by",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "order_by": {"field": "governing_law"}},
        "cannot order by string field 'governing_law'; number and date fields of this bucket:",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "order_by": {"field": "agreement_date", "direction": "up"}},
        "order_by.direction: Input should be 'desc' or 'asc'",
    ),
    ("annotations_search", {"bucket": "contracts", "order_by": "agreement_date"}, "order_by: Input should be"),
    ("annotations_search", {"bucket": "contracts", "doc_id": []}, "doc_id: List should have at least 1 item"),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "doc_id": ["x"] * 1001},
        "doc_id: List should have at most 1000 items",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["year(governing_law)"]},
        "year() needs a date field; 'governing_law' is string",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["week(agreement_date)"]},
        "group_by entry 'week(agreement_date)' is not understood; give a field name, year(field) or month(field)",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["month(colour)"]},
        "unknown field 'colour'; fields of this bucket:",
    ),
    (
        "get_document",
        {"doc_id": "sample-invoice-001", "max_chars": 10**7},
        "max_chars: Input should be less than or equal to 20000",
    ),
    ("get_document_metadata", {"doc_id": ""}, "doc_id: String should have at least 1 character"),
]


@pytest.mark.parametrize("name, arguments, reason", INVALID, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(INVALID)])
def test_invalid_arguments_return_invalid_request_with_a_reason(context, name, arguments, reason):
    result = call(context, name, **arguments)
    assert result["status"] == "invalid_request" and reason in result["hint"], result["hint"]
    assert result["hits"] == []


def test_order_and_date_part_refusals_list_the_fields_that_would_do(context):
    catalog = context.stack.store.field_catalog("default", "contracts")
    orderable = ", ".join(sorted({f.name for f in catalog if f.type in ("number", "integer", "date")}))
    dates = ", ".join(sorted({f.name for f in catalog if f.type == "date"}))
    ordered = call(context, "annotations_search", bucket="contracts", order_by={"field": "colour"})
    assert (
        f"cannot order by unknown field 'colour'; number and date fields of this bucket: {orderable}"
        in (ordered["hint"])
    )
    grouped = call(context, "annotations_aggregate", bucket="contracts", aggregate="count", group_by=["year(parties)"])
    assert f"(date fields: {dates})" in grouped["hint"]


def test_unknown_tool_and_non_object_arguments_are_invalid_requests(context):
    assert call_tool("drop_table", {}, context)["status"] == "invalid_request"
    assert call_tool("search_text", ["contracts", "x"], context)["status"] == "invalid_request"


# -- limits and failures --------------------------------------------------------------------------------


def test_envelopes_are_bounded_in_size(context):
    small = ToolContext(context.stack, limits=ToolLimits(max_envelope_chars=3000))
    result = call(small, "search_text", bucket="contracts", query="agreement", top_k=50, context_chars=2000)
    compact = json.dumps(result, ensure_ascii=False, separators=(",", ":"))  # as the bound measures it
    assert len(compact) <= 3000 and result["hits"] and "left out" in result["hint"]
    small.close()


def test_a_long_envelope_keeps_the_most_hits_that_fit():
    # groups of growing size, as an aggregate of thousands of groups returns them
    groups = [AggregateGroup(group={"company": "shop " * (i % 7)}, documents=i, value=i * 1.5) for i in range(3000)]
    bounded = _bounded(Envelope(status="ok", hits=list(groups), total_hits=3000, hint="a hint"), 20_000)
    kept = len(bounded.hits)
    assert 0 < kept < 3000 and bounded.hits == groups[:kept]
    assert len(bounded.model_dump_json()) <= 20_000
    assert bounded.hint.startswith(f"a hint {3000 - kept} hit(s) left out")
    note = bounded.hint.replace(f"{3000 - kept} hit(s)", f"{3000 - kept - 1} hit(s)")
    one_more = bounded.model_copy(update={"hits": groups[: kept + 1], "hint": note})
    assert len(one_more.model_dump_json()) > 20_000


def test_an_engine_call_over_its_timeout_returns_timeout(context):
    hurried = ToolContext(context.stack, limits=ToolLimits(engine_timeout_s=1e-6))
    result = call(hurried, "search_semantic", bucket="contracts", query="notice period before termination")
    assert result["status"] == "timeout" and "did not answer within" in result["hint"]
    hurried.close()


def test_rate_limit_answers_with_when_to_retry(context):
    limited = ToolContext(context.stack, limits=ToolLimits(calls_per_second=0.01))
    assert call(limited, "get_document_metadata", doc_id="sample-invoice-001")["status"] == "ok"
    second = call(limited, "get_document_metadata", doc_id="sample-invoice-001")
    assert second["status"] == "rate_limited" and 99.0 < second["retry_after_s"] <= 100.0
    limited.close()


def test_a_rate_limited_backend_becomes_a_rate_limited_envelope(context):
    from core.errors import RateLimited
    from tools.arguments import DocumentMetadataArgs
    from tools.guard import run_tool

    def throttled(args, ctx):
        raise RateLimited("embeddings endpoint http://x is rate limiting requests", 7.0)

    result = run_tool("get_document_metadata", DocumentMetadataArgs, throttled, {"doc_id": "x"}, context)
    assert result.status == "rate_limited" and result.retry_after_s == 7.0 and "retry after 7 s" in result.hint


def test_an_unreachable_postgres_is_unavailable_not_a_crash(context, database_url):
    from dataclasses import replace

    from retrievers.postgres.store import PostgresStore

    closed = PostgresStore(database_url)
    closed.close()
    broken = ToolContext(replace(context.stack, store=closed))
    for name, arguments in [("annotations_search", {"bucket": "contracts"}), ("get_document", {"doc_id": "x"})]:
        result = call(broken, name, **arguments)
        assert result["status"] == "unavailable" and "Postgres" in result["hint"]
    broken.close()


# -- what a chat model sees ---------------------------------------------------------------------------------


def test_langchain_tools_carry_bucket_enums_fields_examples_and_costs(context):
    tools = {t.name: t for t in build_tools(context)}
    assert set(tools) == set(TOOLS)
    schema = tools["annotations_search"].args_schema.model_json_schema()
    assert set(schema["properties"]["bucket"]["enum"]) == {
        "contracts",
        "invoices",
        "receipts",
        "datasheets",
        "certificates",
        "generic",
    }
    description = tools["annotations_search"].description
    assert "Cost: cheap." in description and "Example:" in description and "Bad at:" in description
    assert re.search(r"notice_period_days: integer list;.* from \d+ to \d+; e\.g\. ", description)
    assert "Cost: expensive." in tools["get_document"].description


def test_every_tool_converts_to_an_openai_function_schema(context):
    from langchain_core.utils.function_calling import convert_to_openai_tool

    for tool in build_tools(context):
        function = convert_to_openai_tool(tool)["function"]
        assert function["name"] == tool.name and function["description"].startswith(tool.description[:40])
        assert (
            "bucket" not in function["parameters"]["properties"]
            or function["parameters"]["properties"]["bucket"]["enum"]
        )


def test_langchain_tool_returns_an_envelope_for_an_enum_violation(context):
    tools = {t.name: t for t in build_tools(context)}
    content = tools["search_text"].invoke({"bucket": "nope", "query": "x"})
    assert json.loads(content)["status"] == "invalid_request" and "bucket" in json.loads(content)["hint"]
    message = tools["search_text"].invoke(
        {
            "type": "tool_call",
            "id": "1",
            "name": "search_text",
            "args": {"bucket": "invoices", "query": "INV-2023-0147"},
        }
    )
    assert (
        message.artifact["status"] == "ok" and json.loads(message.content)["hits"][0]["doc_id"] == "sample-invoice-001"
    )


def test_langchain_schemas_and_descriptions_name_order_by_doc_id_and_date_parts(context):
    tools = {t.name: t for t in build_tools(context)}
    search = tools["annotations_search"].args_schema.model_json_schema()
    assert {"order_by", "doc_id"} <= set(search["properties"])
    assert search["$defs"]["OrderBy"]["properties"]["direction"]["enum"] == ["desc", "asc"]
    assert "doc_id" in tools["annotations_aggregate"].args_schema.model_json_schema()["properties"]
    assert "order_by" in tools["annotations_search"].description
    assert "year(field)" in tools["annotations_aggregate"].description
