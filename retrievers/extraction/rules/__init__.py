"""The deterministic extraction rules shipped for the buckets every database has, by bucket and field name: one
module per family of documents, each exporting `RULES` (field name -> `FieldRule`)."""

from __future__ import annotations

from retrievers.extraction.found import FieldRule
from retrievers.extraction.rules import (
    contract_clauses,
    contract_facts,
    contract_kind,
    contract_terms,
    invoices,
    receipts,
)

RULES: dict[str, dict[str, FieldRule]] = {
    "contracts": {**contract_facts.RULES, **contract_terms.RULES, **contract_kind.RULES, **contract_clauses.RULES},
    "receipts": receipts.RULES,
    "invoices": invoices.RULES,
}

RULES_VERSION = "3"
"""Bumped whenever a rule finds differently, so that `ragent extract` reads every document again; then its precision is
measured again (`python -m evals.extraction.calibration`)."""
