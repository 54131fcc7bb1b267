"""Each answer of a thread as a client shows it again: its text, figure, notes and citations, the fields of its rows,
and what each citation opens (the passage's title and offsets, the row's title and values).

The state holds the latest run's answer and evidence only (each question starts them afresh, and a thread keeps its
state, not its history: `graph.checkpointing`), so a reopened thread's earlier answers had only their message's text
and lost their sources. `answers` keeps this record per answer message, for the messages the thread still keeps
(`graph.history`): small (no rows, no checked sentences, no snippets), as it lives as long as the turn."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AnyMessage, RemoveMessage

from graph.schemas import Answer, Evidence
from tools.envelope import AnnotationHit, PassageHit

ROW_KEYS = ("doc_id", "annotation_id")
"""A row's keys that are no field of it."""


def shown_answer(answer: Answer, evidence: list[Evidence]) -> dict[str, Any]:
    """The record a client draws the answer from again, with each cited passage or row the evidence holds."""
    cited = {c.annotation_id or c.chunk_id for c in answer.citations}
    sources: dict[str, dict[str, Any]] = {}
    for hit in (hit for e in evidence for hit in e.envelope.hits):
        if isinstance(hit, PassageHit) and hit.chunk_id in cited:
            sources[hit.chunk_id] = {"title": hit.metadata.title, "chars": list(hit.metadata.chars)}
        elif isinstance(hit, AnnotationHit) and hit.annotation_id in cited:
            sources[hit.annotation_id] = {"title": hit.metadata.title, "row": hit.row}
    return {
        "answer": answer.model_dump(mode="json", exclude={"rows", "sentences"}),
        "fields": answered_fields(answer, evidence),
        "sources": sources,
    }


def answered_fields(answer: Answer, evidence: list[Evidence]) -> list[str]:
    """The fields the answer rests on: its table's columns, then those its searches' conditions name (a count over
    "governing_law = Vermont" has no table, and its cited row is read for the governing law first)."""
    shown = [key for key in (answer.rows[0] if answer.rows else {}) if key not in ROW_KEYS]
    conditions = [field for e in evidence for field in e.call.arguments.get("predicates") or {}]
    return list(dict.fromkeys([*shown, *conditions]))


def still_shown(
    answers: dict[str, dict[str, Any]], messages: list[AnyMessage], removed: list[RemoveMessage]
) -> dict[str, dict[str, Any]]:
    """The records of the answer messages the thread keeps once `removed` are gone."""
    kept = {m.id for m in messages} - {r.id for r in removed}
    return {message_id: shown for message_id, shown in answers.items() if message_id in kept}
