"""invoice2data's 12 sample invoices scored field by field against the invoices rules (bucket `invoices`).

`python -m evals.extraction.invoices`. Twelve invoices make a smoke test, not a benchmark: one document is eight
points of recall on a field. There is no split; every figure is on all twelve, and the rules were written with
these invoices in view, so the figure says the rules run and read these layouts, not how they do on unseen ones.

Matching: dates exactly (ISO), amounts to the cent; invoice numbers and issuers as strings with whitespace removed
and case ignored; VAT numbers by their letters and digits only (the label's "7740001454" is the printed
"774-00-01-454"); currencies by ISO code. Every distinct value a rule returns counts as one prediction.
"""

from __future__ import annotations

import argparse
import re
import time
from functools import partial
from pathlib import Path
from typing import Any

from evals.extraction.tally import Tally, as_labels
from retrievers.extraction.rules.invoices import RULES
from retrievers.loaders import shared_data_dir
from retrievers.loaders.invoices import SHARED_FOLDER, load

FIELD_NAMES = list(RULES)
_NOT_ALNUM_RE = re.compile(r"[^0-9A-Za-z]")
_WHITESPACE_RE = re.compile(r"\s+")


def same_value(name: str, predicted: Any, label: Any) -> bool:
    """Whether a predicted value is the label's, compared as the module docstring says."""
    if name == "amount":
        return abs(float(predicted) - float(label)) < 0.005
    if name == "vat":
        return _NOT_ALNUM_RE.sub("", str(predicted)).upper() == _NOT_ALNUM_RE.sub("", str(label)).upper()
    if name in ("issuer", "invoice_number", "currency"):
        return _WHITESPACE_RE.sub("", str(predicted)).lower() == _WHITESPACE_RE.sub("", str(label)).lower()
    return predicted == label


def score(folder: Path | None = None) -> tuple[dict[str, Tally], list[tuple[str, str, Any, Any]], float]:
    """Counts by field over the twelve invoices, the wrong or missing values, and the rules' seconds per invoice."""
    counts = {name: Tally() for name in FIELD_NAMES}
    errors: list[tuple[str, str, Any, Any]] = []
    elapsed, invoices = 0.0, 0
    for source in load(folder or shared_data_dir() / SHARED_FOLDER):
        invoices += 1
        labels = next((row.row for row in source.annotations if row.kind == "properties"), {})
        started = time.perf_counter()
        found = {name: RULES[name](source.document.body) for name in FIELD_NAMES}
        elapsed += time.perf_counter() - started
        for name in FIELD_NAMES:
            predicted = list(dict.fromkeys(f.value for f in found[name]))
            label = labels.get(name)
            gold = [] if label in (None, "") else [label]
            matched = as_labels(predicted, gold, partial(same_value, name))
            counts[name].add(matched, gold)
            if (predicted and not gold) or (gold and label not in matched):
                errors.append((source.document.doc_id, name, predicted, label if gold else None))
    return counts, errors, elapsed / invoices if invoices else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="also print every wrong, missing or extra value")
    args = parser.parse_args()
    counts, errors, seconds = score()
    if args.errors:
        for doc_id, name, predicted, label in errors:
            print(f"{doc_id} {name:<14} predicted {predicted!r} label {label!r}")
    print("invoice2data samples (12 invoices; a smoke figure)")
    print(f"{'field':<15} {'P':>6} {'R':>6} {'F1':>6} {'labels':>7}")
    for name, field in [*counts.items(), ("all", sum(counts.values(), Tally()))]:
        print(f"{name:<15} {field.precision:6.3f} {field.recall:6.3f} {field.f1:6.3f} {field.labelled:7d}")
    print(f"rules: {seconds * 1000:.2f} ms per invoice")


if __name__ == "__main__":
    main()
