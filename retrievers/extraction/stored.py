"""Extraction over documents already stored (`ragent extract`): after a bucket's fields were declared or changed,
and for the fields the chat model finds, which ingest leaves to this pass.

Each document is read from Postgres with its rows, the extracted values of the fields to find are taken out and
found again (every other row and value stays as it was), and its rows are replaced in a transaction of its own that
also records, field by field, what each was extracted with (`extraction_stamps`): a run killed part-way keeps every
document it finished, and the next run skips those and goes on. As the stamps are a field's, a run of some fields
(`--fields`) leaves the others due for the next run that asks for them, and that run reads again only the fields
whose stamp changed. A document re-ingested meanwhile keeps the rows its new version came with (the replace checks
the content hash it read).

With the chat model, the fields the rules find are offered to the model where the rules left them empty (or found
two values), in the call that reads the model's own fields; a value it fills says `found_by="model"`, is kept by
runs without the model, and is offered again only when the field, the rules or the model change (`filled`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from core.errors import BackendUnavailable, InvalidInput
from core.models import FieldSpec, SourceDocument
from retrievers.extraction.extractor import AT_INGEST, ModelFinder, extracted, without_extracted
from retrievers.extraction.rules import RULES_VERSION
from retrievers.extraction.rules.learned_clauses import LearnedClauses
from retrievers.extraction.shipped import declared_specs
from retrievers.protocols import DocumentStore, Embedder

PAGE = 50
FAILURES_IN_A_ROW = 3
"""Model calls that may fail one after the other before the run stops (the endpoint is down, not one document)."""


@dataclass
class ExtractionReport:
    """What one `ragent extract` run did."""

    bucket: str
    fields: list[str] = field(default_factory=list)
    documents: int = 0
    changed: int = 0
    values: int = 0
    replaced_meanwhile: int = 0
    failed: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        rate = f" ({self.documents / self.seconds:.1f} documents/s)" if self.seconds and self.documents else ""
        lines = [
            f"{self.bucket} ({', '.join(self.fields) or 'no fields'}): {self.documents} documents read, "
            f"{self.changed} with changed fields, "
            f"{self.values} values found in the text; {self.seconds:.1f} s{rate}"
        ]
        if self.failed:
            lines.append(f"  {self.failed} could not be read by the model and are tried again by the next run")
        if self.replaced_meanwhile:
            lines.append(f"  {self.replaced_meanwhile} were re-ingested meanwhile and keep their new rows")
        return "\n".join(lines)


def field_stamp(spec: FieldSpec, model_name: str = "") -> str:
    """What a field of a document was extracted with: its declaration, the rules' version and, for a field the
    model finds, the model; a change in any of them makes the next run read that field again."""
    model = model_name if spec.found_by == "model" else ""
    text = json.dumps([spec.model_dump(mode="json"), RULES_VERSION, model], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def filled(spec: FieldSpec) -> str:
    """The stamp key that says a field the rules find was offered to the model where they left it empty. Its stamp
    is the field's with the model's name: a change of the field, the rules or the model offers it again."""
    return f"{spec.name}+model"


def _by_model(source: SourceDocument, name: str) -> bool:
    """Whether the document's value of `name` was filled by the model (it is taken out when the model reads again)."""
    return any(row.sources.get(name) and row.sources[name].found_by == "model" for row in source.annotations)


def fields_to_extract(
    bucket: str, specs: Sequence[FieldSpec], fields: Sequence[str] | None, with_model: bool
) -> list[FieldSpec]:
    """The declared fields of `bucket` a run finds: every one found in the text (by the model too `with_model`),
    or only those named in `fields`, each of which must be declared and found so; else the run stops, before the
    model is started or anything read."""
    found_by = (*AT_INGEST, "model") if with_model else AT_INGEST
    if not fields:
        return [spec for spec in specs if spec.found_by in found_by]
    declared = {spec.name: spec for spec in specs}
    for name in fields:
        spec = declared.get(name)
        if spec is None:
            raise InvalidInput(
                f"{bucket} has no field {name!r}; its fields are {', '.join(declared) or 'none yet'}"
                f" (declare one: `ragent catalog describe {bucket} FIELD --type string`)"
            )
        if spec.found_by == "labels":
            raise InvalidInput(
                f"{bucket}.{name} comes from labels only and is not found in the text; to find it there: "
                f"`ragent catalog describe {bucket} {name} --found-by text`"
            )
        if spec.found_by not in found_by:
            raise InvalidInput(f"{bucket}.{name} is found by the chat model: ask for the model too (--model)")
    return [declared[name] for name in dict.fromkeys(fields)]


