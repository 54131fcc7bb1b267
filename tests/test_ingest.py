"""Ingestion into the real embedded stack: counts agree across stores, re-ingest is free, updates replace."""

from __future__ import annotations

import json

import pytest

from core.errors import InvalidInput
from core.models import SearchFilter
from retrievers.ingestion.pipeline import STAGES, Ingestor
from retrievers.ingestion.sources import ingest_source
from retrievers.loaders import files
from retrievers.search import Retriever

CONTRACT = (
    "MASTER SERVICES AGREEMENT between Northwind Traders LLC and Contoso Ltd. "
    + "The Supplier shall provide support services as described in each statement of work. " * 40
    + "Either party may terminate this Agreement by giving sixty (60) days prior written notice to the other party. "
    + "This Agreement shall be governed by the laws of the State of Delaware."
)


def _folder(tmp_path, **docs: str):
    folder = tmp_path / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text)
    return folder


def _counts_agree(stack) -> dict:
    store = stack.store.counts()
    everything = SearchFilter()
    assert stack.keyword.count(everything) == store["chunks"] == stack.vectors.count(everything)
    return store


def test_ingest_writes_every_store_and_chunks_long_documents_with_offsets(stack, tmp_path):
    folder = _folder(
        tmp_path, **{"msa.txt": CONTRACT, "memo.md": "# Lunch\n\nThe cafeteria closes at three on Fridays."}
    )
    report = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    assert (report.added, report.unchanged, report.skipped) == (2, 0, [])
    counts = _counts_agree(stack)
    assert counts["documents"] == 2 and counts["chunks"] == report.chunks > 2
    body = stack.store.get_document("default", "msa.txt")["body"]
    hits = Retriever(stack).keyword("Delaware", SearchFilter(doc_ids=["msa.txt"]), 5)
    assert hits and body[hits[0].start : hits[0].end] == hits[0].text and "Delaware" in hits[0].text


def test_reingest_is_free_and_a_changed_document_replaces_its_old_chunks(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT, "memo.txt": "Cafeteria hours change next week."})
    Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    again = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    assert (again.unchanged, again.added, again.updated, again.embeddings_computed) == (2, 0, 0, 0)

    (folder / "memo.txt").write_text("The cafeteria now opens at seven in the morning.")
    changed = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    assert (changed.updated, changed.unchanged) == (1, 1)
    _counts_agree(stack)
    assert stack.store.get_document("default", "memo.txt")["version"] == 2
    assert Retriever(stack).keyword("hours change next week", SearchFilter(doc_ids=["memo.txt"]), 5) == []
    assert Retriever(stack).keyword("opens at seven", SearchFilter(doc_ids=["memo.txt"]), 5)


def test_semantic_search_finds_a_paraphrase_and_fused_combines_both(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT, "memo.txt": "The cafeteria closes at three on Fridays."})
    Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    retriever = Retriever(stack)
    hits = retriever.semantic("how much warning is needed to cancel the deal", SearchFilter(), 3)
    assert hits[0].doc_id == "msa.txt" and "sixty (60) days" in hits[0].text
    assert retriever.fused("when does the canteen shut", SearchFilter(), 3)[0].doc_id == "memo.txt"


def test_scopes_are_isolated(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    items = list(files.load(folder, bucket="contracts"))
    for item in items:
        item.document.scope = "tenant_b"
    Ingestor(stack).ingest(items, progress=False)
    retriever = Retriever(stack)
    for mode in ("keyword", "semantic", "fused"):
        assert getattr(retriever, mode)("Delaware", SearchFilter(), 10) == []
        assert getattr(retriever, mode)("Delaware", SearchFilter(scope="tenant_b"), 10)


def test_an_ingest_cannot_tell_whether_another_scope_holds_the_same_text(stack, tmp_path):
    """The report's "N from cache" (and its time) said that a text was already embedded, in any scope."""
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})

    def ingest(scope: str):
        items = list(files.load(folder, bucket="contracts"))
        for item in items:
            item.document.scope = scope
        report = Ingestor(stack).ingest(items, progress=False, force=True)
        return report.chunks, report.embeddings_computed, report.embeddings_cached

    chunks, *_ = ingest("tenant_a")
    assert chunks > 1
    assert ingest("tenant_b") == (chunks, chunks, 0), "tenant_a's vectors are not tenant_b's cache"
    assert ingest("tenant_b") == (chunks, 0, chunks), "tenant_b's own are"


