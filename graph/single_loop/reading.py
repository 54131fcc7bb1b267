"""The question as the model's annotation call read it: the decomposition the answer describes.

The rules read the question first (no model call), and that reading shapes the answer and the grading. In the
single loop, though, the model chooses what is searched: its annotation call is its reading of the question in the
index's fields, and it may differ from the rules' (another field, another value, a condition left out). A figure's
derivation, a table's columns, a clarification's options and an export are all drawn from the decomposition, so it
is revised to what the model called: the answer then says what was counted, never what the rules thought should be.
"""

from __future__ import annotations

from graph.decomposition import Constraint, Decomposition, OrderBy
from graph.schemas import ToolCall
from tools.arguments import AnnotationsAggregateArgs, AnnotationsSearchArgs
from tools.envelope import Envelope

AS_CALLED = "(the model's call)"


def as_called(d: Decomposition, call: AnnotationsAggregateArgs | AnnotationsSearchArgs) -> Decomposition:
    """`d` with the bucket, conditions, documents and aggregate (or order) of `call`. What the rules read for another
    bucket (fields to show, the unit field, words they could not match there) no longer applies."""
    same_bucket = d.buckets == [call.bucket]
    update = {
        "buckets": [call.bucket],
        "constraints": [
            Constraint(bucket=call.bucket, field=field, op=c.op, value=c.value, bounds=c.bounds, source_text=AS_CALLED)
            for field, c in call.predicates.items()
        ],
        "doc_ids": call.doc_id or [],
    }
    if not same_bucket:
        update |= {"show_fields": [], "unit_field": None, "unmapped": []}
    if isinstance(call, AnnotationsAggregateArgs):
        intent = "count" if call.aggregate == "count" else "sum"
        update |= {"intent": intent, "aggregate": call.aggregate, "group_by": call.group_by, "order_by": None}
    else:
        order = OrderBy(field=call.order_by.field, direction=call.order_by.direction) if call.order_by else None
        intent = d.intent if d.intent in ("list", "lookup") else "list"
        update |= {"intent": intent, "aggregate": None, "group_by": [], "order_by": order}
    return d.model_copy(update=update)


def answering_call(results: list[tuple[ToolCall, Envelope]]) -> AnnotationsAggregateArgs | AnnotationsSearchArgs | None:
    """The annotation call among a step's `results` that an answer is computed from, as the rules' compose picks
    it: the first aggregate with a total, else the first search that ran (a refused call read nothing)."""
    ran = [(call, envelope) for call, envelope in results if envelope.status != "invalid_request"]
    for call, envelope in ran:
        if call.tool == "annotations_aggregate" and envelope.total:
            return AnnotationsAggregateArgs.model_validate(call.arguments)
    for call, _ in ran:
        if call.tool == "annotations_search":
            return AnnotationsSearchArgs.model_validate(call.arguments)
    return None
