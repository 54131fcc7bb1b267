"""annotations_search and annotations_aggregate: structured questions answered from Postgres alone."""

from __future__ import annotations

from retrievers.postgres.annotation_filters import shown
from tools.arguments import (
    AnnotationsAggregateArgs,
    AnnotationsSearchArgs,
    to_predicates,
)
from tools.context import ToolContext
from tools.envelope import AggregateGroup, AggregateTotal, AnnotationHit, Envelope, RowMetadata
from tools.guard import require_bucket

_POSTGRES = "Postgres (annotations)"


def _among(doc_ids: list[str] | None) -> str:
    """The document restriction as a no_results hint names it, so that a model asking about named documents learns
    that those documents have no such row (their ids or bucket may be wrong), not that the bucket has none."""
    return f" among documents {shown(doc_ids)}" if doc_ids else ""


def annotations_search(args: AnnotationsSearchArgs, context: ToolContext) -> Envelope:
    require_bucket(context, args.bucket)
    predicates = to_predicates(args.predicates)
    rows = context.engine(
        _POSTGRES,
        context.stack.store.find_annotations,
        context.scope,
        args.bucket,
        predicates,
        limit=args.top_k,
        order_by=args.order_by.field if args.order_by else None,
        descending=args.order_by is None or args.order_by.direction == "desc",
        doc_ids=args.doc_id,
    )
    if not rows:
        described = ", ".join(f"{p.field} {p.op} {shown(p.value)}" for p in predicates) or "no predicates"
        return Envelope(
            status="no_results",
            hint=f"no annotation row in {args.bucket!r}{_among(args.doc_id)} has {described}; loosen a predicate "
            "(e.g. '~' instead of '='), check the field's example values, or search the text",
        )
    hits = [
        AnnotationHit(
            doc_id=r["doc_id"],
            annotation_id=r["annotation_id"],
            row=r["row"],
            metadata=RowMetadata(title=r["title"], kind=r["kind"]),
        )
        for r in rows
    ]
    return Envelope(status="ok", hits=hits, total_hits=rows[0]["total_rows"], total_is_lower_bound=rows[0]["more_rows"])


def annotations_aggregate(args: AnnotationsAggregateArgs, context: ToolContext) -> Envelope:
    require_bucket(context, args.bucket)
    groups, total = context.engine(
        _POSTGRES,
        context.stack.store.aggregate,
        context.scope,
        args.bucket,
        to_predicates(args.predicates),
        args.aggregate,
        args.group_by,
        doc_ids=args.doc_id,
    )
    total = AggregateTotal.model_validate(total)
    if total.documents == 0:
        return Envelope(
            status="no_results",
            total=total,
            hint=f"no document in {args.bucket!r}{_among(args.doc_id)} matches the predicates; loosen them",
        )
    return Envelope(
        status="ok", hits=[AggregateGroup.model_validate(g) for g in groups], total_hits=len(groups), total=total
    )
