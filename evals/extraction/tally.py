"""Counting extracted values against labelled ones: micro precision, recall and F1, and whole-document accuracy.

Values are compared as multisets per document (a value predicted twice and labelled once is one hit and one false
positive). A document counts as exact when its predicted values are its labelled ones, both empty included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Tally:
    """Hits, false positives and misses over documents, and how many documents came out exactly right."""

    hits: int = 0
    false_positives: int = 0
    misses: int = 0
    exact: int = 0
    documents: int = 0

    def add(self, predicted: Iterable[str], gold: Iterable[str]) -> None:
        got, expected = Counter(predicted), Counter(gold)
        hits = sum((got & expected).values())
        self.hits += hits
        self.false_positives += sum(got.values()) - hits
        self.misses += sum(expected.values()) - hits
        self.exact += got == expected
        self.documents += 1

    def figures(self) -> dict[str, float]:
        predicted, labelled = self.hits + self.false_positives, self.hits + self.misses
        precision = self.hits / predicted if predicted else 0.0
        recall = self.hits / labelled if labelled else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        accuracy = self.exact / self.documents if self.documents else 0.0
        return {
            "accuracy": round(accuracy, 4),
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "predicted": predicted,
            "labelled": labelled,
        }


def print_table(title: str, rows: dict[str, dict[str, float]], seconds_per_document: float) -> None:
    """One line per key: accuracy, precision, recall, F1 and the counts behind them."""
    print(title)
    print(f"{'key':<16}{'acc':>8}{'P':>8}{'R':>8}{'F1':>8}{'pred':>7}{'gold':>7}")
    for key, figures in rows.items():
        print(
            f"{key:<16}{figures['accuracy']:>8.3f}{figures['precision']:>8.3f}{figures['recall']:>8.3f}"
            f"{figures['f1']:>8.3f}{figures['predicted']:>7}{figures['labelled']:>7}"
        )
    print(f"seconds per document (all rules): {seconds_per_document:.4f}")