def test_chunks_that_postgres_has_not_committed_are_never_returned(stack, tmp_path):
    """A crash after the engines were written but before the Postgres commit leaves nothing visible."""
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    ingestor = Ingestor(stack)
    source = next(iter(files.load(folder, bucket="contracts")))
    chunks, indexed = ingestor._chunk(source, source.content_hash())
    stack.keyword.upsert(indexed)
    stack.vectors.upsert(indexed, stack.embedder.embed_documents([c.text for c in indexed]))
    assert stack.keyword.search("Delaware", SearchFilter(), 5), "the engine holds the uncommitted chunks"
    assert Retriever(stack).keyword("Delaware", SearchFilter(), 5) == []
    assert Retriever(stack).semantic("Delaware governing law", SearchFilter(), 5) == []
    report = ingestor.ingest(files.load(folder, bucket="contracts"), progress=False)
    assert report.added == 1
    _counts_agree(stack)


def test_bad_files_are_skipped_with_reasons_and_the_rest_ingested(stack, tmp_path):
    folder = _folder(
        tmp_path,
        **{"good.txt": "A perfectly fine note about invoices.", "empty.txt": "   \n", "broken.json": "{not json"},
    )
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02\xff" * 100)
    report = Ingestor(stack).ingest(files.load(folder, bucket="generic"), progress=False)
    assert report.added == 1
    assert {s.path for s in report.skipped} == {"empty.txt", "broken.json", "binary.txt"}
    assert all(s.reason for s in report.skipped)
    assert "skipped files: 3" in report.summary()


def test_annotations_file_naming_an_unknown_document_writes_nothing(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "missing.txt", "row": {"governing_law": "Delaware"}}) + "\n")
    with pytest.raises(InvalidInput, match="missing.txt"):
        Ingestor(stack).ingest(files.load(folder, bucket="contracts", annotations_file=labels), progress=False)
    assert stack.store.counts() == {"documents": 0, "chunks": 0, "annotations": 0}


def test_annotations_from_a_file_become_typed_catalog_fields(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps(
            {
                "doc_id": "msa.txt",
                "row": {"notice_period_days": 60, "governing_law": "Delaware", "signed": "2021-03-04"},
            }
        )
        + "\n"
    )
    report = Ingestor(stack).ingest(files.load(folder, bucket="contracts", annotations_file=labels), progress=False)
    assert report.annotation_rows == 1
    catalog = {f.name: f for f in stack.store.field_catalog("default", "contracts")}
    labelled = {"notice_period_days": "integer", "governing_law": "string", "signed": "date"}
    assert {name: catalog[name].type for name in labelled} == labelled
    assert all(catalog[name].extracted_count == 0 for name in labelled)
    # the contract's other fields come from its text (parties, the clause flags), each counted as extracted
    assert all(f.extracted_count == f.doc_count == 1 for name, f in catalog.items() if name not in labelled)