def extract_stored(
    store: DocumentStore,
    scope: str,
    bucket: str,
    *,
    fields: Sequence[str] | None = None,
    model: ModelFinder | None = None,
    model_name: str = "",
    progress: bool | None = None,
    progressed: Callable[[int, int], None] | None = None,
    embedder: Embedder | None = None,
) -> ExtractionReport:
    """Find the declared fields of `bucket` (those named in `fields`, else all) in every document of `scope` not
    labelled completely (the `model` ones too when `model` is given) and store them; see the module docstring.
    `progressed(done, total)` is told of the start and of each document read; `embedder` (the data folder's) serves
    the learned clause decisions that read sentence vectors, which keep their regex rules without it."""
    started = time.perf_counter()
    found_by = (*AT_INGEST, "model") if model else AT_INGEST
    learned = LearnedClauses(embedder)
    wanted = fields_to_extract(bucket, declared_specs(store, bucket), fields, model is not None)
    report = ExtractionReport(bucket=bucket, fields=[spec.name for spec in wanted])
    stamps = {spec.name: field_stamp(spec, model_name) for spec in wanted}
    fillable = [spec for spec in wanted if spec.found_by in AT_INGEST] if model else []
    stamps |= {
        filled(spec): field_stamp(spec.model_copy(update={"found_by": "model"}), model_name) for spec in fillable
    }
    total = store.count_to_extract(scope, bucket, stamps)
    if progressed:
        progressed(0, total)
    after, failures = "", 0
    shown = None if progress is None else not progress
    with tqdm(total=total, unit="doc", desc=f"extract {bucket}", disable=shown) as bar:
        while page := store.documents_to_extract(scope, bucket, stamps, after=after, limit=PAGE):
            for source, content_hash, extracted_with in page:
                due = [spec for spec in wanted if extracted_with.get(spec.name) != stamps[spec.name]]
                fill = [s for s in fillable if s in due or extracted_with.get(filled(s)) != stamps[filled(s)]]
                due_names = {spec.name for spec in due}
                names = due_names | {spec.name for spec in fill if _by_model(source, spec.name)}
                labelled = without_extracted(source.annotations, names)
                try:
                    found = extracted(
                        source.model_copy(update={"annotations": labelled}), due, found_by, model, fill, learned
                    )
                except Exception as error:  # the model's endpoint or reply; the document keeps its rows
                    report.failed += 1
                    failures += 1
                    if failures >= FAILURES_IN_A_ROW:
                        raise BackendUnavailable(f"the chat model failed {failures} times in a row: {error}") from error
                else:
                    failures = 0
                    read = due_names | {spec.name for spec in fill}
                    values = sum(
                        name in read and (name in due_names or how.found_by == "model")
                        for row in found.annotations
                        for name, how in row.sources.items()
                    )
                    changed = [r.model_dump() for r in found.annotations] != [
                        r.model_dump() for r in source.annotations
                    ]
                    due_stamps = {name: stamps[name] for name in due_names}
                    due_stamps |= {filled(spec): stamps[filled(spec)] for spec in fill}
                    if store.replace_annotations(found.document, found.annotations, due_stamps, was=content_hash):
                        report.values += values
                        report.changed += changed
                    else:
                        report.replaced_meanwhile += 1
                    report.documents += 1
                bar.update(1)
                if progressed:
                    progressed(report.documents + report.failed, total)
            after = page[-1][0].document.doc_id
    store.refresh_stale_catalogs(scope)
    report.seconds = time.perf_counter() - started
    return report
