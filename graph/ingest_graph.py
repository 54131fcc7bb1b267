"""The ingestion flow as the LangGraph server's second graph (`ingest` in `langgraph.json`).

The server owns the embedded engines while it runs (the embedded vector index admits one process), so this is how
documents reach a running server: from Studio's form or the API, a folder (with its bucket and an optional
annotations file) or a named dataset. A client names folders on the server's machine, so folders are accepted only
under its scope's ingest roots (`graph.ingest_roots`: by default `<home>/inbox/<scope>` and the shared data folder).

A request with `"extract": true` goes to the other node: `ragent extract` on the server, the declared fields (or
those of `fields`) found again in the stored documents of a bucket, with the chat model too for `"model": true`.
It streams its progress to `custom` stream clients, a few events a second (`ingest` events while ingesting,
`extract` events while extracting).

An ingest and an extraction run on the ingest worker (`graph.ingest_worker`): one at a time, at a lower CPU priority
than questions; an ingest is held to the ingest limits (`core.settings.IngestLimits`), a request's to `request_chars`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any, NotRequired

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from core.errors import InvalidInput
from core.scope import DEFAULT_SCOPE, dataset_scope
from graph.access.tenancy import request_scope
from graph.ingest_roots import allowed_path, ingest_roots, moved_into_scope
from graph.ingest_worker import on_ingest_worker
from graph.served_paths import served_text
from graph.services import AgentServices
from graph.uploads import discard, keep, kept_name, staged_batch
from retrievers.extraction.stored import extract_stored, fields_to_extract
from retrievers.ingestion.progress import IngestProgress
from retrievers.ingestion.sources import ingest_source


class IngestRequest(TypedDict):
    path: NotRequired[str]
    bucket: NotRequired[str]
    annotations: NotRequired[str]
    dataset: NotRequired[str]
    scope: NotRequired[str]
    force: NotRequired[bool]
    limit: NotRequired[int]
    extract: NotRequired[bool]
    fields: NotRequired[list[str]]
    model: NotRequired[bool]


class IngestResult(TypedDict, total=False):
    summary: str
    added: int
    updated: int
    unchanged: int
    chunks: int
    annotation_rows: int
    skipped: list[dict[str, str]]  # the first retrievers.ingestion.pipeline.SKIPPED_SHOWN, with reasons
    skipped_total: int
    named: dict[str, list[str]]  # the first SKIPPED_SHOWN document ids added, updated and unchanged
    extracted_fields: list[str]  # an extraction's: the fields it found, and what it did
    documents: int
    changed: int
    values: int
    failed: int
    replaced_meanwhile: int


class IngestState(IngestRequest, IngestResult):
    pass


INGEST_ONLY = ("path", "annotations", "dataset", "force", "limit")
EXTRACT_ONLY = ("fields", "model")
PROGRESS_EVERY_S = 0.25
"""An extraction's progress events are this far apart at least (and its last is always sent)."""


def ingest_scope(asked: object, server_user: Any | None, dataset: str | None = None) -> str:
    """The scope documents go to: the one asked for, else the sample corpus's own for the sample, else the caller's
    own (`default` outside the server). On the server ingestion is a permission, and only into the caller's
    scopes."""
    if asked is None and dataset_scope(dataset) != DEFAULT_SCOPE:
        asked = dataset_scope(dataset)
    return request_scope(asked, server_user, writes="ingest documents")


