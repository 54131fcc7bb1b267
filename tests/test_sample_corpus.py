"""The shipped sample corpus: six buckets of annotated documents, the same every time, with the traps the tests and
evals rely on (long documents, identifiers in the text, paraphrases, near duplicates, totals that add up)."""

from __future__ import annotations

import difflib

import pytest

from core.models import SourceDocument
from retrievers.loaders import sample
from tests.test_dataset_loaders import DEFAULT_BUCKETS, _assert_rows_match_fields, _row


@pytest.fixture(scope="module")
def sample_documents() -> list[SourceDocument]:
    return list(sample.load())


def test_sample_covers_the_six_buckets_with_annotated_documents(sample_documents):
    assert 36 <= len(sample_documents) <= 48
    assert {s.document.bucket for s in sample_documents} == DEFAULT_BUCKETS
    assert len({s.document.doc_id for s in sample_documents}) == len(sample_documents)
    for source in sample_documents:
        assert source.annotations, source.document.doc_id
        assert source.document.author and source.document.tags and source.document.created_at
        assert SourceDocument.model_validate(source.model_dump()) == source
    _assert_rows_match_fields(sample_documents, sample.FIELDS)


def test_sample_is_the_same_every_time(sample_documents):
    assert [s.content_hash() for s in sample.load()] == [s.content_hash() for s in sample_documents]


def test_sample_small_limit_still_covers_every_bucket():
    assert {s.document.bucket for s in sample.load(limit=6)} == DEFAULT_BUCKETS


def test_sample_has_documents_longer_than_one_chunk(sample_documents):
    # 1,500 characters of English is well over 256 word-piece tokens (about 4 to 5 characters a token).
    assert sum(len(s.document.body) > 1500 for s in sample_documents) >= 12


def test_sample_identifiers_appear_verbatim_in_the_text(sample_documents):
    for source in sample_documents:
        row = _row(source)
        for field in ("invoice_number", "part_number", "certificate_number"):
            if field in row:
                assert row[field] in source.document.body
        for item in (a.row for a in source.annotations if a.kind == "line_item"):
            assert item["code"] in source.document.body


def test_sample_paraphrased_notice_periods_share_one_value(sample_documents):
    by_id = {s.document.doc_id: s for s in sample_documents}
    sixty_days, two_months = by_id["sample-contract-001"], by_id["sample-contract-009"]
    assert "sixty (60) days' prior written notice" in sixty_days.document.body
    assert "two months' notice" in two_months.document.body
    assert _row(sixty_days)["notice_period_days"] == _row(two_months)["notice_period_days"] == [60]


def test_sample_near_duplicates_differ_only_a_little(sample_documents):
    by_id = {s.document.doc_id: s.document.body for s in sample_documents}
    for original, copy in [
        ("sample-contract-001", "sample-contract-008"),
        ("sample-invoice-003", "sample-invoice-008"),
        ("sample-certificate-001", "sample-certificate-007"),
    ]:
        ratio = difflib.SequenceMatcher(None, by_id[original], by_id[copy]).ratio()
        assert 0.9 < ratio < 1.0, (original, copy, ratio)


def test_sample_invoice_totals_add_up(sample_documents):
    for source in (s for s in sample_documents if s.document.bucket == "invoices"):
        row = _row(source)
        lines = [a.row for a in source.annotations if a.kind == "line_item"]
        assert row["amount"] == pytest.approx(row["amount_untaxed"] + row["amount_tax"])
        assert row["amount_untaxed"] == pytest.approx(sum(line["subtotal"] for line in lines))
        assert f"{row['amount']:,.2f}" in source.document.body


def test_sample_datasheet_parameters(sample_documents):
    resistor = next(s for s in sample_documents if _row(s).get("part_number") == "NWC-RES-10K-0603")
    parameters = {a.row["parameter"]: a.row for a in resistor.annotations if a.kind == "parameter"}
    assert parameters["resistance"]["value"] == 10000 and parameters["resistance"]["unit"] == "ohm"
    assert parameters["operating temperature"]["min"] == -55 and parameters["operating temperature"]["max"] == 155


def test_sample_certificates_are_valid_for_a_period(sample_documents):
    rows = [_row(s) for s in sample_documents if s.document.bucket == "certificates"]
    assert {"ISO 9001:2015", "ISO 14001:2015"} <= {row["standard"] for row in rows}
    assert any(row["standard"].startswith("CE") for row in rows) and any(
        row["standard"].startswith("RoHS") for row in rows
    )
    assert all(row["valid_from"] < row["valid_until"] for row in rows if "valid_until" in row)
    assert sum(row.get("valid_until", "9999") < "2024-01-01" for row in rows) == 1  # one has expired by then
