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
    learned_clauses,
    receipts,
)

RULES: dict[str, dict[str, FieldRule]] = {
    "contracts": {**contract_facts.RULES, **contract_terms.RULES, **contract_kind.RULES, **contract_clauses.RULES},
    "receipts": receipts.RULES,
    "invoices": invoices.RULES,
}

LEARNED_BUCKET = "contracts"
"""The bucket whose yes/no clauses have learned decisions (`learned_clauses`)."""


def rules_of(
    bucket: str, learned: learned_clauses.LearnedClauses = learned_clauses.WITHOUT_VECTORS
) -> dict[str, FieldRule]:
    """`bucket`'s rules, with the learned clause decisions that `learned` can serve (those reading vectors only
    with an embedder they were learned from) in place of the regex rules they beat, or for clauses without one."""
    if bucket != LEARNED_BUCKET:
        return RULES.get(bucket, {})
    return {**RULES[bucket], **learned.rules}


RULES_VERSION = "19"
"""Bumped whenever a rule finds differently, so that `ragent extract` reads every document again; then its precision is
measured again (`python -m evals.extraction.calibration`). Retraining the learned clauses
(`python -m evals.extraction.clause_training`) rewrites their weights: bump it then too."""
