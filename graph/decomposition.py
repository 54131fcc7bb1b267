"""`Decomposition`: what a question asks, in the terms of the index (buckets, catalog fields, operators, values).

Produced by a planner's decompose step (rules or a chat model) and read by every later node. Constraints carry
the words of the question they came from, so a clarification or an explanation can point at them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from english.lexicon import STOPWORDS
from retrievers.postgres.annotation_filters import Bounds, Op, Predicate

NAME_PREFIXES = frozenset({"anti", "non", "no"})
"""Words of a yes/no clause's name that its text does not repeat: anti_assignment says "may not assign"."""

Intent = Literal["list", "count", "sum", "lookup", "qa", "summarize", "compare"]
STRUCTURED_INTENTS = ("list", "count", "sum")
"""Questions whose answer is a figure or a list of documents: only annotations can give one. They never fall back
to passages, which would look like an answer and are not one; when the annotations cannot answer, the run asks."""


class Constraint(BaseModel):
    """A condition on one annotation field of one bucket, and the words that asked for it."""

    bucket: str
    field: str
    op: Op
    value: Any = None
    bounds: Bounds = "[]"
    source_text: str = ""

    def predicate(self) -> Predicate:
        return Predicate(field=self.field, op=self.op, value=self.value, bounds=self.bounds)

    def condition(self) -> dict[str, Any]:
        """As a tool's predicates take it: {op, value}, and the bounds of a range that excludes an end."""
        return {"op": self.op, "value": self.value, **({"bounds": self.bounds} if self.bounds != "[]" else {})}


class OrderBy(BaseModel):
    """The order a superlative asks for: the rows by `field`, largest first (desc) or smallest first (asc)."""

    field: str
    direction: Literal["asc", "desc"] = "desc"


class Candidate(BaseModel):
    """A value the index holds that words of the question may have meant; for a yes/no field, its Yes, with what
    the field means (`about`: its description)."""

    field: str
    value: str | bool
    about: str | None = None

    def said(self) -> str:
        """The candidate as an answer would state it: "parties = 'Acme'", "insurance = yes (when a party must ...)"."""
        if isinstance(self.value, bool):
            return f"{self.field} = {'yes' if self.value else 'no'}" + (f" ({self.about})" if self.about else "")
        return f"{self.field} = {self.value!r}"


class Unmapped(BaseModel):
    """Words of the question that look like a condition but name nothing in the index, with the nearest values it
    holds: a count, sum or list cannot be computed without them, so the run asks instead of guessing. `why` says
    what the index lacks when that is more than a value (a currency the amounts are not recorded in, a word no
    document holds)."""

    text: str
    nearest: list[Candidate] = Field(default_factory=list)
    why: str | None = None


class NamedDocument(BaseModel):
    """A document a name of the question matches, as a clarification offers it: its title (or file name) and the
    values that tell it apart from the others offered (a date, a kind, its parties)."""

    doc_id: str
    bucket: str
    title: str | None = None
    values: dict[str, str] = Field(default_factory=dict)


class Several(BaseModel):
    """A name the question says of the one document it asks about ("the contract with Dialog Semiconductor"), which
    several documents match: `by` title (or file name), by their text, or by a value of a name field (a party). The
    run asks which (`graph.planners.reading.which`); `documents` are the first of them, `matched` how many match (at
    least, when `more`)."""

    name: str
    by: Literal["title", "text", "value"]
    matched: int
    more: bool = False
    documents: list[NamedDocument]


class CatalogRead(BaseModel):
    """A read of the index's content a planner made while reading the question, outside the run's tool budget:
    which bucket's content is closest to the question (`closeness`, one semantic search per bucket), how many
    chunks hold some words (`text_hits`, one keyword count) or which documents hold a word of a name
    (`documents_holding`, one keyword search). `searches`: the searches it runs, which the budget
    counts (`AgentContext.max_catalog_reads`). `answer` is what came back, "unknown" when the decomposition's budget
    was spent and the read was not made."""

    read: Literal["closeness", "text_hits", "documents_holding"]
    bucket: str | None = None
    words: str
    filters: dict[str, Any] | None = None
    searches: int = 1
    answer: Any = None
    ms: float = 0.0


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
    order_by: OrderBy | None = Field(default=None, description="For a superlative: the rows in this order")
    limit: int | None = Field(
        default=None,
        ge=1,
        description="Rows (or, for grouped figures, groups) the question asks for: 1 for 'the biggest'",
    )
    unit_field: str | None = Field(
        default=None,
        description="The field holding the unit of the summed amounts when it varies (an invoice's currency): "
        "figures are per unit, never added across units",
    )
    doc_ids: list[str] = Field(default_factory=list, description="Documents the question names by id")
    checks: list[Constraint] = Field(
        default_factory=list,
        description="For a yes/no question about the documents it names ('Is the Quaker agreement governed by "
        "Delaware law?'): the conditions it asks whether they meet; looked up in those documents and answered yes "
        "or no with their values, never used to select them",
    )
    unmapped: list[Unmapped] = Field(
        default_factory=list, description="Words that look like a condition but name nothing in the index"
    )
    unheld: list[str] = Field(
        default_factory=list,
        description="What a question for text asks about ('about cryptocurrency payments') that holds a word no "
        "document holds: only a passage close in meaning answers it (set by the checks, not a model)",
    )
    listed_by_text: bool = Field(
        default=False,
        description="Documents asked for in words no field records ('which contracts are losing us money?'), "
        "searched as text: the passages quoted are no complete list of them (set by the rules, not a model)",
    )
    several: Several | None = Field(
        default=None,
        description="When the question asks about one document by a name several documents share: those documents, "
        "for the run to ask which (set by the rules, not a model)",
    )
    follow_up_of: str | None = Field(
        default=None,
        description="The conversation's previous question when this one refines its result ('which of those...'); "
        "null when the question stands alone",
    )
    catalog_reads: list[CatalogRead] = Field(
        default_factory=list,
        description="Reads of the index's content made while reading the question (set by the planner, not a model)",
    )

    @property
    def reads_unmade(self) -> int:
        """Reads the decomposition's budget left unmade (their answer unknown)."""
        return sum(r.answer == "unknown" for r in self.catalog_reads)

    @property
    def searches(self) -> int:
        """The searches of the index's content the reads made (a closeness read makes one per bucket)."""
        return sum(r.searches for r in self.catalog_reads if r.answer != "unknown")

    def predicates(self, bucket: str) -> dict[str, dict[str, Any]]:
        """The constraints of `bucket` in the tools' `{field: {op, value}}` form."""
        return {c.field: c.condition() for c in self.constraints if c.bucket == bucket}

    def clause_words(self) -> list[list[str]]:
        """For each yes/no clause the question names or checks, the words a passage about it holds: the question's
        own ("assignment"), or the clause's name ("acquired" names change_of_control, whose section a contract
        heads "Change of Control"), less the prefixes a clause's text does not repeat ("anti", "non")."""
        said = [c for c in (*self.constraints, *self.checks) if isinstance(c.value, bool)]
        named = [[w for w in c.field.split("_") if w not in STOPWORDS | NAME_PREFIXES] for c in said]
        return [words for words in [*(c.source_text.lower().split() for c in said), *named] if words]
