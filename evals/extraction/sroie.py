"""SROIE task 3 (key information extraction) scored as entity F1 over the receipts rules (bucket `receipts`).

`python -m evals.extraction.sroie --split train|test`: tune on train (626 receipts), report on test (347).

How a prediction is matched, and why:
- The ICDAR 2019 competition report (Huang et al., 2019, task 3 protocol) counts an extracted value as correct when
  its content and its field both match the ground truth, then micro-averages precision, recall and F1 over every
  field of every receipt. The official scorer ran on the RRC site and was never published beside the data, so its
  string normalisation could not be read here; SROIE's own labels differ from the printed text mostly in spaces
  ("BOOK TA .K(TAMAN DAYA)" printed, "BOOK TA .K (TAMAN DAYA)" typed), so strings are compared with all whitespace
  removed and case kept (`same_text`). The stricter reading, strings compared with only their ends stripped, is
  printed beside it (`--strict` prints its whole table).
- `date` and `total` are typed by the loader (an ISO date, a float) and the rules return those types, so they match
  when the typed values are equal: "25/12/2018" and "25-12-2018" are the same purchase date, and a label typed as
  "$9.00" is the printed "9.00". That is looser than a character-for-character comparison only where the label's
  format differs from the print, which the text cannot settle anyway.
- Every distinct value a rule returns counts as one prediction; a label counts once. A receipt without a label for a
  field contributes only its predictions (one receipt has no address, one an empty total).

The ceiling: labels were typed from the image, the rules read the OCR, so some labels cannot be produced from the
text at all. `ceiling` is the share of labels whose raw string, whitespace removed, occurs in the OCR text with
whitespace removed (a company split over two OCR lines still occurs). It is a string ceiling: a date label typed in
another format than the print ("25032018" for "25/03/2018") falls outside it though its typed value can be read, so
date recall may pass it.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from evals.extraction.tally import Tally, as_labels
from retrievers.extraction.rules.receipts import RULES
from retrievers.loaders import shared_data_dir
from retrievers.loaders.common import read_jsonl
from retrievers.loaders.sroie import FIELDS, SHARED_FOLDER, load

FIELD_NAMES = [spec.name for spec in FIELDS]
TEXT_FIELDS = {spec.name for spec in FIELDS if spec.type == "string"}
_WHITESPACE_RE = re.compile(r"\s+")


def same_text(predicted: str, label: str, *, strict: bool = False) -> bool:
    """Whether a predicted string is the label: whitespace removed (the default), or only the ends stripped."""
    if strict:
        return predicted.strip() == label.strip()
    return _WHITESPACE_RE.sub("", predicted) == _WHITESPACE_RE.sub("", label)


def same_value(name: str, predicted: Any, label: Any, *, strict: bool = False) -> bool:
    """Whether a predicted value is the label's: strings by `same_text`, a total to the cent, a date exactly."""
    if name in TEXT_FIELDS:
        return same_text(str(predicted), str(label), strict=strict)
    if name == "total":
        return abs(float(predicted) - float(label)) < 0.005
    return predicted == label


@dataclass
class Score:
    """A split's counts by field, the wrong predictions (for tuning) and the rules' time per receipt."""

    split: str
    strict: bool
    receipts: int = 0
    seconds_per_receipt: float = 0.0
    fields: dict[str, Tally] = field(default_factory=lambda: {name: Tally() for name in FIELD_NAMES})
    errors: list[tuple[str, str, Any, Any]] = field(default_factory=list)

    def overall(self) -> Tally:
        return sum(self.fields.values(), Tally())


def score(split: str, *, strict: bool = False, folder: Path | None = None) -> Score:
    """Run every receipts rule over one SROIE split ("train" or "test") and count matches against its labels."""
    folder = folder or shared_data_dir() / SHARED_FOLDER
    raw_labels = {r["receipt_id"]: r["entities"] for r in read_jsonl(folder / "derived_receipts.jsonl")}
    result = Score(split=split, strict=strict)
    elapsed = 0.0
    for source in load(folder):
        document = source.document
        if split not in document.tags:
            continue
        result.receipts += 1
        labels = source.annotations[0].row if source.annotations else {}
        started = time.perf_counter()
        found = {name: RULES[name](document.body) for name in FIELD_NAMES}
        elapsed += time.perf_counter() - started
        squeezed_text = _WHITESPACE_RE.sub("", document.body)
        for name in FIELD_NAMES:
            predicted = list(dict.fromkeys(f.value for f in found[name]))
            label = labels.get(name)
            gold = [] if label in (None, "") else [label]
            matched = as_labels(predicted, gold, partial(same_value, name, strict=strict))
            raw = _WHITESPACE_RE.sub("", str(raw_labels[document.doc_id].get(name) or ""))
            result.fields[name].add(matched, gold, in_text=bool(gold and raw and raw in squeezed_text))
            if gold and label not in matched:
                result.errors.append((document.doc_id, name, predicted, label))
    result.seconds_per_receipt = elapsed / result.receipts if result.receipts else 0.0
    return result


def table(result: Score) -> str:
    """The small table `main` prints: precision, recall, F1 and the ceiling per field and over all fields."""
    rows = [f"SROIE {result.split} ({result.receipts} receipts, {'strict' if result.strict else 'whitespace removed'})"]
    rows.append(f"{'field':<9} {'P':>6} {'R':>6} {'F1':>6} {'ceiling':>8}")
    for name, counts in [*result.fields.items(), ("all", result.overall())]:
        rows.append(f"{name:<9} {counts.precision:6.3f} {counts.recall:6.3f} {counts.f1:6.3f} {counts.ceiling:8.3f}")
    rows.append(f"rules: {result.seconds_per_receipt * 1000:.2f} ms per receipt")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test"), default="train")
    parser.add_argument("--strict", action="store_true", help="compare strings with only their ends stripped")
    parser.add_argument("--errors", action="store_true", help="also print every wrong or missing value")
    args = parser.parse_args()
    result = score(args.split, strict=args.strict)
    if args.errors:
        for doc_id, name, predicted, label in result.errors:
            print(f"{doc_id} {name:<8} predicted {predicted!r} label {label!r}")
    print(table(result))
    if not args.strict:
        strict = score(args.split, strict=True).overall()
        print(f"strict (strings compared with only their ends stripped): all F1 {strict.f1:.3f}")


if __name__ == "__main__":
    main()
