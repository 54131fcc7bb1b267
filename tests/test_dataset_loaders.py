"""The dataset loaders: the registry and the fields each dataset declares, and real-data facts from each dataset's
SOURCE.md (CUAD, Kleister-NDA, SROIE, invoice2data, the BEIR corpora), read from ../shared/data.

The row checks here (`_assert_rows_match_fields`, `_row`) are imported by tests/test_sample_corpus.py too.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from core.errors import InvalidInput
from core.models import FieldSpec, SourceDocument
from retrievers.loaders import (
    DATASETS,
    cuad,
    field_specs,
    hotpotqa,
    invoices,
    kleister_nda,
    scifact,
    sroie,
)
from tests.conftest import shared_dataset

DEFAULT_BUCKETS = {"contracts", "invoices", "receipts", "datasheets", "certificates", "generic"}


LABELLED_ONE_OF_SEVERAL = {"contract_type"}
"""Multi-valued fields the datasets label with one value: CUAD files each contract under one kind, where the rules
give every kind its title names (`retrievers.extraction.rules.contract_kind`)."""


def _fits(spec: FieldSpec, value) -> bool:
    """Whether a row value has the type (and single or multi shape) its field declares."""
    if isinstance(value, list) != spec.multi and not (spec.name in LABELLED_ONE_OF_SEVERAL and spec.multi):
        return False
    for item in value if isinstance(value, list) else [value]:
        if spec.type == "boolean" and not isinstance(item, bool):
            return False
        if spec.type == "integer" and (isinstance(item, bool) or not isinstance(item, int)):
            return False
        if spec.type == "number" and (isinstance(item, bool) or not isinstance(item, (int, float))):
            return False
        if spec.type in ("string", "date") and not isinstance(item, str):
            return False
        if spec.type == "date":
            date.fromisoformat(item)
    return True


def _assert_rows_match_fields(documents: list[SourceDocument], fields_by_bucket: dict[str, list[FieldSpec]]) -> None:
    for source in documents:
        specs = {spec.name: spec for spec in fields_by_bucket[source.document.bucket]}
        for annotation in source.annotations:
            for name, value in annotation.row.items():
                assert name in specs, f"{source.document.doc_id}: field {name!r} is not declared in FIELDS"
                assert _fits(specs[name], value), f"{source.document.doc_id}: {name}={value!r} is not a {specs[name]}"


def _row(source: SourceDocument, kind: str = "properties") -> dict:
    return next(annotation for annotation in source.annotations if annotation.kind == kind).row


# --- the registry -------------------------------------------------------------------------------------


def test_registry_names_every_dataset_and_describes_the_six_buckets():
    assert set(DATASETS) == {"cuad", "kleister_nda", "sroie", "invoices", "scifact", "hotpotqa", "sample"}
    for name in DATASETS:
        assert set(field_specs(name)) <= DEFAULT_BUCKETS
    # A wrong folder name would make the real-data tests below skip instead of fail.
    folders = {name: module.SHARED_FOLDER for name, module in DATASETS.items()}
    assert folders == {
        "cuad": "cuad",
        "kleister_nda": "kleister_nda",
        "sroie": "sroie",
        "invoices": "invoice2data_samples",
        "scifact": "scifact",
        "hotpotqa": "hotpotqa",
        "sample": None,
    }


def test_field_names_are_unique_within_each_bucket():
    for name in DATASETS:
        for bucket, specs in field_specs(name).items():
            names = [spec.name for spec in specs]
            assert len(names) == len(set(names)), f"{name}/{bucket} declares a field twice"


def test_datasets_feeding_one_bucket_agree_on_shared_fields():
    """Type, description and vocabulary alike: a bucket's specs are recorded per field, so two datasets that differed
    would each rewrite them on ingest and mark every catalog of the bucket stale."""
    declared: dict[tuple[str, str], tuple[FieldSpec, str]] = {}
    for name in DATASETS:
        for bucket, specs in field_specs(name).items():
            for spec in specs:
                first, by = declared.setdefault((bucket, spec.name), (spec, name))
                assert first == spec, f"{bucket}.{spec.name}: {name} disagrees with {by}"


def test_every_declared_field_says_what_users_call_it():
    declared = [(bucket, spec) for name in DATASETS for bucket, specs in field_specs(name).items() for spec in specs]
    for bucket, spec in declared:
        assert spec.aliases, f"{bucket}.{spec.name} has no aliases"
        # The unit field is one the bucket has (in some dataset: the sample's invoice lines have no `unit`).
        assert spec.unit_field in ("", *(s.name for b, s in declared if b == bucket)), f"{bucket}.{spec.name}"


def _vocabulary(dataset: str, bucket: str) -> dict[str, FieldSpec]:
    return {spec.name: spec for spec in field_specs(dataset)[bucket]}


def test_roles_and_units_of_the_shipped_fields():
    specs = {bucket: _vocabulary("sample", bucket) for bucket in DEFAULT_BUCKETS} | {
        "kleister": _vocabulary("kleister_nda", "contracts")
    }
    roles = {(bucket, f.name): f.role for bucket, fields in specs.items() for f in fields.values() if f.role}
    assert roles == {
        ("contracts", "parties"): "name",
        ("kleister", "parties"): "name",
        ("receipts", "company"): "name",
        ("receipts", "address"): "text",
        ("receipts", "total"): "money",
        ("invoices", "issuer"): "name",
        ("invoices", "customer"): "name",
        ("invoices", "invoice_number"): "identifier",
        ("invoices", "vat"): "identifier",
        ("invoices", "code"): "identifier",
        ("invoices", "currency"): "currency",
        ("invoices", "description"): "text",
        **{
            ("invoices", money): "money"
            for money in ("amount", "amount_tax", "amount_untaxed", "subtotal", "unit_price")
        },
        ("datasheets", "manufacturer"): "name",
        ("datasheets", "part_number"): "identifier",
        ("certificates", "holder"): "name",
        ("certificates", "issuer"): "name",
        ("certificates", "certificate_number"): "identifier",
        ("certificates", "scope"): "text",
    }
    invoice = _vocabulary("invoices", "invoices")
    assert (invoice["partner_name"].role, invoice["note"].role) == ("name", "text")
    assert {f.unit_field for f in invoice.values() if f.role == "money"} == {"currency"}
    assert (specs["receipts"]["total"].unit, specs["receipts"]["total"].unit_field) == ("", "")
    days = [f for fields in specs.values() for f in fields.values() if f.name.endswith("_days")]
    assert {f.name for f in days} == {"notice_period_days", "renewal_term_days", "term_days"}
    assert all(f.unit == "days" for f in days)
    assert "governing law" in specs["kleister"]["governing_law"].aliases


@pytest.mark.parametrize("name", ["cuad", "kleister_nda", "sroie", "invoices", "scifact", "hotpotqa"])
def test_every_dataset_loader_honours_limit(name):
    module = DATASETS[name]
    documents = list(module.load(shared_dataset(module.SHARED_FOLDER), limit=3))
    assert len(documents) == 3
    assert all(source.document.bucket == module.BUCKET for source in documents)


def test_a_missing_dataset_file_is_reported_with_its_path(tmp_path):
    with pytest.raises(InvalidInput, match="derived_contracts.jsonl not found"):
        cuad.load(tmp_path)


# --- CUAD ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cuad_documents() -> list[SourceDocument]:
    return list(cuad.load(shared_dataset("cuad")))


def test_cuad_has_510_contracts_with_one_properties_row_each(cuad_documents):
    assert len(cuad_documents) == 510
    assert cuad_documents[0].document.doc_id == "cuad_000" and cuad_documents[-1].document.doc_id == "cuad_509"
    assert all([a.kind for a in source.annotations] == ["properties"] for source in cuad_documents)
    assert all(source.document.body.strip() for source in cuad_documents)


def test_cuad_rows_match_the_declared_fields(cuad_documents):
    _assert_rows_match_fields(cuad_documents, {cuad.BUCKET: cuad.FIELDS})


def test_cuad_governing_law_new_york(cuad_documents):
    laws = [_row(source).get("governing_law", []) for source in cuad_documents]
    assert sum(law == ["New York"] for law in laws) == 97  # SOURCE.md: "New York 97"
    # Two more name New York beside another law ("Illinois; New York"); both values are kept.
    assert sum("New York" in law for law in laws) == 99


def test_cuad_yes_no_counts_match_source(cuad_documents):
    rows = [_row(source) for source in cuad_documents]
    assert sum(row["anti_assignment"] for row in rows) == 374
    assert sum(row["cap_on_liability"] for row in rows) == 275
    assert sum(row["source_code_escrow"] for row in rows) == 13
    assert sum(row.get("perpetual") is True for row in rows) == 66  # 66 "perpetual"/"Perpetual"


def test_cuad_notice_periods_parse(cuad_documents):
    labelled = [source.annotations[0] for source in cuad_documents if "notice_period_days" in source.annotations[0].raw]
    parsed = [row for row in labelled if "notice_period_days" in row.row]
    assert len(labelled) == 101  # 510 - 409 empty
    assert len(parsed) == 100  # the other one is "[]"
    thirty_days = [row for row in parsed if row.raw["notice_period_days"] == "30 days"]
    assert len(thirty_days) == 26 and all(row.row["notice_period_days"] == [30] for row in thirty_days)
    six_months = [row for row in parsed if row.raw["notice_period_days"] in ("6 months", "(6) months")]
    assert len(six_months) == 14 and all(row.row["notice_period_days"] == [180] for row in six_months)


def test_cuad_multi_valued_cell_keeps_every_value(cuad_documents):
    rows = {
        row.raw["notice_period_days"]: row.row["notice_period_days"]
        for source in cuad_documents
        for row in source.annotations
        if "notice_period_days" in row.row
    }
    assert rows["60 days; 180 days"] == [60, 180]
    assert rows["6 months; 12 months"] == [180, 365]


def test_cuad_050(cuad_documents):
    source = next(s for s in cuad_documents if s.document.doc_id == "cuad_050")
    row = _row(source)
    assert source.document.title == "MASTER SUPPLY AGREEMENT"
    assert source.document.tags == ["cuad", "Supply Agreement"]
    assert source.document.created_at == datetime(2019, 10, 31, tzinfo=UTC)
    assert row["contract_type"] == "Supply Agreement"
    assert row["agreement_date"] == row["effective_date"] == "2019-10-31"
    assert row["expiration_date"] == "2024-10-31" and row["perpetual"] is False
    assert row["renewal_term_days"] == [5 * 365]
    assert row["notice_period_days"] == [365]  # "12 months"
    assert row["governing_law"] == ["Delaware"]
    assert row["parties"] == ["Premier Nutrition Company, LLC", "Fonterra (USA) Inc."]
    assert row["anti_assignment"] is True and row["non_compete"] is False
    assert source.annotations[0].raw["notice_period_days"] == "12 months"


def test_cuad_keeps_the_raw_label_of_every_derived_field(cuad_documents):
    for source in cuad_documents:
        annotation = source.annotations[0]
        assert set(annotation.row) - {"contract_type"} <= set(annotation.raw), source.document.doc_id


def test_cuad_date_with_unknown_parts_is_no_date_but_keeps_its_label(cuad_documents):
    partial = [s for s in cuad_documents if s.annotations[0].raw.get("agreement_date") == "[]/[]/2020"]
    assert len(partial) == 5
    assert all("agreement_date" not in s.annotations[0].row and s.document.created_at is None for s in partial)


# --- Kleister-NDA -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nda_documents() -> list[SourceDocument]:
    return list(kleister_nda.load(shared_dataset("kleister_nda")))


def test_kleister_labelled_and_unlabelled_documents(nda_documents):
    assert len(nda_documents) == 540
    by_split = {split: [s for s in nda_documents if split in s.document.tags] for split in ("train", "dev-0", "test-A")}
    assert [len(docs) for docs in by_split.values()] == [254, 83, 203]
    # Every NDA says what kind of contract it is, also the test-A ones whose labels are hidden upstream.
    assert all(len(s.annotations) == 1 for s in nda_documents)
    assert all(_row(s)["contract_type"] == "Non-Disclosure Agreement" for s in nda_documents)
    assert all(_row(s) == {"contract_type": "Non-Disclosure Agreement"} for s in by_split["test-A"])
    _assert_rows_match_fields(nda_documents, {kleister_nda.BUCKET: kleister_nda.FIELDS})


def test_kleister_field_counts_match_source(nda_documents):
    annotations = [s.annotations[0] for s in nda_documents if s.annotations]
    rows = [annotation.row for annotation in annotations]
    counts = {
        name: sum(name in row for row in rows) for name in ("parties", "governing_law", "effective_date", "term_days")
    }
    # Kleister's `jurisdiction` label is the governing law: it is stored under the name CUAD and the sample use.
    assert counts == {"parties": 335, "governing_law": 332, "effective_date": 237, "term_days": 116}
    assert not any("jurisdiction" in row for row in rows)
    terms = [(a.raw["term_days"], a.row["term_days"]) for a in annotations if "term_days" in a.raw]
    assert terms.count(("2 years", 730)) == 40 and terms.count(("18 months", 545)) == 7
    assert sum(row.get("governing_law") == ["Delaware"] for row in rows) == 56
    # The labels are ISO dates: none may come out with day and month swapped.
    assert all(a.row["effective_date"] == a.raw["effective_date"] for a in annotations if "effective_date" in a.raw)


def test_kleister_example_document(nda_documents):
    source = next(s for s in nda_documents if s.document.doc_id == "031470434423a8c40105a4b404ced88b.pdf")
    assert _row(source) == {
        "contract_type": "Non-Disclosure Agreement",
        "effective_date": "2017-02-10",
        "governing_law": ["California"],
        "parties": ["Kite Pharma Inc.", "Gilead Sciences Inc."],
        "term_days": 7 * 365,
    }
    assert source.annotations[0].raw["term_days"] == "7 years"
    assert source.annotations[0].raw["governing_law"] == "California"


# --- SROIE --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def receipt_documents() -> list[SourceDocument]:
    return list(sroie.load(shared_dataset("sroie")))


def test_sroie_dates_and_totals_parse(receipt_documents):
    assert len(receipt_documents) == 973
    rows = [_row(s) for s in receipt_documents]
    assert sum("date" in row for row in rows) >= 966
    assert sum("total" in row for row in rows) == 972  # the 973rd total is empty
    assert all(
        date(2015, 1, 1) <= date.fromisoformat(row["date"]) <= date(2019, 12, 31) for row in rows if "date" in row
    )
    _assert_rows_match_fields(receipt_documents, {sroie.BUCKET: sroie.FIELDS})


def test_sroie_receipt_keeps_raw_strings_and_dates_the_document(receipt_documents):
    source = next(s for s in receipt_documents if s.document.doc_id == "X00016469612")
    annotation = source.annotations[0]
    assert annotation.row["date"] == "2018-12-25" and annotation.raw["date"] == "25/12/2018"
    assert annotation.row["total"] == 9.0 and annotation.raw["total"] == "9.00"
    assert annotation.row["company"] == "BOOK TA .K (TAMAN DAYA) SDN BHD"
    assert source.document.created_at == datetime(2018, 12, 25, tzinfo=UTC)


def test_sroie_odd_formats(receipt_documents):
    by_raw = {s.annotations[0].raw.get("date"): s.annotations[0].row.get("date") for s in receipt_documents}
    assert by_raw["12/28/2017"] == "2017-12-28"
    assert by_raw["20180304"] == "2018-03-04"
    assert by_raw["(06/12/2016)"] == "2016-12-06"
    assert by_raw["OCT 3, 2016"] == "2016-10-03"
    totals = {s.annotations[0].raw.get("total"): s.annotations[0].row.get("total") for s in receipt_documents}
    assert totals["$8.20"] == 8.2 and totals["RM 27.20"] == 27.2 and totals["1,007.50"] == 1007.5


# --- invoices -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def invoice_documents() -> list[SourceDocument]:
    return list(invoices.load(shared_dataset("invoice2data_samples")))


def test_invoices_properties_and_line_items(invoice_documents):
    assert len(invoice_documents) == 12
    _assert_rows_match_fields(invoice_documents, {invoices.BUCKET: invoices.FIELDS})
    flipkart = _row(next(s for s in invoice_documents if s.document.doc_id == "FlipkartInvoice"))
    assert flipkart["amount"] == 319.0 and flipkart["currency"] == "INR" and flipkart["date"] == "2015-10-20"
    assert flipkart["invoice_number"] == "#BLR_WFLD20151000982590"
    assert sum(len([a for a in s.annotations if a.kind == "line_item"]) for s in invoice_documents) == 33
    aws = next(s for s in invoice_documents if s.document.doc_id == "AmazonWebServices")
    assert [a.row["unit_price"] for a in aws.annotations if a.kind == "line_item"] == [0.01, 1.87, 2.22, 0.01]
    assert aws.document.author == "Amazon Web Services"


def test_invoice_section_headings_and_notes_describe_their_items(invoice_documents):
    azure = next(s for s in invoice_documents if s.document.doc_id == "AzureInterior")
    items = {a.row["description"]: a.row for a in azure.annotations if a.kind == "line_item"}
    assert len(items) == 4
    assert items["Olive Oil"]["section"] == "Food Products"
    assert items["Olive Oil"]["note"].startswith("Our Olive Oil")
    assert items["Office Chair"]["section"] == "Non Food" and "note" not in items["Office Chair"]


# --- BEIR corpora ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "count"), [(scifact, 5183), (hotpotqa, 4858)])
def test_beir_corpora_load_whole_without_annotations(module, count):
    documents = list(module.load(shared_dataset(module.SHARED_FOLDER)))
    assert len(documents) == count
    assert len({s.document.doc_id for s in documents}) == count
    assert all(s.document.bucket == "generic" and not s.annotations for s in documents)
    assert all(s.document.tags == [module.SHARED_FOLDER] for s in documents)
