"""Helpers every loader shares: parsing JSON with bounded nesting, reading JSONL, building an annotation row with
its raw strings, field names."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

from core.errors import InvalidInput
from core.models import AnnotationRow, Document, SourceDocument

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in any JSON the project reads from a user or a file; documents
and annotation rows need a handful of levels."""

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
"""A JSON string (to its closing quote, or to the end when it has none, so that every character is scanned once)
or a bracket outside strings."""


def loads_json(text: str) -> Any:
    """`json.loads` for untrusted text, refusing nesting deeper than MAX_JSON_DEPTH before the parser sees it.

    Counted before parsing rather than by catching RecursionError: the parser recurses once per level, so a few KB
    of `[` exhaust the stack, and how many levels fit depends on how deep the caller already is (a server worker
    thread, a loader inside a generator); a value that does parse a few hundred levels deep would recurse again in
    every later step (validation, storage, checkpointing). One fixed bound here keeps all of them shallow. The
    refusal is a `json.JSONDecodeError` at the offending bracket, so each caller's "not valid JSON" handling names
    the file, line or argument as it does for any other unusable JSON.
    """
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:  # fewer cannot nest deeper: most lines end here
        depth = 0
        for token in _STRING_OR_BRACKET.finditer(text):
            if token[0] in ("[", "{"):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise json.JSONDecodeError(f"nested deeper than {MAX_JSON_DEPTH} levels", text, token.start())
            elif token[0] in ("]", "}"):
                depth -= 1

    def not_a_number(word: str) -> float:
        # Python's parser takes NaN, Infinity and numbers too large for a float (1e400 is infinity); JSON has none
        # of them, and no store or comparison can use them (Postgres refuses NaN in jsonb, mid-ingest).
        raise json.JSONDecodeError(f"{word} is not a finite number", text, max(text.find(word), 0))

    def finite(number: str) -> float:
        value = float(number)
        return value if math.isfinite(value) else not_a_number(number)

    return json.loads(text, parse_constant=not_a_number, parse_float=finite)


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
                yield loads_json(line)
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
    """A dataset's document with those of its annotation rows that hold anything. Its labels are complete: what
    they leave out is known to be empty, and the evaluations' expected answers are computed from them alone, so
    nothing is extracted from its text at ingest (`python -m evals.bench_extraction` measures extraction on these
    texts with the labels left out)."""
    return SourceDocument(document=document, annotations=[row for row in rows if row is not None], labels_complete=True)
