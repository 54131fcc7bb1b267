"""Counting extracted values against labelled ones, for every scorer under `evals/extraction`: micro precision,
recall and F1, whole-document accuracy, and the share of labels the text holds.

A scorer reduces each document's answer and labels to the values it compares (normalised, so that equal means
right) and adds them with `Tally.add`. Values are compared as multisets per document: a value predicted twice and
labelled once is one hit and one false positive. A document counts as exact when its predicted values are its
labelled ones, both empty included. What one value is belongs to the scorer, and its docstring says it (a CUAD
clause compares its whole set of values as one; a yes/no clause counts its True answers).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TypeVar

Value = TypeVar("Value", bound=Hashable)


@dataclass
class Tally:
    """Predicted values, labelled values and hits over documents, the documents exactly right, and the labels the
    text holds (for a ceiling, where a scorer can tell)."""

    hits: int = 0
    predicted: int = 0
    labelled: int = 0
    exact: int = 0
    documents: int = 0
    in_text: int = 0

    def add(self, predicted: Iterable[Hashable], gold: Iterable[Hashable], *, in_text: int = 0) -> None:
        """One document: its predicted and labelled values, and how many of those labels its text holds."""
        got, expected = Counter(predicted), Counter(gold)
        self.hits += sum((got & expected).values())
        self.predicted += sum(got.values())
        self.labelled += sum(expected.values())
        self.exact += got == expected
        self.documents += 1
        self.in_text += in_text

    def __add__(self, other: Tally) -> Tally:
        """The counts of both (fields summed into one line: `sum(tallies, Tally())`)."""
        return Tally(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    @property
    def precision(self) -> float:
        return self.hits / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.hits / self.labelled if self.labelled else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        return self.exact / self.documents if self.documents else 0.0

    @property
    def ceiling(self) -> float:
        """The share of labels the text holds: the recall a reader of the text alone could reach."""
        return self.in_text / self.labelled if self.labelled else 0.0

    def figures(self) -> dict[str, float]:
        """The figures rounded to four places, with the counts behind them (what a report stores)."""
        return {
            "accuracy": round(self.accuracy, 4),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "predicted": self.predicted,
            "labelled": self.labelled,
        }


def as_labels(predicted: Iterable[Value], labels: Sequence[Value], same: Callable[[Value, Value], bool]) -> list:
    """`predicted` with each value that `same` matches to a label written as that label, so that `Tally.add` counts
    it as a hit: for values compared loosely (a total to the cent, a string without its spaces)."""
    return [next((label for label in labels if same(value, label)), value) for value in predicted]


def print_table(title: str, rows: dict[str, dict[str, float]], seconds_per_document: float | None = None) -> None:
    """One line per key: accuracy, precision, recall, F1 and the counts behind them; then the rules' time, if given."""
    print(title)
    print(f"{'key':<16}{'acc':>8}{'P':>8}{'R':>8}{'F1':>8}{'pred':>7}{'gold':>7}")
    for key, figures in rows.items():
        print(
            f"{key:<16}{figures['accuracy']:>8.3f}{figures['precision']:>8.3f}{figures['recall']:>8.3f}"
            f"{figures['f1']:>8.3f}{figures['predicted']:>7}{figures['labelled']:>7}"
        )
    if seconds_per_document is not None:
        print(f"seconds per document (all rules): {seconds_per_document:.4f}")
