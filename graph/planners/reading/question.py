"""`Question`: a question's text as the readers read it, with its English read once (quantities, dates, relative
dates) and where its words name buckets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

from english.dates import DateRange, date_ranges, relative_dates
from english.quantities import Quantity, quantities
from graph.planners.vocabulary import Mention


@dataclass
class Question:
    """`text` with its spaces made single, `lowered` in lower case with hyphens between letters as spaces (the same
    length, so spans are shared); `today` for relative dates; `bucket_words` every word of every bucket of the scope;
    `mentions` the buckets its words name, with where (set once the buckets are read)."""

    text: str
    today: date
    bucket_words: set[str] = field(default_factory=set)
    mentions: list[tuple[str, list[Mention]]] = field(default_factory=list)

    @classmethod
    def of(cls, question: str, today: date, bucket_words: set[str]) -> Question:
        return cls(" ".join(question.split()), today, bucket_words)

    @cached_property
    def lowered(self) -> str:
        return re.sub(r"(?<=[a-z])-(?=[a-z])", " ", self.text.lower())

    @cached_property
    def quantities(self) -> tuple[Quantity, ...]:
        return tuple(quantities(self.lowered))

    @cached_property
    def dates(self) -> tuple[DateRange, ...]:
        return tuple(date_ranges(self.lowered))

    @cached_property
    def relative_dates(self) -> tuple[DateRange, ...]:
        return tuple(relative_dates(self.lowered, self.today))

    def mentions_of(self, bucket: str) -> list[Mention]:
        """Where the words name `bucket`."""
        return [m for name, ms in self.mentions for m in ms if name == bucket]

    @property
    def mention_spans(self) -> list[tuple[int, int]]:
        return [m.span for _, ms in self.mentions for m in ms]
