"""`Decomposition`: what a question asks, in the terms of the index (buckets, catalog fields, operators, values).

Produced by a planner's decompose step (rules or a chat model) and read by every later node. Constraints carry
the words of the question they came from, so a clarification or an explanation can point at them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from retrievers.annotation_filters import Op, Predicate

Intent = Literal["list", "count", "sum", "lookup", "qa", "summarize", "compare"]


class Constraint(BaseModel):
    """A condition on one annotation field of one bucket, and the words that asked for it."""

    bucket: str
    field: str
    op: Op
    value: Any = None
    source_text: str = ""

    def predicate(self) -> Predicate:
        return Predicate(field=self.field, op=self.op, value=self.value)


class Decomposition(BaseModel):
    question: str
    intent: Intent
    buckets: list[str] = Field(min_length=1)
    constraints: list[Constraint] = Field(default_factory=list)
    topic_terms: list[str] = Field(
        default_factory=list, description="Content words left once constraints are taken out"
    )
    sub_queries: list[str] = Field(default_factory=list)
    aggregate: str | None = Field(
        default=None, description="For count and sum questions: count, sum(field), avg(field), min(field), max(field)"
    )
    group_by: list[str] = Field(default_factory=list)
    show_fields: list[str] = Field(
        default_factory=list,
        description="Fields the answer should show besides the constrained ones (what a lookup asks for)",
    )

    def predicates(self, bucket: str) -> dict[str, dict[str, Any]]:
        """The constraints of `bucket` in the tools' `{field: {op, value}}` form."""
        return {c.field: {"op": c.op, "value": c.value} for c in self.constraints if c.bucket == bucket}