def checked_limit(limit: object) -> int | None:
    """At most this many documents, as `ragent ingest --limit` takes it; a client's JSON may hold anything."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise InvalidInput(f"limit {limit!r} is not a number of documents; give a whole number from 1, or none")
    return limit


def ingest(state: IngestState, runtime: Runtime, *, services: AgentServices) -> IngestResult:
    """The report, and any refusal of what the folder holds, with paths shown from their ingest root
    (`graph.served_paths`); a path the client named is refused in its own words. A batch the web page uploaded
    (`graph.uploads`) is kept once ingested and deleted when refused."""
    if given := [key for key in EXTRACT_ONLY if key in state]:
        raise InvalidInput(f'{", ".join(given)} go with an extraction: add "extract": true')
    server = runtime.server_info
    scope = ingest_scope(state.get("scope"), server.user if server else None, state.get("dataset"))
    stack = services.stack
    roots = ingest_roots(stack.settings.home, scope)
    path, annotations = allowed_path(state.get("path"), roots), allowed_path(state.get("annotations"), roots)
    batch = staged_batch(path, roots[0].folder)
    work = partial(
        ingest_source,
        stack,
        path=path,
        bucket=state.get("bucket"),
        annotations=annotations,
        dataset=state.get("dataset"),
        scope=scope,
        force=bool(state.get("force")),
        limit=checked_limit(state.get("limit")),
        progress=False,
        progressed=ingest_events(PROGRESS_EVERY_S, get_stream_writer()),
        max_request_chars=stack.settings.ingest_limits.request_chars,
        moved_from=moved_into_scope(stack.settings.home, scope),
        recorded=kept_name(batch) if batch else None,
    )
    try:
        report = on_ingest_worker(work)
    except InvalidInput as error:
        if batch:
            discard(batch)
        raise InvalidInput(served_text(str(error), roots)) from None
    finally:
        if batch and batch.exists():
            keep(batch)  # ingested, or stopped part way (its documents already written name the kept files)
    return {
        "summary": served_text(report.summary(), roots),
        "added": report.added,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "chunks": report.chunks,
        "annotation_rows": report.annotation_rows,
        "skipped": [
            {"path": served_text(s.path, roots), "reason": served_text(s.reason, roots)} for s in report.skipped
        ],
        "skipped_total": report.skipped_total,
        "named": report.named,
    }


def extract(state: IngestState, runtime: Runtime, *, services: AgentServices) -> IngestResult:
    """`ragent extract --bucket B [--fields F ...] [--model]` in the caller's scope, with the ingest permission."""
    server = runtime.server_info
    scope = request_scope(state.get("scope"), server.user if server else None, writes="extract documents' fields")
    if given := [key for key in INGEST_ONLY if key in state]:
        raise InvalidInput(f"an extraction takes bucket, fields, model and scope, not {', '.join(given)} (an ingest's)")
    bucket, fields, with_model = state.get("bucket"), state.get("fields"), state.get("model", False)
    if not isinstance(bucket, str):
        raise InvalidInput(f"an extraction needs the bucket whose fields it finds, got {bucket!r}")
    if fields is not None and not (isinstance(fields, list) and all(isinstance(f, str) for f in fields)):
        raise InvalidInput(f"fields must be a list of the bucket's field names, got {fields!r}")
    for key in ("extract", "model"):
        if not isinstance(state.get(key, False), bool):
            raise InvalidInput(f"{key} must be true or false, got {state[key]!r}")
    store = services.stack.store
    store.require_bucket(bucket)
    fields_to_extract(bucket, store.described_specs(bucket), fields, with_model)  # before the model starts
    model, model_name = _model_finder(services) if with_model else (None, "")
    progressed = progress_events(PROGRESS_EVERY_S, get_stream_writer(), bucket)
    report = on_ingest_worker(
        partial(
            extract_stored,
            store,
            scope,
            bucket,
            fields=fields,
            model=model,
            model_name=model_name,
            progressed=progressed,
            embedder=services.stack.embedder.inner,
        )
    )
    return {
        "summary": report.summary(),
        "extracted_fields": report.fields,
        "documents": report.documents,
        "changed": report.changed,
        "values": report.values,
        "failed": report.failed,
        "replaced_meanwhile": report.replaced_meanwhile,
    }


def _model_finder(services: AgentServices):
    """The server's chat model as the `model` finder, and its name (recorded with what it extracts)."""
    from chat.settings import ChatSettings
    from retrievers.extraction.model_reader import ModelReader

    if services.chat_model is None:
        raise InvalidInput("this server has no chat model to extract with: start it with RAGENT_CHAT=local or openai")
    return ModelReader(services.chat_model), ChatSettings.from_env().model


def progress_events(seconds: float, write: Callable[[dict], None], bucket: str) -> Callable[[int, int], None]:
    """Progress `(done, total)` written as `extract` events at most every `seconds`, and the last one always."""
    last = -seconds

    def progressed(done: int, total: int) -> None:
        nonlocal last
        if done == total or time.monotonic() - last >= seconds:
            last = time.monotonic()
            write({"event": "extract", "bucket": bucket, "done": done, "total": total})

    return progressed


def ingest_events(seconds: float, write: Callable[[dict], None]) -> Callable[[IngestProgress], None]:
    """An ingest's progress (documents, total, chunks, chunks/s, ETA in seconds: what `ragent ingest` shows) written
    as `ingest` events at most every `seconds`, and when the last document is done."""
    last = -seconds

    def progressed(progress: IngestProgress) -> None:
        nonlocal last
        if progress.documents == progress.total or time.monotonic() - last >= seconds:
            last = time.monotonic()
            write({"event": "ingest", **progress.counts()})

    return progressed


def _node_for(state: IngestState) -> str:
    return "extract" if state.get("extract") else "ingest"


def build_ingest(services: AgentServices) -> StateGraph:
    builder = StateGraph(IngestState, input_schema=IngestRequest, output_schema=IngestResult)
    builder.add_node("ingest", partial(ingest, services=services))
    builder.add_node("extract", partial(extract, services=services))
    builder.add_conditional_edges(START, _node_for, ["ingest", "extract"])
    builder.add_edge("ingest", END)
    builder.add_edge("extract", END)
    return builder
