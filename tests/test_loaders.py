"""The loaders: real-data facts from each dataset's SOURCE.md, the sample corpus, and a user's folder of files."""

from __future__ import annotations

import difflib
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from core.errors import InvalidInput
from core.models import FieldSpec, SourceDocument
from retrievers.loaders import (
    DATASETS,
    cuad,
    field_specs,
    files,
    hotpotqa,
    invoices,
    kleister_nda,
    sample,
    scifact,
    sroie,
)
from retrievers.loaders.files import Skipped
from tests.conftest import shared_dataset

DEFAULT_BUCKETS = {"contracts", "invoices", "receipts", "datasheets", "certificates", "generic"}


def _fits(spec: FieldSpec, value) -> bool:
    """Whether a row value has the type (and single or multi shape) its field declares."""
    if isinstance(value, list) != spec.multi:
        return False
    for item in value if spec.multi else [value]:
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


# --- the sample corpus ----------------------------------------------------------------------------------


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


# --- a user's folder ----------------------------------------------------------------------------------


def _text_pdf(text: str) -> bytes:
    """A one-page PDF whose page draws `text` in Helvetica: the smallest file with a real text layer."""
    content = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return pdf + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


@pytest.fixture
def folder(tmp_path) -> Path:
    """A folder with one good file of each kind and one bad file of each kind that must be skipped."""
    root = tmp_path / "docs"
    (root / "notes").mkdir(parents=True)
    (root / "a.txt").write_text("Plain text about the warehouse.\n")
    (root / "notes" / "b.md").write_text("Some intro\n# Quarterly review\nRevenue grew.\n")
    (root / "list.json").write_text(
        json.dumps(
            [
                {
                    "id": "memo-1",
                    "title": "Memo",
                    "text": "Memo text",
                    "author": "ann",
                    "tags": ["hr"],
                    "created_at": "2024-01-02",
                    "annotations": [{"kind": "properties", "row": {"topic": "budget"}}],
                },
                {"body": "A document without an id"},
            ]
        )
    )
    (root / "lines.jsonl").write_text('{"doc_id": "l1", "text": "line one"}\n{broken\n{"doc_id": "l3"}\n')
    (root / "report.pdf").write_bytes(_text_pdf("Annual safety report"))
    (root / "scan.pdf").write_bytes(_text_pdf("").replace(b"() Tj", b""))
    (root / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    (root / "empty.txt").write_text("  \n")
    (root / "binary.txt").write_bytes(b"\x00\x01\x02 abc")
    (root / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (root / "broken.json").write_text('{"text": ')
    (root / "photo.png").write_bytes(b"\x89PNG\r\n")
    (root / ".hidden.txt").write_text("not a document")
    return root


def test_folder_loads_good_files_and_reports_bad_ones(folder, caplog):
    items = list(files.load(folder, bucket="notes"))
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")]
    assert not logged, "a damaged file is said once, by its skip reason, not by pypdf's log lines on stderr too"
    loaded = {item.document.doc_id: item for item in items if isinstance(item, SourceDocument)}
    skipped = {item.path: item.reason for item in items if isinstance(item, Skipped)}
    assert set(loaded) == {"a.txt", "notes/b.md", "memo-1", "list.json#2", "l1", "report.pdf"}
    assert set(skipped) == {
        "lines.jsonl:2",
        "lines.jsonl:3",
        "scan.pdf",
        "corrupt.pdf",
        "empty.txt",
        "binary.txt",
        "latin1.txt",
        "broken.json",
        "photo.png",
    }
    assert "no text layer" in skipped["scan.pdf"] and "OCR" in skipped["scan.pdf"]
    assert "UTF-8" in skipped["latin1.txt"] and "binary" in skipped["binary.txt"] and "empty" in skipped["empty.txt"]
    assert "not valid JSON" in skipped["broken.json"] and "unsupported" in skipped["photo.png"]
    assert "Annual safety report" in loaded["report.pdf"].document.body
    assert loaded["notes/b.md"].document.title == "Quarterly review"
    memo = loaded["memo-1"]
    assert (memo.document.author, memo.document.tags, memo.document.created_at.date()) == (
        "ann",
        ["hr"],
        date(2024, 1, 2),
    )
    assert memo.annotations[0].row == {"topic": "budget"}
    assert all(item.document.bucket == "notes" for item in loaded.values())


def test_folder_limit_counts_documents_not_skips(folder):
    items = list(files.load(folder, limit=2))
    assert sum(isinstance(item, SourceDocument) for item in items) == 2


def test_folder_duplicate_doc_id_is_skipped(folder):
    (folder / "z.jsonl").write_text('{"doc_id": "memo-1", "text": "another memo"}\n')
    skipped = [item for item in files.load(folder) if isinstance(item, Skipped)]
    assert any(item.path == "z.jsonl:1" and "already used by list.json#1" in item.reason for item in skipped)


def test_annotations_file_rows_are_attached(folder, tmp_path):
    annotations = tmp_path / "labels.jsonl"
    annotations.write_text(
        json.dumps(
            {
                "doc_id": "a.txt",
                "kind": "properties",
                "row": {"site": "Newark", "pallets": 12},
                "raw": {"pallets": "12"},
            }
        )
        + "\n"
        + json.dumps({"doc_id": "memo-1", "row": {"approved": True}})
        + "\n"
    )
    loaded = {
        i.document.doc_id: i for i in files.load(folder, annotations_file=annotations) if isinstance(i, SourceDocument)
    }
    assert [a.row for a in loaded["a.txt"].annotations] == [{"site": "Newark", "pallets": 12}]
    assert [a.row for a in loaded["memo-1"].annotations] == [{"topic": "budget"}, {"approved": True}]


def test_annotations_file_inside_the_folder_is_not_a_document(folder):
    annotations = folder / "labels.jsonl"
    annotations.write_text(json.dumps({"doc_id": "a.txt", "row": {"site": "Newark"}}) + "\n")
    items = list(files.load(folder, annotations_file=annotations))
    assert not any(getattr(item, "path", "").startswith("labels.jsonl") for item in items)
    assert not any(
        isinstance(item, SourceDocument) and item.document.doc_id.startswith("labels.jsonl") for item in items
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"doc_id": "a.txt", "row": ', "labels.jsonl:2: not valid JSON"),
        ('{"doc_id": "nope.txt", "row": {"x": 1}}', "labels.jsonl:2: doc_id 'nope.txt' is not a document"),
        ('{"row": {"x": 1}}', "labels.jsonl:2: missing 'doc_id' or 'row'"),
        ('{"doc_id": "a.txt", "row": {"bad name": 1}}', "labels.jsonl:2: .*not valid"),
        ('{"doc_id": "a.txt", "row": {"total": NaN}}', "labels.jsonl:2: not valid JSON \\(NaN is not a finite number"),
        ('{"doc_id": "a.txt", "row": {"total": 1e400}}', "labels.jsonl:2: not valid JSON \\(1e400 is not a finite"),
    ],
)
def test_bad_annotations_file_raises_before_any_document(folder, tmp_path, line, message):
    annotations = tmp_path / "labels.jsonl"
    annotations.write_text(json.dumps({"doc_id": "a.txt", "row": {"ok": 1}}) + "\n" + line + "\n")
    with pytest.raises(InvalidInput, match=message):
        files.load(folder, annotations_file=annotations)  # raises on the call, before iteration


def test_folder_and_bucket_are_checked_on_the_call(tmp_path):
    with pytest.raises(InvalidInput, match="is not a folder"):
        files.load(tmp_path / "missing")
    with pytest.raises(InvalidInput, match="bucket 'Bad Bucket'"):
        files.load(tmp_path, bucket="Bad Bucket")
