"""What an extraction rule returns: a typed value and the stretch of the document's text it was read from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Found:
    """One value of one field, read from `body[start:end]` (the sentence, clause or line that says it).

    `value` is typed as the field is (an ISO date string for a date, whole days for a duration, a float for an
    amount, a bool for a yes/no clause, a str otherwise), so it lands in the same row and is queried by the same
    SQL as a labelled value. A rule that reads a yes/no field from the absence of a clause returns False with
    `start == end == 0`: there is no sentence to cite, and the citation says it was not found.
    """

    value: Any
    start: int
    end: int


FieldRule = Callable[[str], list[Found]]
"""A document body in, what it says for one field out ([] when it does not say; several for a multi-valued field)."""
