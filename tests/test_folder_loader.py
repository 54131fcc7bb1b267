"""The loader of a user's folder of files: text, Markdown, JSON, JSON Lines and PDF documents, each bad file skipped
with its reason, and an annotations file whose rows are attached to the documents or refused before any is read."""

from __future__ import annotations

import codecs
import json
from datetime import date
from pathlib import Path

import pytest

from core.errors import InvalidInput
from core.models import SourceDocument
from retrievers.loaders import files
from retrievers.loaders.files import Skipped


def _text_pdf(text: str) -> bytes:
    """A one-page PDF whose page draws `text` in Helvetica: the smallest file with a real text layer."""
    content = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return pdf + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


@pytest.fixture
def folder(tmp_path) -> Path:
    """A folder with one good file of each kind and one bad file of each kind that must be skipped."""
    root = tmp_path / "docs"
    (root / "notes").mkdir(parents=True)
    (root / "a.txt").write_text("Plain text about the warehouse.\n")
    (root / "notes" / "b.md").write_text("Some intro\n# Quarterly review\nRevenue grew.\n")
    (root / "list.json").write_text(
        json.dumps(
            [
                {
                    "id": "memo-1",
                    "title": "Memo",
                    "text": "Memo text",
                    "author": "ann",
                    "tags": ["hr"],
                    "created_at": "2024-01-02",
                    "annotations": [{"kind": "properties", "row": {"topic": "budget"}}],
                },
                {"body": "A document without an id"},
            ]
        )
    )
    (root / "lines.jsonl").write_text('{"doc_id": "l1", "text": "line one"}\n{broken\n{"doc_id": "l3"}\n')
    (root / "report.pdf").write_bytes(_text_pdf("Annual safety report"))
    (root / "scan.pdf").write_bytes(_text_pdf("").replace(b"() Tj", b""))
    (root / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    (root / "empty.txt").write_text("  \n")
    (root / "binary.txt").write_bytes(b"\x00\x01\x02 abc")
    (root / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (root / "broken.json").write_text('{"text": ')
    (root / "photo.png").write_bytes(b"\x89PNG\r\n")
    (root / ".hidden.txt").write_text("not a document")
    return root


def test_folder_loads_good_files_and_reports_bad_ones(folder, caplog):
    items = list(files.load(folder, bucket="notes"))
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")]
    assert not logged, "a damaged file is said once, by its skip reason, not by pypdf's log lines on stderr too"
    loaded = {item.document.doc_id: item for item in items if isinstance(item, SourceDocument)}
    skipped = {item.path: item.reason for item in items if isinstance(item, Skipped)}
    assert set(loaded) == {"a.txt", "notes/b.md", "memo-1", "list.json#2", "l1", "report.pdf"}
    assert set(skipped) == {
        "lines.jsonl:2",
        "lines.jsonl:3",
        "scan.pdf",
        "corrupt.pdf",
        "empty.txt",
        "binary.txt",
        "latin1.txt",
        "broken.json",
        "photo.png",
    }
    assert "no text layer" in skipped["scan.pdf"] and "OCR" in skipped["scan.pdf"]
    assert "UTF-8" in skipped["latin1.txt"] and "binary" in skipped["binary.txt"] and "empty" in skipped["empty.txt"]
    assert "not valid JSON" in skipped["broken.json"] and "unsupported" in skipped["photo.png"]
    assert "Annual safety report" in loaded["report.pdf"].document.body
    assert loaded["notes/b.md"].document.title == "Quarterly review"
    memo = loaded["memo-1"]
    assert (memo.document.author, memo.document.tags, memo.document.created_at.date()) == (
        "ann",
        ["hr"],
        date(2024, 1, 2),
    )
    assert memo.annotations[0].row == {"topic": "budget"}
    assert all(item.document.bucket == "notes" for item in loaded.values())


def test_folder_limit_counts_documents_not_skips(folder):
    items = list(files.load(folder, limit=2))
    assert sum(isinstance(item, SourceDocument) for item in items) == 2


def test_folder_duplicate_doc_id_is_skipped(folder):
    (folder / "z.jsonl").write_text('{"doc_id": "memo-1", "text": "another memo"}\n')
    skipped = [item for item in files.load(folder) if isinstance(item, Skipped)]
    assert any(item.path == "z.jsonl:1" and "already used by list.json#1" in item.reason for item in skipped)


def test_annotations_file_rows_are_attached(folder, tmp_path):
    annotations = tmp_path / "labels.jsonl"
    annotations.write_text(
        json.dumps(
            {
                "doc_id": "a.txt",
                "kind": "properties",
                "row": {"site": "Newark", "pallets": 12},
                "raw": {"pallets": "12"},
            }
        )
        + "\n"
        + json.dumps({"doc_id": "memo-1", "row": {"approved": True}})
        + "\n"
    )
    loaded = {
        i.document.doc_id: i for i in files.load(folder, annotations_file=annotations) if isinstance(i, SourceDocument)
    }
    assert [a.row for a in loaded["a.txt"].annotations] == [{"site": "Newark", "pallets": 12}]
    assert [a.row for a in loaded["memo-1"].annotations] == [{"topic": "budget"}, {"approved": True}]


def test_annotations_file_inside_the_folder_is_not_a_document(folder):
    annotations = folder / "labels.jsonl"
    annotations.write_text(json.dumps({"doc_id": "a.txt", "row": {"site": "Newark"}}) + "\n")
    items = list(files.load(folder, annotations_file=annotations))
    assert not any(getattr(item, "path", "").startswith("labels.jsonl") for item in items)
    assert not any(
        isinstance(item, SourceDocument) and item.document.doc_id.startswith("labels.jsonl") for item in items
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"doc_id": "a.txt", "row": ', "labels.jsonl:2: not valid JSON"),
        ('{"doc_id": "nope.txt", "row": {"x": 1}}', "labels.jsonl:2: doc_id 'nope.txt' is not a document"),
        ('{"row": {"x": 1}}', "labels.jsonl:2: missing 'doc_id' or 'row'"),
        ('{"doc_id": "a.txt", "row": {"bad name": 1}}', "labels.jsonl:2: .*not valid"),
        ('{"doc_id": "a.txt", "row": {"total": NaN}}', "labels.jsonl:2: not valid JSON \\(NaN is not a finite number"),
        ('{"doc_id": "a.txt", "row": {"total": 1e400}}', "labels.jsonl:2: not valid JSON \\(1e400 is not a finite"),
    ],
)
def test_bad_annotations_file_raises_before_any_document(folder, tmp_path, line, message):
    annotations = tmp_path / "labels.jsonl"
    annotations.write_text(json.dumps({"doc_id": "a.txt", "row": {"ok": 1}}) + "\n" + line + "\n")
    with pytest.raises(InvalidInput, match=message):
        files.load(folder, annotations_file=annotations)  # raises on the call, before iteration


def test_folder_and_bucket_are_checked_on_the_call(tmp_path):
    with pytest.raises(InvalidInput, match="is not a folder"):
        files.load(tmp_path / "missing")
    with pytest.raises(InvalidInput, match="bucket 'Bad Bucket'"):
        files.load(tmp_path, bucket="Bad Bucket")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_text_saved_as_utf16_or_utf32_with_a_byte_order_mark_is_read(tmp_path, encoding):
    text = "Governing law: the laws of Québec.\n"
    bom = {"utf-16-be": codecs.BOM_UTF16_BE}.get(encoding, b"")
    (tmp_path / "notepad.txt").write_bytes(bom + text.encode(encoding))
    (loaded,) = files.load(tmp_path, bucket="notes")
    assert isinstance(loaded, SourceDocument) and loaded.document.body == text


def test_utf16_text_without_a_byte_order_mark_is_skipped_with_advice_and_binary_named_binary(tmp_path):
    (tmp_path / "no-bom.txt").write_bytes("Governing law: Delaware.".encode("utf-16-le"))
    (tmp_path / "image.txt").write_bytes(b"\x89\x00\x01\x02\x03\xff\x00\x10")
    reasons = {item.path: item.reason for item in files.load(tmp_path, bucket="notes")}
    assert reasons["no-bom.txt"] == "UTF-16 text without a byte-order mark, it seems; save it as UTF-8"
    assert reasons["image.txt"] == "binary file, not text"


@pytest.mark.parametrize(
    ("name", "shown", "reason"),
    [
        ("two\nlines.txt", "two\\nlines.txt", "its name holds a line break; rename the file"),
        ("bell\a.txt", "bell\\x07.txt", "its name holds a control or invisible character; rename the file"),
        (" spaced.txt", " spaced.txt", "its name starts or ends with a space; rename the file"),
    ],
    ids=["newline", "bell", "leading-space"],
)
def test_a_file_whose_name_cannot_be_an_id_is_skipped_naming_the_name_on_one_line(tmp_path, name, shown, reason):
    (tmp_path / name).write_text("Governing law: Delaware.")
    (tmp_path / "fine.txt").write_text("Governing law: Texas.")
    items = list(files.load(tmp_path, bucket="notes"))
    assert [item.document.doc_id for item in items if isinstance(item, SourceDocument)] == ["fine.txt"]
    assert [(item.path, item.reason) for item in items if isinstance(item, Skipped)] == [(shown, reason)]


def test_a_labels_file_left_in_the_folder_is_one_skip_that_says_to_give_it_as_annotations(tmp_path):
    (tmp_path / "a.txt").write_text("Governing law: Delaware.")
    rows = [{"doc_id": "a.txt", "kind": "properties", "row": {"governing_law": "Delaware"}}] * 12
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    items = list(files.load(tmp_path, bucket="notes"))
    assert [item.document.doc_id for item in items if isinstance(item, SourceDocument)] == ["a.txt"]
    assert [(item.path, item.reason) for item in items if isinstance(item, Skipped)] == [
        ("labels.jsonl", "annotation rows ({doc_id, row}), not documents: give it as --annotations to label them")
    ]


def test_a_jsonl_of_rows_then_documents_reads_each_line_as_before(tmp_path):
    """Leading annotation rows are held only until a document shows the file holds documents: then each row is the
    skip it always was, in its place."""
    lines = [{"doc_id": "a", "row": {"x": 1}}, {"doc_id": "b", "text": "A document."}]
    (tmp_path / "mixed.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    items = list(files.load(tmp_path, bucket="notes"))
    assert [type(item).__name__ for item in items] == ["Skipped", "SourceDocument"]
    assert items[0].path == "mixed.jsonl:1" and "no 'text' or 'body'" in items[0].reason
