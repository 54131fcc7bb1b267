"""Document management as the LangGraph server's third graph (`documents` in `langgraph.json`): what
`ragent documents list|show|delete` does, for clients of a running server (which owns the embedded engines).

Listing and showing need the scope, deleting needs the scope and the ingest permission: a key that may put
documents into a scope may take them out. Every request is checked here, with the message a client sees.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal, NotRequired

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from core.errors import InvalidInput
from graph.access.tenancy import request_scope
from graph.ingest_roots import ingest_roots
from graph.served_paths import served_path
from graph.services import AgentServices
from graph.uploads import KEPT, drop_unnamed, uploads_inbox
from retrievers.ingestion.documents import checked_doc_ids, delete_documents, show_document

ACTIONS = ("list", "show", "delete")
LISTED, LISTED_MAX = 50, 10_000
MATCHING_CHARS = 200
DELETED_MAX = 10_000
"""The most document ids one delete request may name (a whole bucket goes by `bucket`)."""


class DocumentsRequest(TypedDict):
    action: Literal["list", "show", "delete"]
    scope: NotRequired[str]
    bucket: NotRequired[str]
    doc_ids: NotRequired[list[str]]
    limit: NotRequired[int]
    offset: NotRequired[int]
    matching: NotRequired[str]


class DocumentsResult(TypedDict, total=False):
    scope: str
    total: int
    documents: list[dict[str, Any]]
    document: dict[str, Any]
    deleted: list[dict[str, Any]]
    not_found: list[str]
    finished_earlier: int


class DocumentsState(DocumentsRequest, DocumentsResult):
    pass


def _count(state: DocumentsState, name: str, default: int, low: int, high: int) -> int:
    value = state.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _doc_ids(state: DocumentsState) -> list[str]:
    doc_ids = state.get("doc_ids") or []
    if not isinstance(doc_ids, list):
        raise InvalidInput("doc_ids must be a list of document ids (text)")
    if len(doc_ids) > DELETED_MAX:
        raise InvalidInput(f"name at most {DELETED_MAX} documents per request; a whole bucket goes by 'bucket'")
    return checked_doc_ids(doc_ids)


def _matching(state: DocumentsState) -> str | None:
    """The words a listed document's title or id must hold (`list`'s search), at most `MATCHING_CHARS` of them."""
    matching = state.get("matching")
    if matching is not None and (not isinstance(matching, str) or len(matching) > MATCHING_CHARS):
        raise InvalidInput(f"matching must be words of a title or id, at most {MATCHING_CHARS} characters")
    return matching


def _bucket(state: DocumentsState, services: AgentServices) -> str | None:
    bucket = state.get("bucket")
    if bucket is not None:
        if not isinstance(bucket, str):
            raise InvalidInput(f"bucket must be a bucket's name, got {bucket!r}")
        services.stack.store.require_bucket(bucket)
    return bucket


def _served(document: dict[str, Any], services: AgentServices, scope: str) -> dict[str, Any]:
    """The document with its source file shown from its scope's ingest root, not the server's folders."""
    roots = ingest_roots(services.stack.settings.home, scope)
    return {**document, "source": served_path(document["source"], roots)} if document.get("source") else document


def documents(state: DocumentsState, runtime: Runtime, *, services: AgentServices) -> DocumentsResult:
    action = state.get("action")
    if action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    server = runtime.server_info
    scope = request_scope(
        state.get("scope"), server.user if server else None, writes="delete documents" if action == "delete" else None
    )
    store = services.stack.store
    if action == "list":
        limit = _count(state, "limit", LISTED, 1, LISTED_MAX)
        offset = _count(state, "offset", 0, 0, 2**62)
        matching = _matching(state)
        rows, total = store.list_documents(
            scope, _bucket(state, services), matching=matching, limit=limit, offset=offset
        )
        return {"scope": scope, "total": total, "documents": [_served(row, services, scope) for row in rows]}
    doc_ids = _doc_ids(state)
    if action == "show":
        if len(doc_ids) != 1:
            raise InvalidInput("show takes one document id in doc_ids")
        return {"scope": scope, "document": _served(show_document(store, scope, doc_ids[0]), services, scope)}
    report = delete_documents(services.stack, scope, doc_ids, bucket=_bucket(state, services))
    inbox = uploads_inbox(services.stack.settings.home, scope)
    drop_unnamed(inbox, set(store.documents_under(scope, str(inbox / KEPT)).values()))
    return report.as_json()


def build_documents(services: AgentServices) -> StateGraph:
    builder = StateGraph(DocumentsState, input_schema=DocumentsRequest, output_schema=DocumentsResult)
    builder.add_node("documents", partial(documents, services=services))
    builder.add_edge(START, "documents")
    builder.add_edge("documents", END)
    return builder
