"""Precision, recall and F1 of one extracted field, counted over a dataset's documents."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class FieldCounts:
    """Counts of one field over a split: predictions, labels, correct predictions, labels found in the text."""

    predicted: int = 0
    labelled: int = 0
    correct: int = 0
    in_text: int = 0

    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 0.0

    def recall(self) -> float:
        return self.correct / self.labelled if self.labelled else 0.0

    def f1(self) -> float:
        p, r = self.precision(), self.recall()
        return 2 * p * r / (p + r) if p + r else 0.0

    def ceiling(self) -> float:
        return self.in_text / self.labelled if self.labelled else 0.0

    def add(self, other: FieldCounts) -> None:
        self.predicted += other.predicted
        self.labelled += other.labelled
        self.correct += other.correct
        self.in_text += other.in_text
