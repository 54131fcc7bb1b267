"""The search tools and the document reads, on the sample corpus and on real CUAD and SROIE data.

search_text, search_semantic and fused_search: exact identifiers and paraphrases found, weak matches flagged,
filters (annotation predicates, author, tags, dates) applied, snippets centred, bounded and free of markup, and a
hint when nothing matched; get_document_metadata and get_document with its bounded body.
"""

from __future__ import annotations

import json
import re

from tests.conftest import SHARED_DATA
from tests.tool_calls.conftest import SROIE_RECEIPTS, _cuad_subset, _ids, call

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
