"""A user's folder of files as documents: `.txt`, `.md`, `.json`, `.jsonl` and PDFs with a text layer.

A file that cannot be used (binary, not UTF-8, empty, a scanned PDF, JSON that does not parse or is nested deeper
than `MAX_JSON_DEPTH`) does not stop the load: it comes out as a `Skipped` record, in order with the documents, so
the caller can count and show them. The folder is a boundary: a symbolic link that leads out of it is skipped and
reported, never read, and no linked folder is entered. The annotations file is different: it is checked completely
when `load` is called, and a problem in it raises `InvalidInput` before any document comes out, so that nothing is
half-ingested with wrong labels.

Document ids: a `.txt`, `.md` or `.pdf` file's id is its path relative to the folder ("notes/q3.md").
A `.json` file holds one document object or a list of them, a `.jsonl` file one object a line; an object's
id is its `doc_id`, `id` or `_id`, else its place in the file ("a.json", "list.json#2", "docs.jsonl:7").
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pypdf import PdfReader

from core.errors import InvalidInput
from core.models import BUCKET_NAME_RE, AnnotationRow, Document, SourceDocument
from retrievers.loaders.common import loads_json

BUCKET = "generic"
_ID_KEYS = ("doc_id", "id", "_id")
_BODY_KEYS = ("text", "body")
_BINARY_SNIFF_BYTES = 8192
_UNICODE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16's: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
"""Byte-order marks of text saved as UTF-16 or UTF-32 ("Unicode" in Windows' Notepad, PowerShell's `Out-File`),
whose NUL bytes would otherwise read as a binary file."""

# pypdf logs what it finds wrong in a damaged PDF ("EOF marker not found") besides raising; with no logging set up,
# Python prints those lines on stderr beside the file's one-line skip reason, which already says it.
logging.getLogger("pypdf").setLevel(logging.ERROR)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file, or one record of a file, that was not loaded, and why, in words a user can act on.

    `path` is relative to the folder; a record inside a file adds its place: "docs.jsonl:12", "list.json#3".
    """

    path: str
    reason: str


def load(
    path: Path,
    *,
    bucket: str = BUCKET,
    annotations_file: Path | None = None,
    limit: int | None = None,
    max_file_mb: int | None = None,
) -> Iterator[SourceDocument | Skipped]:
    """The documents of every supported file under `path` (recursively, in path order), and a `Skipped`
    record for each file or record that could not be used. `limit` counts documents, not skips; a file larger than
    `max_file_mb` is skipped unread (and an annotations file that large refused).

    Hidden files and folders (".git", ".DS_Store") and the annotations file itself are not documents and
    are passed over silently. Raises `InvalidInput` at once when the folder or bucket is unusable or the
    annotations file is invalid.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InvalidInput(f"{folder} is not a folder; pass the folder that holds the documents")
    if not BUCKET_NAME_RE.match(bucket):
        raise InvalidInput(
            f"bucket {bucket!r} is not a valid name; use lowercase letters, digits and '_' (2-40 characters)"
        )
    skip = {annotations_file.resolve()} if annotations_file else set()
    max_bytes = max_file_mb * 2**20 if max_file_mb else None
    extra_rows = _read_annotations_file(annotations_file, folder, skip, max_bytes) if annotations_file else {}
    return _documents(folder, bucket, extra_rows, skip, limit, max_bytes)


# --- walking the folder -------------------------------------------------------------------------------


class _Unusable(Exception):
    """A whole file cannot be used; the message is the reason shown in its `Skipped` record."""


_Record = tuple[str, dict[str, Any]]  # (place in the folder, the document's fields as read)


def _documents(
    folder: Path,
    bucket: str,
    extra_rows: dict[str, list[AnnotationRow]],
    skip: set[Path],
    limit: int | None,
    max_bytes: int | None,
) -> Iterator[SourceDocument | Skipped]:
    if limit == 0:
        return
    seen: dict[str, str] = {}  # doc_id -> where it was first found
    for item in _records(folder, skip, max_bytes, ids_only=False):
        if isinstance(item, Skipped):
            yield item
            continue
        place, fields = item
        doc_id = fields["doc_id"]
        if doc_id in seen:
            yield Skipped(place, f"doc_id {doc_id!r} is already used by {seen[doc_id]}; give each document its own id")
            continue
        try:
            document = _source_document(bucket, fields, extra_rows.get(doc_id, []))
        except ValidationError as error:
            yield Skipped(place, _validation_reason(error))
            continue
        seen[doc_id] = place
        yield document
        if len(seen) == limit:
            return


def _records(folder: Path, skip: set[Path], max_bytes: int | None, *, ids_only: bool) -> Iterator[_Record | Skipped]:
    """Each file's documents as (place, fields), or a `Skipped` record. With `ids_only`, files whose id is
    their path are not read at all, and their fields hold nothing but the id."""
    boundary = folder.resolve()
    for file in _entries(folder):
        place = file.relative_to(folder).as_posix()
        target, refusal = _target(file, boundary)
        if target in skip:
            continue
        if refusal or (refusal := _name_refusal(place)):
            yield Skipped(_shown(place), refusal)
            continue
        reader = _READERS.get(file.suffix.lower())
        if reader is None:
            yield Skipped(
                place, f"unsupported file type {file.suffix or '(none)'!r}; supported: {', '.join(SUPPORTED_SUFFIXES)}"
            )
            continue
        if ids_only and reader in (_read_plain, _read_pdf):
            yield place, {"doc_id": place}
            continue
        if max_bytes and (size := target.stat().st_size) > max_bytes:
            yield Skipped(place, f"{_megabytes(size)}, more than {_megabytes(max_bytes)} a file may have {_FILE_LIMIT}")
            continue
        try:
            for item in reader(file, place):
                yield item if isinstance(item, Skipped) else (item[0], {**item[1], "source": str(boundary / place)})
        except _Unusable as problem:
            yield Skipped(place, str(problem))
        except OSError as error:
            yield Skipped(place, f"cannot be read ({error.strerror or error})")


_FILE_LIMIT = "(RAGENT_INGEST_MAX_FILE_MB); split it into smaller files"


def _name_refusal(place: str) -> str | None:
    """Why a file's path cannot be its document's id (`Document.doc_id`: printable, no space at either end), said
    of the file's name rather than in the validator's words; None when it can."""
    if "\n" in place or "\r" in place:
        return "its name holds a line break; rename the file"
    if not place.isprintable():
        return "its name holds a control or invisible character; rename the file"
    if place != place.strip():
        return "its name starts or ends with a space; rename the file"
    return None


def _shown(place: str) -> str:
    """A path as a report line shows it: a character that is not printable as its escape ("a\\nb.txt"), so that a
    name with a line break stays on its line."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in place)


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MB"