def test_a_folder_ingested_again_without_its_annotations_file_keeps_the_stored_rows(stack, tmp_path):
    """Re-ingesting a folder to add a file once deleted every label of the others (a probe's data loss)."""
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "msa.txt", "row": {"notice_period_days": 60, "governing_law": "Delaware"}}))
    ingest_source(stack, path=folder, bucket="contracts", annotations=labels, progress=False)
    (folder / "nda.txt").write_text("Mutual non-disclosure agreement between Acme and Zenith.")
    again = ingest_source(stack, path=folder, bucket="contracts", progress=False)
    assert (again.added, again.unchanged, again.updated) == (1, 1, 0), "the labelled document is unchanged"
    assert _labelled(stack, "msa.txt") == [{"notice_period_days": 60, "governing_law": "Delaware"}]
    labels.write_text(json.dumps({"doc_id": "msa.txt", "row": {"notice_period_days": 90}}))
    ingest_source(stack, path=folder, bucket="contracts", annotations=labels, progress=False)
    assert _labelled(stack, "msa.txt") == [{"notice_period_days": 90}], "an annotations file still replaces the rows"


def test_an_annotations_file_naming_one_document_keeps_the_labels_of_the_others(stack, tmp_path):
    """A user correcting one recipe's label with a one-line file lost the labels of the 13 others (an outside
    probe's data loss): the ingest said "14 updated" and the catalog then held the field in one document."""
    folder = _folder(
        tmp_path, **{"msa.txt": CONTRACT, "nda.txt": "Mutual non-disclosure agreement between Acme and Zenith."}
    )
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"doc_id": "msa.txt", "row": {"notice_period_days": 60}})
        + "\n"
        + json.dumps({"doc_id": "nda.txt", "row": {"notice_period_days": 30}})
    )
    ingest_source(stack, path=folder, bucket="contracts", annotations=labels, progress=False)
    correction = tmp_path / "correction.jsonl"
    correction.write_text(json.dumps({"doc_id": "nda.txt", "row": {"notice_period_days": 45}}))
    ingest_source(stack, path=folder, bucket="contracts", annotations=correction, progress=False)
    assert _labelled(stack, "nda.txt") == [{"notice_period_days": 45}]
    assert _labelled(stack, "msa.txt") == [{"notice_period_days": 60}]


def _labelled(stack, doc_id: str) -> list[dict]:
    """The document's rows as its labels give them (what extraction found in its text left out)."""
    rows = stack.store.document_annotations("default", doc_id)
    return [{k: v for k, v in r["row"].items() if k not in r["sources"]} for r in rows]


def test_a_file_of_another_folder_with_the_same_name_does_not_replace_the_document(stack, tmp_path):
    """Ids are paths within the folder given, so `2023/report.txt` and `2024/report.txt` are both "report.txt";
    ingesting the second folder silently replaced the first folder's document (a probe's data loss)."""
    older, newer = tmp_path / "2023", tmp_path / "2024"
    for folder, year in ((older, 2023), (newer, 2024)):
        folder.mkdir()
        (folder / "report.txt").write_text(f"Revenue in {year} was {year - 2019} million.")
    ingest_source(stack, path=older, bucket="generic", progress=False)
    refused = ingest_source(stack, path=newer, bucket="generic", progress=False)
    assert (refused.added, refused.updated) == (0, 0)
    assert [s.path for s in refused.skipped] == ["report.txt"]
    assert f"came from {(older / 'report.txt').resolve()}, another file" in refused.skipped[0].reason
    assert "2023" in stack.store.get_document("default", "report.txt")["body"]
    (older / "report.txt").write_text("Revenue in 2023 was 4.2 million (restated).")
    again = ingest_source(stack, path=older, bucket="generic", progress=False)
    assert again.updated == 1, "the file it came from still updates it"


def test_a_folder_ingested_into_another_bucket_moves_nothing(stack, tmp_path):
    """An outside probe: ingesting a folder again with another `--bucket` moved its documents there, dropped
    their fields, and said "2 updated". Each is skipped, saying which bucket holds it; nothing changes."""
    folder = _folder(tmp_path, **{"master services.txt": CONTRACT})
    ingest_source(stack, path=folder, bucket="contracts", progress=False)
    rows = stack.store.document_annotations("default", "master services.txt")
    moved = ingest_source(stack, path=folder, bucket="generic", progress=False)
    assert (moved.added, moved.updated, moved.unchanged) == (0, 0, 0)
    assert [s.path for s in moved.skipped] == ["master services.txt"]
    assert "is in bucket contracts" in moved.skipped[0].reason
    assert "`ragent documents delete 'master services.txt'`" in moved.skipped[0].reason, "a command to paste"
    assert stack.store.get_document("default", "master services.txt")["bucket"] == "contracts"
    assert stack.store.document_annotations("default", "master services.txt") == rows


