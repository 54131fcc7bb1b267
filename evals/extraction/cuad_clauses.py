"""CUAD's clause and term fields read by the deterministic rules, scored against the loader's typed labels.

Gold is what `retrievers.loaders.cuad` puts in each contract's `properties` row; the text the rules read is the
loader's document body. Each field's prediction is the set of values its rule returned, compared with the set of
gold values (a single value is a set of one):

- an absent label is an empty set: "the lawyers gave no value". A rule that returns nothing there is right (it
  counts for accuracy), and one that returns a value there is wrong (it counts against precision). So a rule that
  reads "5 years from the Effective Date" as a date when the label holds none is penalised, as a user would be
  misled by it.
- yes/no clauses: precision, recall and F1 of the True class (a False or no answer on a "Yes" contract is a miss).
- dates, durations, types: exact match of the set. Precision is over documents where the rule answered, recall
  over documents with a gold value.

`score("tune")` is for tuning (310 contracts); `score("held_out")` (the fixed 200 of `cuad_held_out`) is for
reported figures only. `python -m evals.extraction.cuad_clauses --split tune|held_out` prints the table and the
seconds per document that all the rules together took.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from evals.extraction import cuad_held_out
from retrievers.extraction.found import FieldRule
from retrievers.extraction.rules import contract_clauses, contract_kind, contract_terms
from retrievers.loaders import cuad, dataset_path

RULES: dict[str, FieldRule] = {**contract_terms.RULES, **contract_kind.RULES, **contract_clauses.RULES}


@dataclass
class FieldScore:
    """Counts for one field over one split."""

    documents: int = 0
    correct: int = 0
    answered: int = 0
    answered_correct: int = 0
    labelled: int = 0
    labelled_correct: int = 0
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0
    boolean: bool = False

    @property
    def accuracy(self) -> float:
        return self.correct / self.documents if self.documents else 0.0

    @property
    def precision(self) -> float:
        if self.boolean:
            return _ratio(self.true_positive, self.true_positive + self.false_positive)
        return _ratio(self.answered_correct, self.answered)

    @property
    def recall(self) -> float:
        if self.boolean:
            return _ratio(self.true_positive, self.true_positive + self.false_negative)
        return _ratio(self.labelled_correct, self.labelled)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


@cache
def contracts() -> tuple[tuple[str, str, dict[str, Any]], ...]:
    """(contract id, body, typed labels) of all 510 contracts, read once per process."""
    rows = []
    for source in cuad.load(dataset_path("cuad")):
        labels = source.annotations[0].row if source.annotations else {}
        rows.append((source.document.doc_id, source.document.body, labels))
    return tuple(rows)


def split_contracts(split: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The contracts of `split`: 'held_out' (the fixed 200) or 'tune' (the other 310)."""
    if split not in ("tune", "held_out"):
        raise ValueError(f"split must be 'tune' or 'held_out', not {split!r}")
    everything = contracts()
    held_out = cuad_held_out([contract_id for contract_id, _, _ in everything])
    return [row for row in everything if (row[0] in held_out) == (split == "held_out")]


def as_set(value: Any) -> frozenset:
    """A label or a rule's values as a set: absent is empty, a list is its members, anything else one member."""
    if value is None:
        return frozenset()
    return frozenset(value) if isinstance(value, list) else frozenset([value])


def score(split: str) -> tuple[dict[str, FieldScore], float]:
    """Per-field scores over `split`, and the seconds per document all rules together took."""
    scores = {field: FieldScore(boolean=cuad_field_is_boolean(field)) for field in RULES}
    rows = split_contracts(split)
    elapsed = 0.0
    for _, body, labels in rows:
        for field, rule in RULES.items():
            started = time.perf_counter()
            predicted = frozenset(found.value for found in rule(body))
            elapsed += time.perf_counter() - started
            _count(scores[field], predicted, as_set(labels.get(field)))
    return scores, elapsed / max(len(rows), 1)


def _count(counts: FieldScore, predicted: frozenset, gold: frozenset) -> None:
    right = predicted == gold
    counts.documents += 1
    counts.correct += right
    counts.answered += bool(predicted)
    counts.answered_correct += bool(predicted) and right
    counts.labelled += bool(gold)
    counts.labelled_correct += bool(gold) and right
    said_true, is_true = True in predicted, True in gold
    counts.true_positive += said_true and is_true
    counts.false_positive += said_true and not is_true
    counts.false_negative += is_true and not said_true


def cuad_field_is_boolean(field: str) -> bool:
    return any(spec.name == field and spec.type == "boolean" for spec in cuad.FIELDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "held_out"), default="tune")
    split = parser.parse_args().split
    scores, seconds = score(split)
    print(f"CUAD {split}: {len(split_contracts(split))} contracts")
    print(f"{'field':30} {'acc':>6} {'prec':>6} {'rec':>6} {'F1':>6} {'answered':>9} {'labelled':>9}")
    for field, s in scores.items():
        labelled = s.true_positive + s.false_negative if s.boolean else s.labelled
        print(
            f"{field:30} {s.accuracy:6.3f} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f} {s.answered:9d} {labelled:9d}"
        )
    print(f"seconds per document (all rules): {seconds:.4f}")


if __name__ == "__main__":
    main()
