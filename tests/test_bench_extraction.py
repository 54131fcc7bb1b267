"""`ragent bench --only extraction`: the report's tables from a small made-up result, and the section's name on the
command line (no data and no engines needed)."""

from __future__ import annotations

from cli.parser import build_parser
from evals.bench_extraction import markdown, target


def _figures(f1: float, target_f1: float | None, **extra: float) -> dict:
    counts = {"accuracy": 0.5, "precision": 0.9, "recall": 0.8, "f1": f1, "predicted": 9, "labelled": 10}
    return {**counts, "target": target_f1, **extra}


REPORT = {
    "date": "2026-11-27",
    "machine": {
        "processor": "AMD EPYC 7B13",
        "cores": 2,
        "vector_flags": ["avx2"],
        "embedder": "minilm float32",
        "why": "no bfloat16",
    },
    "datasets": {
        "kleister": {
            "title": "Kleister-NDA",
            "split": "dev",
            "documents": 83,
            "seconds_per_document": 0.006,
            "fields": {"all": _figures(0.812, 0.80), "party": _figures(0.7, None)},
            "anchors": {"LayoutLMv1": 0.77, "LayoutLMv2": 0.80},
        },
        "sroie": {
            "title": "SROIE",
            "split": "test",
            "documents": 347,
            "seconds_per_document": 0.0016,
            "fields": {"all": _figures(0.85, 0.90, ceiling=0.95)},
            "anchors": {},
        },
    },
    "throughput": {
        "sroie": {
            "bucket": "receipts",
            "rules": 4,
            "documents": 347,
            "documents_per_second": 1100.0,
            "mean_ms": 0.9,
            "max_ms": 14.0,
        }
    },
    "ingest": {
        "cuad": {
            "bucket": "contracts",
            "documents": 40,
            "chunks": 1500,
            "values_extracted": 500,
            "documents_extracted": 40,
            "ingest_seconds_per_document": 4.1,
            "extraction_seconds_per_document": 0.031,
            "added": 0.0076,
            "target": 0.25,
        }
    },
}


def test_the_report_has_a_table_per_dataset_with_its_targets_and_anchors():
    text = markdown(REPORT)
    assert "AMD EPYC 7B13" in text and "avx2" in text and "2026-11-27" in text
    assert "### Kleister-NDA, dev (83 documents" in text
    assert "| all | 0.900 | 0.800 | 0.812 | 0.500 | 9 | 10 | >= 0.80 met |" in text
    assert "| party | 0.900 | 0.800 | 0.700 | 0.500 | 9 | 10 |  |" in text
    assert "Published F1 for comparison: LayoutLMv1 0.770, LayoutLMv2 0.800." in text
    assert "| all | 0.900 | 0.800 | 0.850 | 0.500 | 9 | 10 | 0.950 | >= 0.90 missed |" in text, "SROIE has a ceiling"
    assert "| sroie | receipts | 4 | 347 | 1100 | 0.90 | 14.0 |" in text
    assert "| cuad | contracts | 40 | 1500 | 500 | 4.100 | 0.0310 | 0.8% | <= 25% met |" in text


def test_targets_are_set_where_the_issue_sets_them():
    assert target("kleister", "all") == 0.80 and target("kleister", "party") is None
    assert target("sroie", "all") == 0.90
    assert target("cuad_facts", "governing_law") == 0.95
    assert target("cuad_facts", "agreement_date") == target("cuad_clauses", "expiration_date") == 0.85
    assert target("cuad_clauses", "audit_rights") == 0.80
    assert target("cuad_clauses", "perpetual") is None and target("invoices", "all") is None


def test_the_command_line_accepts_the_extraction_section():
    args = build_parser().parse_args(["bench", "--only", "extraction"])
    assert args.only == ["extraction"]