def test_a_file_gone_from_the_folder_is_reported_and_deleted_only_when_asked(stack, tmp_path):
    """An outside probe moved a file out of a folder: its next ingest said nothing, and the document stayed in
    every count. It is now named in the report, and `prune` deletes it (from all three stores)."""
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT, "memo.md": "The cafeteria closes at three on Fridays."})
    ingest_source(stack, path=folder, bucket="contracts", progress=False)
    (folder / "memo.md").unlink()
    kept = ingest_source(stack, path=folder, bucket="contracts", progress=False)
    assert kept.left_behind == ["memo.md"] and kept.pruned == []
    assert "no longer in the folder: 1 document still ingested from it" in kept.summary()
    assert stack.store.get_document("default", "memo.md") is not None
    with pytest.raises(InvalidInput, match="whole folder"):
        ingest_source(stack, path=folder, bucket="contracts", limit=1, prune=True, progress=False)
    pruned = ingest_source(stack, path=folder, bucket="contracts", prune=True, progress=False)
    assert pruned.pruned == ["memo.md"] and stack.store.get_document("default", "memo.md") is None
    assert _counts_agree(stack)["documents"] == 1
    assert ingest_source(stack, path=folder, bucket="contracts", progress=False).left_behind == []
    (folder / "msa.txt").unlink()  # an emptied folder (an unmounted drive) is no reason to delete everything
    with pytest.raises(InvalidInput, match="holds no document now"):
        ingest_source(stack, path=folder, bucket="contracts", prune=True, progress=False)
    (folder / "junk.bin").write_bytes(b"\x00\x01")  # nor is a folder whose files are all unusable
    with pytest.raises(InvalidInput, match="holds no document now"):
        ingest_source(stack, path=folder, bucket="contracts", prune=True, progress=False)
    assert stack.store.get_document("default", "msa.txt") is not None


def test_a_record_deleted_from_a_jsonl_file_that_stays_is_reported_and_pruned(stack, tmp_path):
    """A document deleted from a .jsonl file (one document a line) stayed ingested and unreported: only files that
    were gone counted. A file that cannot be read now says nothing of its documents."""
    lines = [json.dumps({"id": doc_id, "text": f"Memo {doc_id}: the cafeteria closes at three."}) for doc_id in "ab"]
    folder = _folder(tmp_path, **{"memos.jsonl": "\n".join(lines)})
    ingest_source(stack, path=folder, bucket="generic", progress=False)
    (folder / "memos.jsonl").write_text(lines[0] + "\n")
    kept = ingest_source(stack, path=folder, bucket="generic", progress=False)
    assert kept.left_behind == ["b"] and stack.store.get_document("default", "b") is not None
    (folder / "memos.jsonl").write_text(lines[0] + "\n{not json\n")
    assert ingest_source(stack, path=folder, bucket="generic", progress=False).left_behind == []
    (folder / "memos.jsonl").write_text(lines[0] + "\n")
    pruned = ingest_source(stack, path=folder, bucket="generic", prune=True, progress=False)
    assert pruned.pruned == ["b"] and stack.store.get_document("default", "b") is None
    assert stack.store.get_document("default", "a") is not None


