"""What ingestion keeps bounded and level: the skipped-record report, the width of an annotation row, and the field
catalog after an ingest that was killed or failed part-way (issue 12, items 6 to 8)."""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import psycopg
import pytest
from pydantic import ValidationError

from core.errors import InvalidInput
from core.models import (
    MAX_FIELD_NAME_CHARS,
    MAX_ROW_BYTES,
    MAX_ROW_FIELDS,
    AnnotationRow,
    Chunk,
    Document,
    FieldSpec,
    IndexedChunk,
    SourceDocument,
)
from graph.ingest_graph import build_ingest
from retrievers import loaders
from retrievers.ingestion.consistency import STALE_CATALOG, check
from retrievers.ingestion.pipeline import SKIPPED_SHOWN, Ingestor
from retrievers.ingestion.sources import ingest_source
from retrievers.postgres.annotation_filters import Predicate
from retrievers.postgres.schema import MARK_STALE
from tests.conftest import make_stack, shared_dataset
from tests.test_cli import ragent
from tests.test_crashes import SAMPLE_INGEST, kill_ingest_after_first_commit

UNUSABLE_RECORDS = 200_000
DEADLINE_S = 120


# -- item 6: skipped records are counted, and only the first few listed -------------------------------------------


def test_a_file_of_unusable_records_is_counted_and_only_its_first_reasons_are_listed(stack, tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "empty-objects.jsonl").write_text("{}\n" * UNUSABLE_RECORDS)
    (inbox / "note.txt").write_text("The cafeteria closes at three on Fridays.")
    monkeypatch.setenv("RAGENT_INGEST_ROOTS", str(inbox))

    result = build_ingest(SimpleNamespace(stack=stack)).compile().invoke({"path": str(inbox), "bucket": "generic"})

    assert result["added"] == 1, "the usable file is ingested beside the unusable one"
    assert result["skipped_total"] == UNUSABLE_RECORDS
    assert [s["path"] for s in result["skipped"]] == [f"empty-objects.jsonl:{n}" for n in range(1, SKIPPED_SHOWN + 1)]
    assert "no 'text' or 'body' string" in result["skipped"][0]["reason"]
    assert len(json.dumps(result)) < 10_000, "the run's response (and the thread state) stays small"
    # `summary` is what `ragent ingest` prints
    summary = result["summary"].splitlines()
    assert len(summary) < SKIPPED_SHOWN + 10
    assert f"skipped files: {UNUSABLE_RECORDS}" in summary
    assert f"  ... and {UNUSABLE_RECORDS - SKIPPED_SHOWN} more (only the first {SKIPPED_SHOWN} are listed)" in summary


# -- item 7: annotation rows are bounded where they enter ---------------------------------------------------------

TOO_WIDE = {
    "fields": ({f"f{i}": i for i in range(100_000)}, f"more than the {MAX_ROW_FIELDS} a row may hold"),
    "name": ({"n" * 100_000: 1}, f"more than {MAX_FIELD_NAME_CHARS}"),
    "bytes": ({"clause": "x" * (2 * MAX_ROW_BYTES)}, f"more than the {MAX_ROW_BYTES} a row may take"),
}


@pytest.mark.parametrize("too_wide", TOO_WIDE)
def test_an_annotations_file_with_a_row_beyond_a_limit_stops_with_one_short_line_naming_it(stack, tmp_path, too_wide):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Master services agreement governed by Delaware law.")
    (folder / "b.txt").write_text("Supply agreement governed by New York law.")
    labels = tmp_path / "labels.jsonl"
    row, reason = TOO_WIDE[too_wide]
    labels.write_text(
        json.dumps({"doc_id": "a.txt", "row": {"governing_law": "Delaware"}})
        + "\n"
        + json.dumps({"doc_id": "b.txt", "row": row})
        + "\n"
    )
    with pytest.raises(InvalidInput) as refused:
        ingest_source(stack, path=folder, bucket="contracts", annotations=labels, progress=False)
    message = str(refused.value)
    assert message.startswith(f"{labels}:2: row: ") and reason in message
    assert "\n" not in message and len(message) < 400
    assert stack.store.counts()["documents"] == 0, "the file is checked whole before anything is written"


