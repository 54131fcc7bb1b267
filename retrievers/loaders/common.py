"""Helpers every loader shares: reading JSONL, building an annotation row with its raw strings, field names."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

from retrievers.errors import InvalidInput
from retrievers.models import AnnotationRow, Document, SourceDocument


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file, one a line, read lazily; blank lines are ignored.

    A line that does not parse raises `InvalidInput` naming the file and line: the dataset files this reads
    are fixed inputs, so a bad line means a damaged copy, not something to skip.
    """
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidInput(
                    f"{path}:{number} is not valid JSON ({error.msg}); restore the file from its source"
                ) from error


def require_file(path: Path, what: str) -> Path:
    """`path` if it exists, else an `InvalidInput` that says which dataset file is missing and where."""
    if not path.is_file():
        raise InvalidInput(
            f"{path} not found: point the loader at the {what} folder (see ../shared/data/README.md; "
            "RAGENT_SHARED_DATA names the folder holding the shared datasets)"
        )
    return path


def snake_case(label: str) -> str:
    """A field name from a dataset's label: "Rofr/Rofo/Rofn" -> "rofr_rofo_rofn", "Non-Compete" -> "non_compete"."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


class RowBuilder:
    """Collects one annotation row: each typed value with the raw string it came from.

    A raw string is kept even when its value could not be parsed, so nothing the label said is lost;
    a value that is None, empty text or an empty list is left out of the row, so "field exists" means "we know it".
    Dates are stored as ISO strings, the JSON form the annotation store and the tools expect.
    """

    def __init__(self, kind: str = "properties") -> None:
        self.kind = kind
        self.values: dict[str, Any] = {}
        self.raw: dict[str, Any] = {}

    def add(self, name: str, value: Any, raw: Any = None) -> None:
        if raw is not None and raw != "":
            self.raw[name] = raw
        if isinstance(value, date):
            value = value.isoformat()
        if value is not None and value != "" and value != []:
            self.values[name] = value

    def build(self) -> AnnotationRow | None:
        """The row, or None when the label gave nothing at all (neither a value nor a raw string)."""
        if not self.values and not self.raw:
            return None
        return AnnotationRow(kind=self.kind, row=self.values, raw=self.raw)


def source_document(document: Document, rows: Iterable[AnnotationRow | None] = ()) -> SourceDocument:
    """A document with those of its annotation rows that hold anything."""
    return SourceDocument(document=document, annotations=[row for row in rows if row is not None])
