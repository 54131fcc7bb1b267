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
  over documents with a gold value (`evals.extraction.tally` counts each contract's set as one value). A
  contract's kind is the first one its rule gives (the title's main kind, `MAIN_VALUE_FIRST`): CUAD files each
  contract under one kind, and the other kinds a title names ("Manufacturing and Supply Agreement") are there for
  a user's filters, not for CUAD's label.

`score("tune")` is for tuning (310 contracts); `score("held_out")` (the fixed 200 of `cuad_held_out`) is for
reported figures only. `python -m evals.extraction.cuad_clauses --split tune|held_out` prints the table and the
seconds per document that all the rules together took. The clauses with a learned decision (`learned_clauses`) are
read by it, as at ingest, with MiniLM behind the embedding cache of `RAGENT_CACHE_DIR` (a split's candidate
sentences are embedded on its first run, in minutes, and read from the cache after); `--regex` scores the regex
rules in their place.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from evals.extraction import cuad_held_out
from evals.extraction.tally import Tally
from retrievers.extraction.found import FieldRule
from retrievers.extraction.rules import contract_clauses, contract_kind, contract_terms
from retrievers.extraction.rules.learned_clauses import LearnedClauses
from retrievers.loaders import cuad, dataset_path

RULES: dict[str, FieldRule] = {**contract_terms.RULES, **contract_kind.RULES, **contract_clauses.RULES}
"""The regex rules of the fields scored here."""


MAIN_VALUE_FIRST = {"contract_type"}
"""Fields whose rule gives the main value first, the one CUAD labels; the others are not scored."""


def rules(regex: bool = False) -> dict[str, FieldRule]:
    """The fields' rules as ingest runs them (the learned clause decisions in place of the regex rules they
    replace), or the regex rules alone."""
    if regex:
        return RULES
    from core.settings import Settings
    from retrievers.engines.deferred import DeferredEmbedder
    from retrievers.engines.embedders.cache import CachedEmbedder
    from retrievers.engines.embedders.minilm import MiniLMEmbedder

    cache = Settings.from_env().cache_dir / "embeddings.sqlite"
    return {**RULES, **LearnedClauses(CachedEmbedder(DeferredEmbedder(MiniLMEmbedder), cache)).rules}


@dataclass
class FieldTallies:
    """One field over a split: `answers` compares each contract's whole set of values as one value (accuracy, and
    how many contracts the rule answered); a yes/no clause's precision, recall and F1 count its True answers
    (`true_answers`), every other field's are those of `answers`."""

    answers: Tally = field(default_factory=Tally)
    true_answers: Tally | None = None

    @property
    def scored(self) -> Tally:
        """What precision, recall and F1 are read from."""
        return self.answers if self.true_answers is None else self.true_answers

    def figures(self) -> dict[str, float]:
        return {
            **self.scored.figures(),
            "accuracy": round(self.answers.accuracy, 4),
            "answered": self.answers.predicted,
        }


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


def score(split: str, regex: bool = False) -> tuple[dict[str, FieldTallies], float]:
    """Per-field tallies over `split`, and the seconds per document all rules together took (`rules(regex)`)."""
    read_by = {name: rule for name, rule in rules(regex).items() if name not in cuad.UNLABELLED}
    tallies = {name: FieldTallies(true_answers=Tally() if cuad_field_is_boolean(name) else None) for name in read_by}
    rows = split_contracts(split)
    elapsed = 0.0
    for _, body, labels in rows:
        for name, rule in read_by.items():
            started = time.perf_counter()
            values = [found.value for found in rule(body)]
            predicted = frozenset(values[:1] if name in MAIN_VALUE_FIRST else values)
            elapsed += time.perf_counter() - started
            _count(tallies[name], predicted, as_set(labels.get(name)))
    return tallies, elapsed / max(len(rows), 1)


def _count(tallies: FieldTallies, predicted: frozenset, gold: frozenset) -> None:
    tallies.answers.add([predicted] if predicted else [], [gold] if gold else [])
    if tallies.true_answers is not None:
        tallies.true_answers.add([True] if True in predicted else [], [True] if True in gold else [])


def cuad_field_is_boolean(name: str) -> bool:
    return any(spec.name == name and spec.type == "boolean" for spec in cuad.FIELDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tune", "held_out"), default="tune")
    parser.add_argument("--regex", action="store_true", help="the regex rules in place of the learned decisions")
    args = parser.parse_args()
    split = args.split
    scores, seconds = score(split, args.regex)
    print(f"CUAD {split}: {len(split_contracts(split))} contracts")
    print(f"{'field':30} {'acc':>6} {'prec':>6} {'rec':>6} {'F1':>6} {'answered':>9} {'labelled':>9}")
    for name, tallies in scores.items():
        s = tallies.scored
        print(
            f"{name:30} {tallies.answers.accuracy:6.3f} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f} "
            f"{tallies.answers.predicted:9d} {s.labelled:9d}"
        )
    print(f"seconds per document (all rules): {seconds:.4f}")


if __name__ == "__main__":
    main()