def test_a_document_whose_own_annotations_are_too_wide_is_skipped_and_the_rest_ingested(stack, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    wide = {"text": "Receipt from Acme.", "annotations": [{"row": {f"f{i}": i for i in range(MAX_ROW_FIELDS + 1)}}]}
    fine = {"text": "Receipt from Contoso.", "annotations": [{"row": {"company": "Contoso"}}]}
    (folder / "receipts.jsonl").write_text(json.dumps(wide) + "\n" + json.dumps(fine) + "\n")
    report = ingest_source(stack, path=folder, bucket="receipts", progress=False)
    assert report.added == 1
    [skipped] = report.skipped
    assert skipped.path == "receipts.jsonl:1" and f"more than the {MAX_ROW_FIELDS} a row may hold" in skipped.reason


def test_a_nul_character_anywhere_skips_that_one_document_and_leaves_nothing_half_written(stack, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fine.txt").write_text("A supply agreement governed by the laws of Ohio.")
    (folder / "late_nul.txt").write_text("x" * 9000 + "\x00 a text with binary in it")  # past the sniffed start
    records = [
        {"doc_id": "a", "text": "Receipt from Acme.", "title": "Acme\u0000"},
        {"doc_id": "b", "text": "Receipt from Contoso.", "annotations": [{"row": {"company": "Contoso\u0000"}}]},
        {"doc_id": "c", "text": "Receipt from Fabrikam.", "annotations": [{"row": {"company": "Fabrikam"}}]},
    ]
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    report = ingest_source(stack, path=folder, bucket="receipts", progress=False)
    assert report.added == 2, report.summary()
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons.keys() == {"late_nul.txt", "records.jsonl:1", "records.jsonl:2"}
    assert reasons["late_nul.txt"].startswith("a NUL character at byte 9000")
    assert all("NUL character" in reason for reason in reasons.values())
    assert check(stack, repair=False).consistent, "no chunk of a skipped document in any index"


def test_a_row_at_the_limits_is_accepted():
    row = {f"f{i:03d}_" + "x" * (MAX_FIELD_NAME_CHARS - 5): 1 for i in range(MAX_ROW_FIELDS)}
    assert len(json.dumps(row)) < MAX_ROW_BYTES
    assert len(AnnotationRow(row=row, raw=row).row) == MAX_ROW_FIELDS
    with pytest.raises(ValidationError, match="raw"):
        AnnotationRow(row={}, raw={**row, "one_more": 1})


@pytest.mark.parametrize("dataset", ["cuad", "kleister_nda", "sroie", "invoices", "sample"])
def test_every_row_of_the_real_datasets_is_far_inside_the_limits(dataset):
    if dataset != "sample":
        shared_dataset(loaders.dataset_path(dataset).name)
    rows = [
        part
        for source in loaders.DATASETS[dataset].load(loaders.dataset_path(dataset))
        for row in source.annotations
        for part in (row.row, row.raw)
    ]
    assert rows
    assert max(len(part) for part in rows) * 10 <= MAX_ROW_FIELDS
    assert max(len(json.dumps(part, ensure_ascii=False).encode()) for part in rows) * 10 <= MAX_ROW_BYTES
    assert max(len(name) for part in rows for name in part) <= MAX_FIELD_NAME_CHARS


# -- item 8: the field catalog after an interrupted ingest --------------------------------------------------------


class _Killed(BaseException):
    """The process dying at that line: nothing after it runs, no `except Exception` catches it."""


def _receipts(count: int) -> list[SourceDocument]:
    return [
        SourceDocument(
            document=Document(doc_id=f"r{i:03d}", bucket="receipts", body=f"Receipt {i} from Acme Stores."),
            annotations=[AnnotationRow(row={"company": f"Acme Stores {i % 3}", "total": 10.5 + i})],
        )
        for i in range(count)
    ]


def _fields_in_rows(store, bucket: str) -> dict[tuple[str, str], int]:
    """(kind, field) -> documents having it, read from the annotation rows themselves."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT a.kind, e.key, count(DISTINCT a.doc_id) FROM annotations a CROSS JOIN LATERAL jsonb_each(a.row) e"
            " WHERE a.bucket = %s AND jsonb_typeof(e.value) <> 'null' GROUP BY 1, 2",
            (bucket,),
        ).fetchall()
    return {(kind, field): docs for kind, field, docs in rows}


def _catalog(store, bucket: str) -> dict[tuple[str, str], int]:
    return {(f.kind, f.name): f.doc_count for f in store.field_catalog("default", bucket)}


def _die_at_the_catalog_refresh(monkeypatch, store) -> None:
    def die(scope, bucket):
        raise _Killed(f"killed before refreshing the catalog of {scope}/{bucket}")

    monkeypatch.setattr(store, "refresh_catalog", die)


def _stale_found(report) -> int:
    [drift] = [d for d in report.drift if d.kind == STALE_CATALOG]
    return drift.found


def test_an_ingest_that_fails_part_way_leaves_a_catalog_of_the_rows_it_committed(stack):
    def receipts_then_a_failure():
        yield from _receipts(20)
        raise RuntimeError("the source folder went away")

    with pytest.raises(RuntimeError, match="went away"):
        Ingestor(stack).ingest(receipts_then_a_failure(), progress=False)
    committed = _fields_in_rows(stack.store, "receipts")
    assert committed == {("properties", "company"): 16, ("properties", "total"): 16}, "the first batch committed"
    assert _catalog(stack.store, "receipts") == committed
    assert stack.store.stale_catalogs("default") == []


def test_check_reports_a_catalog_an_interrupted_ingest_left_stale_and_repair_rebuilds_it(stack, monkeypatch):
    with monkeypatch.context() as patch:
        _die_at_the_catalog_refresh(patch, stack.store)
        with pytest.raises(_Killed):
            Ingestor(stack).ingest(_receipts(20), progress=False)
    assert _catalog(stack.store, "receipts") == {}, "the rows are committed, their catalog is not"

    found = check(stack, repair=False)
    assert _stale_found(found) == 1 and not found.consistent
    assert "ragent check --repair" in found.table()
    repaired = check(stack, repair=True)
    assert _stale_found(repaired) == 1 and repaired.consistent
    assert _catalog(stack.store, "receipts") == _fields_in_rows(stack.store, "receipts") != {}
    assert check(stack, repair=False).clean


def test_a_rerun_that_finds_every_document_unchanged_still_refreshes_the_stale_catalog(stack, monkeypatch):
    with monkeypatch.context() as patch:
        _die_at_the_catalog_refresh(patch, stack.store)
        with pytest.raises(_Killed):
            Ingestor(stack).ingest(_receipts(20), progress=False)

    acme = [Predicate(field="company", op="~", value="acme")]
    with pytest.raises(InvalidInput, match="fields of this bucket: none"):  # `ragent annotations` after the kill
        stack.store.find_annotations("default", "receipts", acme)

    again = Ingestor(stack).ingest(_receipts(20), progress=False)
    assert (again.added, again.unchanged) == (0, 20)
    assert _catalog(stack.store, "receipts") == _fields_in_rows(stack.store, "receipts") != {}
    assert len(stack.store.find_annotations("default", "receipts", acme)) == 20


def test_a_database_from_before_catalog_marks_gets_its_stale_catalogs_refreshed(stack, monkeypatch):
    with monkeypatch.context() as patch:
        _die_at_the_catalog_refresh(patch, stack.store)
        with pytest.raises(_Killed):
            Ingestor(stack).ingest(_receipts(20), progress=False)
    with stack.store.pool.connection() as conn:
        conn.execute("DROP TABLE stale_catalogs")  # as the database was before this version
    stack.store.ensure_schema()  # what every process does when it opens the store

    Ingestor(stack).ingest(_receipts(20), progress=False)
    assert _catalog(stack.store, "receipts") == _fields_in_rows(stack.store, "receipts") != {}


def _commit(store, source: SourceDocument) -> None:
    body = source.document.body
    h = source.content_hash()
    store.commit_document(
        source,
        h,
        [Chunk(0, 0, len(body), body)],
        [IndexedChunk.make_id(source.document.scope, source.document.doc_id, h, 0)],
    )


def test_changed_field_specs_and_a_document_moving_bucket_mark_the_catalogs_they_change(store):
    receipt = _receipts(1)[0]
    _commit(store, receipt)
    store.refresh_catalog("default", "receipts")
    assert store.stale_catalogs("default") == []

    spec = FieldSpec(name="total", type="number", description="Total paid")
    store.record_field_specs("receipts", [spec])
    assert store.stale_catalogs("default") == ["receipts"]
    store.refresh_catalog("default", "receipts")
    store.record_field_specs("receipts", [spec])
    assert store.stale_catalogs("default") == [], "declaring the same specs again changes nothing"

    moved = receipt.model_copy(deep=True)
    moved.document.bucket = "invoices"
    _commit(store, moved)
    assert store.stale_catalogs("default") == ["invoices", "receipts"], "the bucket it left lists its fields too"


def test_a_commit_that_lands_while_the_catalog_is_refreshed_leaves_the_catalog_marked(store, database_url):
    """The refresh reads the rows before the commit and finishes after it: its catalog lacks the new row, so the
    mark must survive for the next refresh."""
    _commit(store, _receipts(1)[0])
    # The writer's transaction stays open (a document written, not committed) until the refresh waits for it; the
    # writer is closed first on the way out, so that a failed wait cannot leave the refresh blocked for good.
    with ThreadPoolExecutor(1) as pool, psycopg.connect(database_url) as writer:
        writer.execute(MARK_STALE.format("VALUES ('default', 'receipts')"))  # as commit_document marks
        writer.execute(
            "INSERT INTO documents (scope, doc_id, bucket, title, source, body, content_hash)"
            " VALUES ('default', 'late', 'receipts', '', '', 'A late receipt.', 'h')"
        )
        writer.execute(
            "INSERT INTO annotations (scope, annotation_id, doc_id, bucket, kind, row)"
            " VALUES ('default', 'late#properties-0', 'late', 'receipts', 'properties', '{\"cashier\": \"Dana\"}')"
        )
        refreshed = pool.submit(store.refresh_catalog, "default", "receipts")
        _wait_until_blocked_by(writer, database_url)
        writer.commit()
        refreshed.result(timeout=DEADLINE_S)
    assert ("properties", "cashier") not in _catalog(store, "receipts")
    assert store.stale_catalogs("default") == ["receipts"]
    store.refresh_catalog("default", "receipts")
    assert _catalog(store, "receipts") == _fields_in_rows(store, "receipts")
    assert store.stale_catalogs("default") == []


def _wait_until_blocked_by(writer: psycopg.Connection, database_url: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    with psycopg.connect(database_url, autocommit=True) as watcher:
        while not watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", (writer.info.backend_pid,)
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "the refresh never reached the writer's mark"
            time.sleep(0.01)


def test_an_ingest_killed_with_sigkill_leaves_a_catalog_that_check_reports_and_a_rerun_refreshes(
    database_url, tmp_path, minilm
):
    survived = kill_ingest_after_first_commit(database_url, tmp_path)

    checked = ragent("check", home=tmp_path, DATABASE_URL=database_url)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert re.search(rf"^catalog\s+{STALE_CATALOG}\s+[1-9]", checked.stdout, re.MULTILINE), checked.stdout

    again = ragent(*SAMPLE_INGEST, "--limit", str(survived), home=tmp_path, DATABASE_URL=database_url)
    assert again.returncode == 0, again.stderr
    assert f"({0} added, 0 updated, {survived} unchanged)" in again.stdout
    stack = make_stack(database_url, tmp_path, minilm)
    try:
        for bucket in stack.store.bucket_document_counts("default"):
            assert _catalog(stack.store, bucket) == _fields_in_rows(stack.store, bucket), bucket
        assert _catalog(stack.store, "contracts"), "the first document committed is a contract with annotations"
        # (the engines still hold the chunks of the batch the kill cut short: test_crashes covers those)
        assert _stale_found(check(stack, repair=False)) == 0
    finally:
        stack.close()
