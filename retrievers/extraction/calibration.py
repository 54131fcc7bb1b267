"""How often a shipped rule's values are right where labels can tell: its precision on labelled documents of its
bucket's datasets that the rules were not tuned on (`python -m evals.extraction.calibration` measures it and writes
`precision.json`).

It is the confidence stored with every value a rule finds, and what an answer resting on such values says of them:
a figure over clauses the rules read right four times in five must not read as if it rested on labels.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

PRECISION_FILE = Path(__file__).with_name("precision.json")


class Calibration(NamedTuple):
    rules_version: str
    measured_on: dict[str, str]
    precision: dict[str, dict[str, float]]


@cache
def calibration() -> Calibration:
    return Calibration(**json.loads(PRECISION_FILE.read_text()))


def rule_precision(bucket: str, field: str, value: Any = True) -> float | None:
    """The share of `field`'s values the rules of `bucket` got right on labelled documents; None where nothing
    measured it (a bucket without a tuning split, or a yes/no clause's No, which is not measured)."""
    if value is False:
        return None
    return calibration().precision.get(bucket, {}).get(field)


def measured_on(bucket: str) -> str:
    """What the precision of `bucket`'s rules was measured on ("CUAD's labelled contracts")."""
    return calibration().measured_on.get(bucket, "labelled documents")