def _target(file: Path, boundary: Path) -> tuple[Path | None, str | None]:
    """Where `file` really is, all links followed, and why it is not read, if it is not: a link that leads outside
    the folder being ingested (a server's client could otherwise read any file the server can), or to a folder,
    or anything but a regular file (a pipe would block the run for good)."""
    try:
        target = file.resolve()
    except (OSError, RuntimeError):  # a loop of links: RuntimeError before Python 3.13, OSError after
        return None, "a symbolic link that leads round in a loop; not followed"
    if not target.is_relative_to(boundary):
        return target, "a symbolic link to outside the folder being ingested; not followed (copy the file in instead)"
    if target.is_dir():
        return target, "a symbolic link to a folder inside this one; not followed, its files are read where they are"
    if file.is_symlink() and target.is_file() and not _hidden(target.relative_to(boundary)):
        # read where it is: read here too, its document would be counted twice (an outside probe's link)
        return target, "a symbolic link to a file inside this folder; not followed, the file is read where it is"
    if not target.is_file():
        return target, "not a regular file (a pipe, a device, or a link to nothing); only files are read"
    return target, None


def _hidden(place: Path) -> bool:
    """Whether a path within the folder passes through a hidden name, which `_entries` does not read."""
    return any(part.startswith(".") for part in place.parts)


def _entries(folder: Path) -> list[Path]:
    """Every file under `folder`, and every symbolic link to a folder, in path order; hidden names (".git",
    ".DS_Store") and what is under them are passed over.

    A linked folder is never entered: it may lead outside the folder (a link to "/" would walk the whole disk)
    or back into itself. `_records` reports it, and checks where every file, linked or not, really is.
    """
    entries = []
    for directory, folders, names in os.walk(folder):  # followlinks=False: linked folders are listed, not walked
        here = Path(directory)
        folders[:] = [name for name in folders if not name.startswith(".")]
        entries += [here / name for name in folders if (here / name).is_symlink()]
        entries += [here / name for name in names if not name.startswith(".")]
    return sorted(entries)


def _read_text(file: Path) -> str:
    data = file.read_bytes()
    text = _unicode_with_bom(data)
    if text is None:
        if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
            raise _Unusable(_binary_reason(data[:_BINARY_SNIFF_BYTES]))
        if (nul := data.find(b"\x00")) >= 0:  # past the sniffed start: binary in a text file, which no index can store
            raise _Unusable(f"a NUL character at byte {nul}: binary content in a text file; remove it and ingest again")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise _Unusable(f"not UTF-8 text (byte {error.start}); save it as UTF-8") from error
    if not text.strip():
        raise _Unusable("empty file")
    return text


