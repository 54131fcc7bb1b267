"""get_document_metadata and get_document: what a document is, and (at a higher cost) its full text."""

from __future__ import annotations

from typing import Any

from tools.arguments import DocumentArgs, DocumentMetadataArgs
from tools.context import ToolContext
from tools.envelope import DocumentInfoHit, DocumentMetadata, DocumentTextHit, Envelope
from tools.snippets import strip_markup

_POSTGRES = "Postgres (documents)"


def _missing(doc_id: str) -> Envelope:
    return Envelope(
        status="no_results", hint=f"no document {doc_id!r} here; take doc_id values from search or annotation hits"
    )


def _metadata(document: dict[str, Any], context: ToolContext) -> DocumentMetadata:
    return DocumentMetadata(
        title=document["title"],
        bucket=document["bucket"],
        author=document["author"],
        tags=document["tags"],
        created_at=document["created_at"].date().isoformat() if document["created_at"] else None,
        source=context.shown_source(document["source"]) if document["source"] else document["source"],
        version=document["version"],
        chars=len(document["body"]),
    )


def get_document_metadata(args: DocumentMetadataArgs, context: ToolContext) -> Envelope:
    document = context.engine(_POSTGRES, context.stack.store.get_document, context.scope, args.doc_id)
    if document is None:
        return _missing(args.doc_id)
    annotation_ids = context.engine(_POSTGRES, context.stack.store.annotation_ids, context.scope, args.doc_id)
    hit = DocumentInfoHit(
        doc_id=args.doc_id,
        summary=document["summary"],
        annotation_ids=annotation_ids,
        metadata=_metadata(document, context),
    )
    return Envelope(status="ok", hits=[hit], total_hits=1)


def get_document(args: DocumentArgs, context: ToolContext) -> Envelope:
    document = context.engine(_POSTGRES, context.stack.store.get_document, context.scope, args.doc_id)
    if document is None:
        return _missing(args.doc_id)
    text = strip_markup(document["body"])
    hit = DocumentTextHit(
        doc_id=args.doc_id,
        text=text[: args.max_chars],
        truncated=len(text) > args.max_chars,
        metadata=_metadata(document, context),
    )
    hint = (
        f"text cut at {args.max_chars} of {len(text)} characters; search inside it with doc_id to reach later parts"
        if hit.truncated
        else None
    )
    return Envelope(status="ok", hits=[hit], total_hits=1, hint=hint)
