"""Kleister-NDA: 540 EDGAR non-disclosure agreements, 337 with key fields (bucket `contracts`).

Reads `derived_nda.jsonl`. Every document gets one `properties` row saying it is a non-disclosure agreement
(`contract_type`, as CUAD and the sample corpus name the kind of a contract); labelled documents (train, dev-0) add
their key fields to it, the 203 test-A documents have hidden labels upstream and add nothing. The `jurisdiction`
label is the state whose law governs the agreement, so it becomes `governing_law`, the field the other contracts
datasets use for it, and one question about governing law covers all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, read_jsonl, require_file, source_document
from retrievers.loaders.cuad import FIELDS as CUAD_FIELDS
from retrievers.loaders.normalize import parse_date, parse_duration

BUCKET = "contracts"
SHARED_FOLDER = "kleister_nda"

CONTRACT_TYPE = "Non-Disclosure Agreement"
FIELDS = [
    *(spec for spec in CUAD_FIELDS if spec.name in {"contract_type", "effective_date", "governing_law", "parties"}),
    FieldSpec(
        name="term_days",
        type="integer",
        description="How long the agreement lasts, in days (1 year = 365, 1 month = 30)",
        aliases=["term", "last", "lasts", "lasting", "duration", "runs for", "valid for", "in force", "long"],
        unit="days",
    ),
]

# EDGAR prefixes each exhibit's first line with its type, sequence number and file name
# ("EX-10.23 5 dex1023.htm COVENANT NOT TO COMPETE ..."); the title is what follows the file name.
_EDGAR_HEADER_RE = re.compile(r"^.*?\S+\.(?:htm|html|txt)\s+", re.IGNORECASE)


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The NDAs under `path` (the `kleister_nda` folder), in file order, lazily."""
    records = read_jsonl(require_file(path / "derived_nda.jsonl", "Kleister-NDA"))
    return islice((_nda(path, record) for record in records), limit)


def _nda(folder: Path, record: dict[str, Any]) -> SourceDocument:
    labels: dict[str, list[str]] = record["fields"] or {}
    effective_date, _ = _single(labels, "effective_date")
    first_line = record["text"].strip().split("\n", 1)[0]
    document = Document(
        doc_id=record["doc_id"],
        bucket=BUCKET,
        title=_EDGAR_HEADER_RE.sub("", first_line)[:200] or first_line[:200],
        tags=["nda", record["split"]],
        created_at=parse_date(effective_date),
        source=str(folder / "derived_nda.jsonl"),
        body=record["text"],
    )
    return source_document(document, [_properties(labels)])


def _properties(labels: dict[str, list[str]]) -> AnnotationRow | None:
    row = RowBuilder()
    row.add("contract_type", CONTRACT_TYPE)
    effective_date, raw = _single(labels, "effective_date")
    row.add("effective_date", parse_date(effective_date), raw)
    laws = labels.get("jurisdiction") or []
    row.add("governing_law", laws, "; ".join(laws) or None)
    row.add("parties", labels.get("party"), labels.get("party"))
    term, raw = _single(labels, "term")
    row.add("term_days", parse_duration(term), raw)
    return row.build()


def _single(labels: dict[str, list[str]], key: str) -> tuple[str | None, str | None]:
    """The value of a single-valued key, and its raw text.

    Every labelled document has at most one value for these keys; should one ever have several, the value
    is None (no pick is made) and the raw text keeps them all.
    """
    values = labels.get(key) or []
    return (values[0] if len(values) == 1 else None), ("; ".join(values) or None)