def _binary_reason(start: bytes) -> str:
    """Why a file with NUL bytes in its start is skipped: binary, or UTF-16 text saved without a byte-order mark (a
    NUL in every other byte, as ASCII letters are in UTF-16), which the user can save again as UTF-8."""
    if len(start) >= 4 and any(start[half::2].count(0) == len(start[half::2]) for half in (0, 1)):
        return "UTF-16 text without a byte-order mark, it seems; save it as UTF-8"
    return "binary file, not text"


def _unicode_with_bom(data: bytes) -> str | None:
    """The text of a file that starts with a UTF-16 or UTF-32 byte-order mark, else None."""
    for bom, encoding in _UNICODE_BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError as error:
                raise _Unusable(
                    f"starts as {encoding.upper()} text but is not (byte {error.start}); save it as UTF-8"
                ) from error
            if "\x00" in text:
                raise _Unusable(f"a NUL character in {encoding.upper()} text: binary content; remove it, ingest again")
            return text
    return None


def _read_plain(file: Path, place: str) -> Iterator[_Record]:
    body = _read_text(file)
    yield (
        place,
        {"doc_id": place, "title": _markdown_title(body) if file.suffix.lower() == ".md" else file.stem, "body": body},
    )


def _markdown_title(body: str) -> str:
    """The first level-one heading of a Markdown file, else nothing."""
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", body, re.MULTILINE)
    return match[1] if match else ""


def _read_pdf(file: Path, place: str) -> Iterator[_Record]:
    # pypdf raises many exception types on damaged files (its own, ValueError, KeyError...): any failure
    # to parse means this one file is unusable, never that the load should stop.
    try:
        reader = PdfReader(file)
        body = "\n\n".join(page.extract_text() or "" for page in reader.pages)
        metadata = reader.metadata
        title = (metadata.title if metadata else None) or file.stem
        created_at = metadata.creation_date if metadata else None
    except Exception as error:  # noqa: BLE001 - see above
        raise _Unusable(f"not a readable PDF ({type(error).__name__}: {error})") from error
    if not body.strip():
        raise _Unusable("PDF has no text layer (a scan?); run OCR on it first")
    yield place, {"doc_id": place, "title": title, "body": body, "created_at": created_at}


def _read_json(file: Path, place: str) -> Iterator[_Record | Skipped]:
    try:
        data = loads_json(_read_text(file))
    except json.JSONDecodeError as error:
        raise _Unusable(f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from error
    if isinstance(data, dict):
        yield _json_record(data, place)
    elif isinstance(data, list):
        for number, item in enumerate(data, start=1):
            yield _json_record(item, f"{place}#{number}")
    else:
        raise _Unusable("JSON must be a document object or a list of document objects")


def _read_jsonl(file: Path, place: str) -> Iterator[_Record | Skipped]:
    """Each line's document; a file of annotation rows only (a labels file left in the folder and ingested without
    `--annotations`) is one skip saying so, not one per line. Leading rows are held only until a line that is none
    shows the file holds documents."""
    held: list[tuple[str, Any]] | None = []
    for number, line in enumerate(_read_text(file).splitlines(), start=1):
        if not line.strip():
            continue
        line_place = f"{place}:{number}"
        try:
            item = loads_json(line)
        except json.JSONDecodeError as error:
            item = Skipped(line_place, f"not valid JSON ({error.msg})")
        if held is not None and _is_annotation_row(item):
            held.append((line_place, item))
            continue
        for row_place, row in held or ():
            yield _json_record(row, row_place)
        held = None
        yield item if isinstance(item, Skipped) else _json_record(item, line_place)
    if held:
        yield Skipped(place, "annotation rows ({doc_id, row}), not documents: give it as --annotations to label them")


def _is_annotation_row(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("row"), dict) and not any(key in item for key in _BODY_KEYS)


def _json_record(item: Any, place: str) -> _Record | Skipped:
    """The fields of one JSON document object: its id (or its place), title, body and the optional keys."""
    if not isinstance(item, dict):
        return Skipped(place, "not a JSON object; a document is an object with a 'text' or 'body' key")
    body = next((item[key] for key in _BODY_KEYS if key in item), None)
    if not isinstance(body, str):
        return Skipped(place, "no 'text' or 'body' string; a document needs its text under one of them")
    doc_id = next((str(item[key]) for key in _ID_KEYS if item.get(key) not in (None, "")), place)
    fields = {key: item[key] for key in ("title", "author", "tags", "created_at", "annotations") if key in item}
    return place, {**fields, "doc_id": doc_id, "body": body}


_READERS: dict[str, Callable[[Path, str], Iterator[_Record | Skipped]]] = {
    ".txt": _read_plain,
    ".md": _read_plain,
    ".json": _read_json,
    ".jsonl": _read_jsonl,
    ".pdf": _read_pdf,
}
SUPPORTED_SUFFIXES = tuple(_READERS)


def record_ids(file: Path) -> set[str] | None:
    """The doc_ids of the records a .json or .jsonl file holds now, read as an ingest reads it, a record with no id
    of its own named by its place under the file's name alone ("docs.jsonl:7"; under the folder it was ingested
    from, "sub/docs.jsonl:7"). None for a file that is one document (its path names it) and for one that cannot
    be read, or holds a record that cannot: what it holds is then unknown."""
    reader = _READERS.get(file.suffix.lower())
    if reader not in (_read_json, _read_jsonl):
        return None
    ids = set()
    try:
        for item in reader(file, file.name):
            if isinstance(item, Skipped):
                return None
            ids.add(item[1]["doc_id"])
    except (_Unusable, OSError):
        return None
    return ids


def _source_document(bucket: str, fields: dict[str, Any], extra_rows: list[AnnotationRow]) -> SourceDocument:
    """Raises `ValidationError` with a readable message when a field or an embedded annotation is invalid."""
    document = Document(
        doc_id=fields["doc_id"],
        bucket=bucket,
        title=fields.get("title") or "",
        author=fields.get("author"),
        tags=fields.get("tags") or [],
        created_at=fields.get("created_at"),
        source=fields["source"],
        body=fields["body"],
    )
    embedded = [AnnotationRow.model_validate(row) for row in fields.get("annotations") or []]
    return SourceDocument(document=document, annotations=[*embedded, *extra_rows])


def _validation_reason(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(part) for part in e['loc']) or 'document'}: {e['msg']}" for e in error.errors())