def test_a_folders_parent_ingested_skips_what_is_ingested_and_calls_nothing_gone(stack, tmp_path):
    """An outside probe ingested a folder's parent: every file came in again under a second id (counts doubled),
    the first ids were said to be no longer in the folder, and the prune offered deleted them with their labels."""
    root = tmp_path / "shared"
    folder = _folder(root, **{"msa.txt": CONTRACT})
    (folder / "memos.jsonl").write_text(json.dumps({"text": "The cafeteria closes at three on Fridays."}) + "\n")
    first = ingest_source(stack, path=folder, bucket="contracts", progress=False)
    (root / "new.txt").write_text("A memo on parking.")
    parent = ingest_source(stack, path=root, bucket="contracts", progress=False)
    assert (parent.added, parent.left_behind) == (1, [])
    assert sorted(s.path for s in parent.skipped) == ["docs/memos.jsonl:1", "docs/msa.txt"]
    assert "is already ingested as 'msa.txt'" in next(s.reason for s in parent.skipped if s.path == "docs/msa.txt")
    assert _counts_agree(stack)["documents"] == first.added + 1


def test_force_rebuilds_an_engine_index_from_the_sources(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    stack.keyword.delete_document("default", "msa.txt")
    assert Retriever(stack).keyword("Delaware", SearchFilter(), 5) == []
    assert Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False).unchanged == 1
    rebuilt = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False, force=True)
    assert (rebuilt.updated, rebuilt.embeddings_computed) == (1, 0)
    assert Retriever(stack).keyword("Delaware", SearchFilter(), 5)
    _counts_agree(stack)


def test_the_report_says_where_the_ingest_spent_its_time(stack, tmp_path):
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    report = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    shares = report.stage_shares()
    assert list(shares) == [*STAGES, "other"]
    assert all(report.stage_seconds[stage] > 0 for stage in STAGES)
    assert sum(report.stage_seconds.values()) <= report.seconds and shares["other"] >= 0
    assert "time: extracting " in report.summary() and "embedding " in report.summary()


def test_a_tool_shows_a_documents_source_file_from_its_ingest_root_not_the_machines_folders(stack, tmp_path):
    """The agent's tool answers reach a server's clients in the run's state: a source file in the scope's inbox is
    shown from it, any other by its file name (before: the absolute path of the server's data folder)."""
    from graph.services import AgentServices

    inbox, elsewhere = tmp_path / "inbox" / "default" / "notes", tmp_path / "elsewhere"
    for folder, name in ((inbox, "bins.md"), (elsewhere, "rota.md")):
        folder.mkdir(parents=True)
        (folder / name).write_text(f"# {name}\nThe green bin goes out on Tuesdays.")
        Ingestor(stack).ingest(files.load(folder, bucket="generic"), progress=False)
    with AgentServices(stack) as services:
        ids = [h["doc_id"] for h in stack.store.list_documents("default", bucket="generic")[0]]
        shown = {
            services.tools.run("default", tool, {"doc_id": doc_id}).hits[0].metadata.source
            for doc_id in ids
            for tool in ("get_document_metadata", "get_document")
        }
    assert shown == {"inbox/notes/bins.md", "rota.md"}


def test_a_renamed_labelled_file_says_its_labels_stay_with_the_old_document_and_go_with_the_prune(stack, tmp_path):
    """A labelled file renamed, then `--prune`: its labels were deleted with the old document and neither run said
    so (the fifteenth outside probe); the new document, a new id, has none."""
    folder = _folder(tmp_path, **{"msa.txt": CONTRACT})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "msa.txt", "row": {"notice_period_days": 60}}))
    ingest_source(stack, path=folder, bucket="contracts", annotations=labels, progress=False)
    (folder / "msa.txt").rename(folder / "master.txt")
    kept = ingest_source(stack, path=folder, bucket="contracts", progress=False)
    assert kept.left_behind_labelled == ["msa.txt"]
    assert "and the labels of 1 (msa.txt): a file renamed or moved keeps none" in kept.summary()
    pruned = ingest_source(stack, path=folder, bucket="contracts", prune=True, progress=False)
    assert "with them the labels of 1 (msa.txt)" in pruned.summary()
