"""Extraction over documents already stored (`ragent extract`): after a bucket's fields were declared or changed,
and for the fields the chat model finds, which ingest leaves to this pass.

Each document is read from Postgres with its rows, its extracted values are taken out and found again, and its rows
are replaced in a transaction of its own that also records what they were extracted with (`extracted_with`): a run
killed part-way keeps every document it finished, and the next run skips those and goes on. A document re-ingested
meanwhile keeps the rows its new version came with (the replace checks the content hash it read).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm import tqdm

from core.errors import BackendUnavailable
from core.models import FieldSpec
from retrievers.extraction.extractor import AT_INGEST, ModelFinder, extracted, without_extracted
from retrievers.extraction.rules import RULES_VERSION
from retrievers.protocols import DocumentStore

PAGE = 50
FAILURES_IN_A_ROW = 3
"""Model calls that may fail one after the other before the run stops (the endpoint is down, not one document)."""


@dataclass
class ExtractionReport:
    """What one `ragent extract` run did."""

    bucket: str
    documents: int = 0
    changed: int = 0
    values: int = 0
    replaced_meanwhile: int = 0
    failed: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        rate = f" ({self.documents / self.seconds:.1f} documents/s)" if self.seconds and self.documents else ""
        lines = [
            f"{self.bucket}: {self.documents} documents read, {self.changed} with changed fields, "
            f"{self.values} values found in the text; {self.seconds:.1f} s{rate}"
        ]
        if self.failed:
            lines.append(f"  {self.failed} could not be read by the model and are tried again by the next run")
        if self.replaced_meanwhile:
            lines.append(f"  {self.replaced_meanwhile} were re-ingested meanwhile and keep their new rows")
        return "\n".join(lines)


def extraction_stamp(specs: Sequence[FieldSpec], found_by: Sequence[str], model_name: str = "") -> str:
    """What a document's rows were extracted with: the fields and how each is found, the rules' version and the
    model; a change in any of them makes the next run read the document again."""
    used = [spec.model_dump(mode="json") for spec in specs if spec.found_by in found_by]
    text = json.dumps([used, RULES_VERSION, model_name], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def extract_stored(
    store: DocumentStore,
    scope: str,
    bucket: str,
    *,
    model: ModelFinder | None = None,
    model_name: str = "",
    progress: bool | None = None,
) -> ExtractionReport:
    """Find the declared fields of `bucket` in every document of `scope` not labelled completely (the `model` ones
    too when `model` is given) and store them; see the module docstring."""
    report = ExtractionReport(bucket=bucket)
    started = time.perf_counter()
    specs = store.field_specs(bucket)
    found_by = (*AT_INGEST, "model") if model else AT_INGEST
    stamp = extraction_stamp(specs, found_by, model_name)
    total = store.bucket_document_counts(scope).get(bucket, 0)
    after, failures = "", 0
    shown = None if progress is None else not progress
    with tqdm(total=total, unit="doc", desc=f"extract {bucket}", disable=shown) as bar:
        while page := store.documents_to_extract(scope, bucket, stamp, after=after, limit=PAGE):
            for source, content_hash in page:
                labelled = without_extracted(source.annotations)
                try:
                    found = extracted(source.model_copy(update={"annotations": labelled}), specs, found_by, model)
                except Exception as error:  # the model's endpoint or reply; the document keeps its rows
                    report.failed += 1
                    failures += 1
                    if failures >= FAILURES_IN_A_ROW:
                        raise BackendUnavailable(f"the chat model failed {failures} times in a row: {error}") from error
                    continue
                failures = 0
                values = sum(len(row.sources) for row in found.annotations)
                changed = [r.model_dump() for r in found.annotations] != [r.model_dump() for r in source.annotations]
                if store.replace_annotations(found.document, found.annotations, stamp, was=content_hash):
                    report.values += values
                    report.changed += changed
                else:
                    report.replaced_meanwhile += 1
                report.documents += 1
                bar.update(1)
            after = page[-1][0].document.doc_id
    store.refresh_stale_catalogs(scope)
    report.seconds = time.perf_counter() - started
    return report
