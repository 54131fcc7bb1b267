"""Fields found in a document's own text, added to its `properties` row where its labels say nothing.

What runs at ingest: the shipped rules (`found_by="rule"`), labelled lines (`text`) and a user's patterns
(`pattern`), all deterministic and fast; the chat model (`model`) runs in its own pass (`ragent extract --model`),
as it takes seconds a document. A labelled value is never replaced, and a document whose labels are complete
(`SourceDocument.labels_complete`) gets nothing: its missing fields are known to be empty. Every extracted value
keeps where it was read (`AnnotationRow.sources`), which is what a citation of it opens.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from core.models import AnnotationRow, FieldSpec, SourceDocument, ValueSource
from retrievers.extraction.calibration import rule_precision
from retrievers.extraction.found import Found
from retrievers.extraction.labelled_lines import find_labelled
from retrievers.extraction.rules import rules_of
from retrievers.extraction.rules.learned_clauses import WITHOUT_VECTORS, LearnedClauses
from retrievers.extraction.user_pattern import find_by_pattern

PROPERTIES = "properties"
AT_INGEST = ("rule", "text", "pattern")
"""The ways of finding a field that run while a document is ingested (see the module docstring)."""

ModelFinder = Callable[[str, list[FieldSpec]], dict[str, list[Found]]]
"""Reads every `model` field of one document in one call: body and fields in, finds by field name out."""


def finder(
    bucket: str, spec: FieldSpec, learned: LearnedClauses = WITHOUT_VECTORS
) -> Callable[[str], list[Found]] | None:
    """What finds `spec` in a body of `bucket` by itself, None when nothing does (labels only, the model, or a rule
    this bucket does not have); a rule is the learned decision `learned` serves for it where there is one."""
    if spec.found_by == "rule":
        return rules_of(bucket, learned).get(spec.name)
    if spec.found_by == "text":
        return lambda body: find_labelled(body, spec)
    if spec.found_by == "pattern":
        return lambda body: find_by_pattern(body, spec)
    return None


def chosen(spec: FieldSpec, found: list[Found]) -> tuple[Any, Found] | None:
    """The value to store for `spec` and the find that cites it: every distinct value of a multi-valued field, or
    the one value of a single field; None when a single field is found with two different values (ambiguous: a
    wrong value that looks right is worse than none)."""
    values = list(dict.fromkeys(f.value for f in found if f.value is not None))
    if not values or (not spec.multi and len(values) > 1):
        return None
    first = next(f for f in found if f.value is not None)
    return (values if spec.multi else values[0]), first


def without_extracted(rows: Sequence[AnnotationRow], fields: Collection[str] | None = None) -> list[AnnotationRow]:
    """The rows as their labels gave them: every extracted value taken out again (before extracting anew), or only
    those of `fields` (the other fields' values, and where each was read, kept as they are)."""
    kept = []
    for row in rows:
        if taken := {name for name in row.sources if fields is None or name in fields}:
            row = AnnotationRow(
                kind=row.kind,
                row={k: v for k, v in row.row.items() if k not in taken},
                raw=row.raw,
                sources={k: v for k, v in row.sources.items() if k not in taken},
            )
        if row.row or row.raw or row.kind != PROPERTIES:
            kept.append(row)
    return kept


def extracted(
    source: SourceDocument,
    specs: Sequence[FieldSpec],
    found_by: Sequence[str] = AT_INGEST,
    model: ModelFinder | None = None,
    fill: Sequence[FieldSpec] = (),
    learned: LearnedClauses = WITHOUT_VECTORS,
) -> SourceDocument:
    """`source` with the values its text gives for the fields of `specs` found by one of `found_by` (the `model`
    ones by `model`) that no row of its labels holds, in its `properties` row (made if it has none). The fields of
    `fill` that hold no value once the rules have read the text are asked of `model` too, in the same call: the
    model fills what the rules left empty, and its values are checked against the text like its own fields'.
    `learned` gives the learned clause decisions (those reading vectors with the ingest's embedder)."""
    if source.labels_complete:
        return source
    body, bucket = source.document.body, source.document.bucket
    held = {name for row in source.annotations if row.kind == PROPERTIES for name in row.row}
    wanted = [s for s in specs if s.found_by in found_by and s.name not in held]
    found = {s.name: find(body) for s in wanted if (find := finder(bucket, s, learned)) is not None}
    by_model: set[str] = set()
    if model is not None:
        empty = [s for s in fill if s.name not in held and chosen(s, found.get(s.name, [])) is None]
        if asked := [s for s in wanted if s.found_by == "model"] + empty:
            read = model(body, asked)
            by_model = {name for name, finds in read.items() if finds}
            found |= {name: finds for name, finds in read.items() if finds}
            wanted += [s for s in empty if s not in wanted]
    values: dict[str, Any] = {}
    sources: dict[str, ValueSource] = {}
    for spec in wanted:
        if (picked := chosen(spec, found.get(spec.name, []))) is not None:
            values[spec.name], cited = picked
            how = "model" if spec.name in by_model else spec.found_by
            confidence = rule_precision(bucket, spec.name, values[spec.name]) if how == "rule" else None
            sources[spec.name] = ValueSource(start=cited.start, end=cited.end, found_by=how, confidence=confidence)
    if not values:
        return source
    rows = list(source.annotations)
    at = next((i for i, row in enumerate(rows) if row.kind == PROPERTIES), None)
    if at is None:
        rows.append(AnnotationRow(kind=PROPERTIES, row=values, sources=sources))
    else:
        row = rows[at]
        rows[at] = AnnotationRow(
            kind=PROPERTIES, row={**row.row, **values}, raw=row.raw, sources={**row.sources, **sources}
        )
    return source.model_copy(update={"annotations": rows})
