"""How often each shipped rule's values are right, measured on labelled documents the rules were not tuned on, and
written beside the rules
(`retrievers/extraction/precision.json`), where extraction reads it as the confidence of every value a rule
finds and an answer resting on such values says it.

A field's figure is the precision its scorer reports on the split held out from tuning (the tuning splits flatter
the rules: CUAD's non-compete is 0.79 there, 0.6 held out): for a value, the share of the documents it was given
for whose labels hold it; for a yes/no clause, the share of its Yes answers the labels agree with (how often "has a
non-compete" is right; a No is not measured). Contracts: CUAD held-out (200 contracts) for every CUAD field,
Kleister-NDA dev (83 NDAs) for the term; receipts: SROIE test (347). The invoices' rules have only 12 labelled
samples, so they get no figure.

`python -m evals.extraction.calibration` measures and writes the file (about a minute on two cores, and a few more
the first time, while the learned clauses' candidate sentences are embedded into `RAGENT_CACHE_DIR`); run it whenever
`RULES_VERSION` is bumped: the file names the version it was measured for, and a test holds the two together.
"""

from __future__ import annotations

import json

from evals.extraction import cuad_clauses, cuad_facts, kleister, sroie
from retrievers.extraction.calibration import PRECISION_FILE
from retrievers.extraction.rules import RULES_VERSION

MEASURED_ON = {
    "contracts": "CUAD's labelled contracts",
    "receipts": "SROIE's labelled receipts",
}


def measured() -> dict:
    """Every calibrated field's precision by bucket, to two places (the splits are a few hundred documents)."""
    clauses, _ = cuad_clauses.score("held_out")
    facts = cuad_facts.score("held-out")
    contracts = {name: tallies.figures()["precision"] for name, tallies in clauses.items()}
    contracts |= {name: facts[name]["precision"] for name in cuad_facts.FIELDS}
    contracts["term_days"] = kleister.score("dev")["term"]["precision"]
    receipts = {name: tally.precision for name, tally in sroie.score("test").fields.items()}
    return {
        "rules_version": RULES_VERSION,
        "measured_on": MEASURED_ON,
        "precision": {
            "contracts": {name: round(p, 2) for name, p in sorted(contracts.items())},
            "receipts": {name: round(p, 2) for name, p in sorted(receipts.items())},
        },
    }


def main() -> None:
    PRECISION_FILE.write_text(json.dumps(measured(), indent=2) + "\n")
    print(f"wrote {PRECISION_FILE}")


if __name__ == "__main__":
    main()
