"""annotations_search and annotations_aggregate: structured questions answered from Postgres alone."""

from __future__ import annotations

from retrievers.extraction.calibration import measured_on, rule_precision
from retrievers.postgres.annotation_aggregates import parse_aggregate, parse_group
from retrievers.postgres.annotation_filters import Predicate, shown
from tools.arguments import (
    AnnotationsAggregateArgs,
    AnnotationsSearchArgs,
    to_predicates,
)
from tools.context import ToolContext
from tools.envelope import AggregateGroup, AggregateTotal, AnnotationHit, Coverage, Envelope, RowMetadata
from tools.guard import require_bucket

_POSTGRES = "Postgres (annotations)"


def _among(doc_ids: list[str] | None) -> str:
    """The document restriction as a no_results hint names it, so that a model asking about named documents learns
    that those documents have no such row (their ids or bucket may be wrong), not that the bucket has none."""
    return f" among documents {shown(doc_ids)}" if doc_ids else ""


def _coverage(
    context: ToolContext,
    bucket: str,
    predicates: list[Predicate],
    measured: list[str],
    grouped: list[str],
    doc_ids: list[str] | None,
) -> Coverage:
    """The call's `Coverage`: one cheap statement (`coverage` of the store), never one per field or row. A document
    must have a value for the fields of the predicates and the measured field to be counted, except for the fields
    a predicate asks to have none (`missing`)."""
    unrecorded = [p.field for p in predicates if p.op == "missing"]
    required = [*(p.field for p in predicates if p.op != "missing"), *measured]
    fields = list(dict.fromkeys([*required, *grouped, *unrecorded]))
    found = context.engine(_POSTGRES, context.stack.store.coverage, context.scope, bucket, fields, doc_ids=doc_ids)
    missing = found["missing"]
    extracted = {f: k for f, k in found["extracted"].items() if k}
    right = {f: round(100 * p) for f in extracted if (p := rule_precision(bucket, f)) is not None}
    return Coverage(
        documents=found["documents"],
        missing={f: missing[f] for f in dict.fromkeys(required)},
        ungrouped={f: missing[f] for f in grouped},
        unannotated=found["unannotated"],
        extracted=extracted,
        by_model={f: k for f, k in found["by_model"].items() if k},
        rules_right_percent=right,
        rules_measured_on=measured_on(bucket) if right else "",
        unrecorded={f: missing[f] for f in dict.fromkeys(unrecorded)},
    )


def _rowless(coverage: Coverage, predicates: list[Predicate], matched: int) -> None:
    """A call asking only for the documents with no value for one field finds the rows that lack it; a document
    with no row of the field's kind at all lacks it too, and is said to be left out (`unannotated`)."""
    only_missing = bool(predicates) and {p.op for p in predicates} == {"missing"}
    if coverage.unannotated is None and only_missing and len(coverage.unrecorded) == 1:
        coverage.unannotated = max(0, next(iter(coverage.unrecorded.values())) - matched)


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
    ordered = [args.order_by.field] if args.order_by else []  # a row with no value for it is never the extreme
    coverage = _coverage(context, args.bucket, predicates, ordered, [], args.doc_id)
    _rowless(coverage, predicates, rows[0]["total_rows"] if rows else 0)
    if not rows:
        described = ", ".join(f"{p.field} {p.op} {shown(p.value)}" for p in predicates) or "no predicates"
        return Envelope(
            status="no_results",
            hint=f"no annotation row in {args.bucket!r}{_among(args.doc_id)} has {described}; loosen a predicate "
            "(e.g. '~' instead of '='), check the field's example values, or search the text",
            coverage=coverage,
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
    return Envelope(
        status="ok",
        hits=hits,
        total_hits=rows[0]["total_rows"],
        total_is_lower_bound=rows[0]["more_rows"],
        coverage=coverage,
    )


def annotations_aggregate(args: AnnotationsAggregateArgs, context: ToolContext) -> Envelope:
    require_bucket(context, args.bucket)
    predicates = to_predicates(args.predicates)
    _, measured = parse_aggregate(args.aggregate)
    grouped = [parse_group(entry)[0] for entry in args.group_by]
    coverage = _coverage(context, args.bucket, predicates, [measured] if measured else [], grouped, args.doc_id)
    if not predicates and not measured and not grouped:
        # a count with no condition needs no field, nor a query of the rows: every document of the bucket, with
        # annotation rows or not ("how many documents are in generic?" counted the rows, 0 of 11)
        groups, total = [], AggregateTotal(documents=coverage.documents, value=coverage.documents)
        coverage.unannotated = 0
    else:
        groups, found = context.engine(
            _POSTGRES,
            context.stack.store.aggregate,
            context.scope,
            args.bucket,
            predicates,
            args.aggregate,
            args.group_by,
            doc_ids=args.doc_id,
        )
        total = AggregateTotal.model_validate(found)
        if not predicates and not measured and coverage.unannotated is None:
            # a count of every row (of the group fields' kind): the documents it does not count have no such row
            coverage.unannotated = max(0, coverage.documents - total.documents)
    _rowless(coverage, predicates, total.documents)
    if total.documents == 0:
        return Envelope(
            status="no_results",
            total=total,
            coverage=coverage,
            hint=f"no document in {args.bucket!r}{_among(args.doc_id)} matches the predicates; loosen them",
        )
    return Envelope(
        status="ok",
        hits=[AggregateGroup.model_validate(g) for g in groups],
        total_hits=len(groups),
        total=total,
        coverage=coverage,
    )
