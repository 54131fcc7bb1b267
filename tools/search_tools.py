"""search_text, search_semantic and fused_search: one filter resolution, three engines.

Annotation predicates in `filters` are resolved in Postgres to the documents they match, and those ids go into
the engine query as a pre-filter (a `doc_id` any-of filter), so the engines never return a document the
predicates exclude and `top_k` is filled from matching documents only.
"""

from __future__ import annotations

from collections.abc import Callable

from core.errors import InvalidInput
from core.models import SearchFilter
from retrievers.postgres.annotation_filters import shown
from retrievers.search import Retriever, SearchHit
from tools.arguments import (
    FusedSearchArgs,
    SearchArgs,
    SearchSemanticArgs,
    SearchTextArgs,
    to_predicates,
)
from tools.confidence import low_confidence_threshold
from tools.context import ToolContext
from tools.envelope import Envelope, PassageHit, PassageMetadata
from tools.guard import require_bucket
from tools.snippets import snippet


def resolve_filters(args: SearchArgs, context: ToolContext) -> SearchFilter | None:
    """The engine filter for these arguments in the caller's scope; None when the predicates match nothing."""
    f = args.filter
    if f is not None and f.bucket is not None and f.bucket != args.bucket:
        raise InvalidInput(f"bucket is {args.bucket!r} but filter.bucket is {f.bucket!r}; give the bucket once")
    require_bucket(context, args.bucket)
    doc_ids = set(f.doc_id) if f is not None and f.doc_id else None
    if args.doc_id is not None:
        doc_ids = {args.doc_id} & doc_ids if doc_ids is not None else {args.doc_id}
    if args.filters:
        matching = context.engine(
            "Postgres (annotations)",
            context.stack.store.matching_doc_ids,
            context.scope,
            args.bucket,
            to_predicates(args.filters),
        )
        if len(matching) > context.limits.max_prefilter_documents:
            raise InvalidInput(
                f"the annotation filters match {len(matching)} documents, "
                f"more than {context.limits.max_prefilter_documents} "
                "can be pushed into a search; add a narrower predicate"
            )
        doc_ids = set(matching) & doc_ids if doc_ids is not None else set(matching)
    if doc_ids is not None and not doc_ids:
        return None
    return SearchFilter(
        scope=context.scope,
        bucket=args.bucket,
        doc_ids=sorted(doc_ids) if doc_ids is not None else None,
        authors=f.author if f else None,
        tags=f.tags if f else None,
        created_after=f.created_after if f else None,
        created_before=f.created_before if f else None,
    )


def _hit(hit: SearchHit, query: str, context_chars: int) -> PassageHit:
    return PassageHit(
        doc_id=hit.doc_id,
        chunk_id=hit.chunk_id,
        score=round(hit.score, 4),
        snippet=snippet(hit.text, query, context_chars),
        metadata=PassageMetadata(
            title=hit.title,
            bucket=hit.bucket,
            author=hit.author,
            tags=hit.tags,
            created_at=hit.created_at.date().isoformat() if hit.created_at else None,
            chars=(hit.start, hit.end),
        ),
    )


def _no_results(args: SearchArgs, tool: str) -> Envelope:
    narrowing = [
        what
        for what, on in (("doc_id", args.doc_id), ("filter", args.filter), ("annotation filters", args.filters))
        if on
    ]
    tries = {
        "search_text": "search_semantic for other wordings",
        "search_semantic": "search_text for exact names or numbers",
        "fused_search": "another bucket",
    }[tool]
    widen = f"drop or loosen {', '.join(narrowing)}, or try " if narrowing else "try "
    return Envelope(
        status="no_results", hint=f"nothing in bucket {args.bucket!r} matched {shown(args.query)}; {widen}{tries}"
    )


def _matching(
    args: SearchArgs, context: ToolContext, engine: str, search: Callable[..., list[SearchHit]]
) -> tuple[SearchFilter | None, list[SearchHit]]:
    """The resolved filter and the engine's hits for it (none when the annotation filters match no document)."""
    filters = resolve_filters(args, context)
    return filters, (context.engine(engine, search, args.query, filters, args.top_k) if filters is not None else [])


def _found(hits: list[SearchHit], args: SearchArgs, total_hits: int) -> Envelope:
    return Envelope(status="ok", hits=[_hit(h, args.query, args.context_chars) for h in hits], total_hits=total_hits)


def search_text(args: SearchTextArgs, context: ToolContext) -> Envelope:
    filters, hits = _matching(args, context, "the keyword index", Retriever(context.stack).keyword)
    if not hits:
        return _no_results(args, "search_text")
    total = context.engine("the keyword index", context.stack.keyword.count, filters, args.query)
    return _found(hits, args, total_hits=max(total, len(hits)))


def search_semantic(args: SearchSemanticArgs, context: ToolContext) -> Envelope:
    _, hits = _matching(args, context, "the vector index", Retriever(context.stack).semantic)
    hits = [h for h in hits if args.min_score is None or h.score >= args.min_score]
    if not hits:
        return _no_results(args, "search_semantic")
    envelope = _found(hits, args, total_hits=len(hits))
    threshold = low_confidence_threshold(context.stack.embedder.model_name)
    if threshold is not None and hits[0].score < threshold:
        envelope.status = "low_confidence"
        envelope.hint = (
            f"the best match scores {hits[0].score:.2f}, below {threshold:.2f} where matches are usually relevant; "
            "the bucket may not hold the answer: try search_text, another bucket, or ask the user"
        )
    return envelope


def fused_search(args: FusedSearchArgs, context: ToolContext) -> Envelope:
    _, hits = _matching(args, context, "the keyword and vector indexes", Retriever(context.stack).fused)
    if not hits:
        return _no_results(args, "fused_search")
    return _found(hits, args, total_hits=len(hits))
