"""The typed outputs the nodes exchange: route, plan, tool calls, evidence, grades, decisions, clarification, answer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from retrievers.postgres.annotation_filters import Op
from tools.envelope import Envelope

RouteKind = Literal["structured", "hybrid", "long_text"]
ROUTES: tuple[RouteKind, ...] = ("structured", "hybrid", "long_text")


class Route(BaseModel):
    kind: RouteKind
    fallback_order: list[RouteKind] = Field(description="Routes still to try, in order, when this one finds too little")
    min_hits: int = Field(ge=0, description="Fewer relevant documents than this is too little")
    max_hits: int = Field(ge=1, description="More matching documents than this is too many to list")


class ToolCall(BaseModel):
    tool: str
    arguments: dict[str, Any]
    purpose: str = ""


class Plan(BaseModel):
    buckets: list[str]
    strategy: str
    calls: list[ToolCall]
    max_tool_calls: int = Field(ge=1)


class Evidence(BaseModel):
    """One executed tool call and the envelope it returned."""

    step: int
    attempt: int = Field(description="Which plan of the run made this call; review and grade look at the current one")
    route: RouteKind
    call: ToolCall
    envelope: Envelope


class GradedHit(BaseModel):
    doc_id: str
    annotation_id: str | None = None
    chunk_id: str | None = None
    relevant: bool
    why: str
    score: float | None = None
    text: str = ""
    title: str | None = None
    row: dict[str, Any] | None = None
    loose: bool = False
    """Relevant only by holding one of the question's words, in a document the question names: an answer quoting it
    says that it may not answer the question as asked."""


Action = Literal["enough", "more", "clarify", "fallback"]
ClarifyKind = Literal["no_low", "overload", "unread", "which"]
"""no_low: nothing (relevant) found or words that match nothing; overload: too many rows to list; unread: most of
the bucket was not read yet for the field a figure needs (`graph.unread_fields`, the graph's own, never a model's);
which: the question asks about one document by a name several documents share (`graph.planners.reading.which`, the
graph's own too)."""


class Decision(BaseModel):
    action: Action
    reason: str
    next_calls: list[ToolCall] = Field(default_factory=list)
    clarify_kind: ClarifyKind | None = None


Choice = Literal["narrow", "broaden", "export", "retry", "extract", "answer", "document", "all", "stop"]
"""What a reply chooses; "document" (its `value` the doc_id of a document offered) and "all" answer a "which"."""


class ClarifyOption(BaseModel):
    """One option of a clarification: `label` is for the human (document values in it are escaped Markdown), the
    other fields are the reply that picks it, with the raw value."""

    choice: Choice
    label: str
    field: str | None = None
    op: Op | None = None
    value: Any = None


class ClarifyReply(BaseModel):
    """What the human answers; validated before the run goes on. A key it does not know is refused rather than
    ignored: a misspelt "feild" would otherwise narrow by nothing the human meant."""

    model_config = ConfigDict(extra="forbid")

    choice: Choice
    field: str | None = None
    op: Op | None = None
    value: Any = None


class Citation(BaseModel):
    doc_id: str
    annotation_id: str | None = None
    chunk_id: str | None = None


Verdict = Literal["supported", "unsupported"]


class CheckedSentence(BaseModel):
    """A sentence of the answer as the verifier saw it: its citations and whether the cited evidence supports it.
    An unsupported sentence is kept here, for the record, and left out of the answer's text."""

    text: str
    citations: list[Citation] = Field(default_factory=list)
    verdict: Verdict
    problems: list[str] = Field(default_factory=list, description="Why it is unsupported, one reason each")


class Answer(BaseModel):
    format: Literal["table", "figure", "prose", "export", "stopped"]
    text: str
    composed_by: Literal["rules", "extractive", "model"] = Field(
        default="rules",
        description="Who wrote the text: code from the envelopes (rules), evidence sentences picked by code "
        "(extractive), or the chat model, checked by code (model)",
    )
    sentences: list[CheckedSentence] = Field(
        default_factory=list, description="The sentences of an extractive or written answer, with their verdicts"
    )
    notes: list[str] = Field(
        default_factory=list, description="How the answer came about when it is not the first one tried"
    )
    value: float | None = None
    rows: list[dict[str, Any]] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    export_path: str | None = Field(
        default=None, description="The exported CSV, relative to the data home (exports/export-….csv)"
    )