# --- the annotations file -----------------------------------------------------------------------------

_ANNOTATION_LINE_HELP = 'each line must be {"doc_id": ..., "kind": "properties", "row": {...}, "raw": {...}}'


def _read_annotations_file(
    file: Path, folder: Path, skip: set[Path], max_bytes: int | None
) -> dict[str, list[AnnotationRow]]:
    """Every row of the annotations file by doc_id; raises `InvalidInput` on the first problem found."""
    if not file.is_file():
        raise InvalidInput(f"annotations file {file} not found; pass an existing JSONL file or none")
    if max_bytes and (size := file.stat().st_size) > max_bytes:
        raise InvalidInput(
            f"annotations file {file} has {_megabytes(size)}, more than {_megabytes(max_bytes)} {_FILE_LIMIT}"
        )
    rows: dict[str, list[AnnotationRow]] = {}
    first_line: dict[str, int] = {}
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise InvalidInput(f"annotations file {file} is not UTF-8 text; save it as UTF-8 JSONL") from error
    for number, line in enumerate(lines, start=1):
        if line.strip():
            doc_id, row = _annotation_line(line, f"{file}:{number}")
            rows.setdefault(doc_id, []).append(row)
            first_line.setdefault(doc_id, number)
    known = {
        item[1]["doc_id"] for item in _records(folder, skip, max_bytes, ids_only=True) if not isinstance(item, Skipped)
    }
    unknown = sorted(set(rows) - known, key=first_line.__getitem__)
    if unknown:
        others = f" (and {len(unknown) - 1} more unknown doc_ids)" if len(unknown) > 1 else ""
        raise InvalidInput(
            f"{file}:{first_line[unknown[0]]}: doc_id {unknown[0]!r} is not a document in {folder}{others}; "
            "use the file's path relative to the folder, or the id inside a .json/.jsonl document"
        )
    return rows


def _annotation_line(line: str, where: str) -> tuple[str, AnnotationRow]:
    try:
        item = loads_json(line)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"{where}: not valid JSON ({error.msg}); {_ANNOTATION_LINE_HELP}") from error
    if not isinstance(item, dict) or item.get("doc_id") in (None, "") or not isinstance(item.get("row"), dict):
        raise InvalidInput(f"{where}: missing 'doc_id' or 'row'; {_ANNOTATION_LINE_HELP}")
    try:
        row = AnnotationRow.model_validate({key: value for key, value in item.items() if key != "doc_id"})
    except ValidationError as error:
        raise InvalidInput(f"{where}: {_validation_reason(error)}; {_ANNOTATION_LINE_HELP}") from error
    return str(item["doc_id"]), row
