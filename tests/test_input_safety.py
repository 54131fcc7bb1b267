"""Inputs an attacker or a careless user controls (issue 12): symbolic links out of an ingested folder, JSON nested
thousands deep, spreadsheet formulas in exported cells, non-positive counts on the command line, and a shared data
folder that must not depend on where a command is run."""

from __future__ import annotations

import csv
import json
import os
from contextlib import closing
from pathlib import Path

import pytest

from cli.main import main
from cli.parser import build_parser
from core.errors import InvalidInput
from core.models import SourceDocument
from graph.decomposition import Decomposition
from graph.export import export_csv
from graph.ingest_graph import build_ingest
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import CHECKOUT_SHARED_DATA, files
from retrievers.loaders.common import MAX_JSON_DEPTH
from retrievers.loaders.files import Skipped
from tools.context import ToolContext

SECRET = "root:x:0:0:the server's own secret"
DEEP = "[" * 1500 + "]" * 1500
"""About 3 KB: deep enough that an unbounded parser gives up with RecursionError."""


def _outside(tmp_path: Path) -> Path:
    """A folder beside the one being ingested, holding a file no client may read through a link."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET)
    return outside


def _loaded(folder: Path, **options) -> tuple[dict[str, SourceDocument], dict[str, str]]:
    items = list(files.load(folder, **options))
    documents = {item.document.doc_id: item for item in items if isinstance(item, SourceDocument)}
    return documents, {item.path: item.reason for item in items if isinstance(item, Skipped)}


# --- symbolic links: the folder given is the boundary ------------------------------------------------------------


def test_links_are_skipped_and_reported_what_a_link_inside_leads_to_is_read_where_it_is(tmp_path):
    """A link to a file inside the folder was read as a second document of the same file, counted twice (the
    fifteenth outside probe); the file is read where it is, as a linked folder's files are."""
    outside = _outside(tmp_path)
    folder = tmp_path / "docs"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "real.txt").write_text("A note that lives in the folder.")
    (folder / "passwd.txt").symlink_to(outside / "passwd")
    (folder / "etc").symlink_to(outside, target_is_directory=True)
    (folder / "alias.txt").symlink_to(folder / "notes" / "real.txt")
    (folder / "notes-again").symlink_to(folder / "notes", target_is_directory=True)
    (folder / "loop.txt").symlink_to(folder / "loop.txt")

    documents, skipped = _loaded(folder)

    assert set(documents) == {"notes/real.txt"}
    assert not any(SECRET in document.document.body for document in documents.values())
    assert set(skipped) == {"passwd.txt", "etc", "notes-again", "loop.txt", "alias.txt"}
    assert "outside the folder being ingested" in skipped["passwd.txt"]
    assert "outside the folder being ingested" in skipped["etc"]
    assert "inside this one" in skipped["notes-again"] and "loop" in skipped["loop.txt"]
    assert "a file inside this folder" in skipped["alias.txt"]


def test_a_link_out_of_the_folder_is_no_document_an_annotations_file_may_name(tmp_path):
    outside = _outside(tmp_path)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "passwd.txt").symlink_to(outside / "passwd")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "passwd.txt", "row": {"owner": "root"}}) + "\n")
    with pytest.raises(InvalidInput, match="labels.jsonl:1: doc_id 'passwd.txt' is not a document"):
        files.load(folder, annotations_file=labels)


def test_the_server_ingests_no_file_a_link_leads_to_outside_its_inbox(stack, tmp_path, monkeypatch):
    outside = _outside(tmp_path)
    inbox = tmp_path / "inbox"
    (inbox / "evil").mkdir(parents=True)
    (inbox / "evil" / "memo.txt").write_text("The quarterly memo about parking.")
    (inbox / "evil" / "passwd.txt").symlink_to(outside / "passwd")
    (inbox / "evil" / "etc").symlink_to(outside, target_is_directory=True)
    (inbox / "escape").symlink_to(outside, target_is_directory=True)
    monkeypatch.setenv("RAGENT_INGEST_ROOTS", str(inbox))

    with AgentServices(stack) as services:
        ingest = build_ingest(services).compile()
        report = ingest.invoke({"path": "evil", "bucket": "generic"})
        assert report["added"] == 1 and stack.store.counts()["documents"] == 1
        skipped = {s["path"]: s["reason"] for s in report["skipped"]}
        assert set(skipped) == {"passwd.txt", "etc"}
        assert all("outside the folder being ingested" in reason for reason in skipped.values())

        with pytest.raises(InvalidInput, match="escape is outside the folders this server ingests from"):
            ingest.invoke({"path": "escape", "bucket": "generic"})
        with pytest.raises(InvalidInput, match="is not a path"):
            ingest.invoke({"path": "evil\x00", "bucket": "generic"})


# --- JSON nested deeper than anything a document needs ------------------------------------------------------------


def test_deeply_nested_json_is_skipped_and_the_rest_of_the_folder_is_ingested(stack, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("A healthy note about the warehouse.")
    (folder / "deep.json").write_text(DEEP)
    (folder / "lines.jsonl").write_text(json.dumps({"id": "fine", "text": "A healthy line."}) + "\n" + DEEP + "\n")

    report = Ingestor(stack).ingest(files.load(folder), progress=False)

    assert report.added == 2 and stack.store.counts()["documents"] == 2
    skipped = {s.path: s.reason for s in report.skipped}
    assert set(skipped) == {"deep.json", "lines.jsonl:2"}
    assert all("nested deeper than 64 levels" in reason for reason in skipped.values())


def test_an_annotations_file_with_a_deeply_nested_line_stops_the_run_naming_the_line(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("A healthy note about the warehouse.")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "good.txt", "row": {"site": "Newark"}}) + "\n" + DEEP + "\n")
    with pytest.raises(InvalidInput, match=r"labels.jsonl:2: not valid JSON \(nested deeper than 64 levels"):
        files.load(folder, annotations_file=labels)  # on the call, before any document reaches an ingest


def test_json_is_refused_only_past_the_nesting_bound_and_brackets_inside_text_do_not_count(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    bracketed = "[{" * 100
    (folder / "docs.jsonl").write_text(
        json.dumps({"id": "d1", "title": bracketed, "text": "Text."})
        + "\n"
        + "[" * MAX_JSON_DEPTH
        + "]" * MAX_JSON_DEPTH
        + "\n"
        + "[" * (MAX_JSON_DEPTH + 1)
        + "]" * (MAX_JSON_DEPTH + 1)
        + "\n"
    )
    documents, skipped = _loaded(folder)
    assert documents["d1"].document.title == bracketed
    assert "not a JSON object" in skipped["docs.jsonl:2"]  # parsed: as deep as allowed
    assert "nested deeper than 64 levels" in skipped["docs.jsonl:3"]


def test_a_pipe_in_the_folder_is_skipped_not_waited_on(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("A note.")
    os.mkfifo(folder / "pipe.txt")  # reading it would wait for a writer that never comes
    documents, skipped = _loaded(folder)
    assert set(documents) == {"a.txt"} and "not a regular file" in skipped["pipe.txt"]


def test_a_deeply_nested_resume_answer_is_a_one_line_error(capsys):
    assert main(["resume", "some-thread", "--answer", DEEP]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert error.startswith("ragent: error: --answer is neither an option's number nor usable JSON")
    assert "nested deeper than 64 levels" in error


# --- CSV export: no cell a spreadsheet would run -------------------------------------------------------------------

HOSTILE_VALUES = {
    "link": '=HYPERLINK("http://x")',
    "command": "+cmd|' /C calc'!A0",
    "total": "@SUM(1)",
    "sum": "-2+3",
    "tabbed": "\t=1+1",
    "returned": "\r=1+1",
    "negative_text": "-7",
}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def test_exported_csv_neutralises_every_cell_a_spreadsheet_would_run(stack, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    row = {**HOSTILE_VALUES, "balance": -5, "rate": -2.5, "parties": ["=1+1", "Acme"]}
    document = {
        "id": "=evil",
        "title": '=WEBSERVICE("http://x")',
        "text": "A hostile ledger.",
        "annotations": [{"row": row}],
    }
    (folder / "ledger.json").write_text(json.dumps(document))
    Ingestor(stack).ingest(files.load(folder), progress=False)

    with closing(ToolContext(stack)) as context:
        decomposition = Decomposition(question="everything", intent="list", buckets=["generic"])
        path, count = export_csv(context, decomposition, tmp_path / "exports")

    with path.open(newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    assert count == len(rows) == 1
    cells = dict(zip(header, rows[0], strict=True))
    live = sorted(cell for cell in [*header, *rows[0]] if cell.startswith(FORMULA_STARTS))
    assert live == ["-2.5", "-5"]  # only the values stored as numbers, which a spreadsheet reads as numbers
    assert {name: cells[name] for name in HOSTILE_VALUES} == {name: f"'{v}" for name, v in HOSTILE_VALUES.items()}
    assert (cells["doc_id"], cells["title"], cells["parties"]) == ("'=evil", '\'=WEBSERVICE("http://x")', "'=1+1; Acme")
    assert cells["annotation_id"].startswith("'=evil#")

    with path.open(newline="", encoding="utf-8") as handle:
        typed = dict(zip(header, list(csv.reader(handle, quoting=csv.QUOTE_NONNUMERIC))[1], strict=True))
    assert (typed["balance"], typed["rate"], typed["negative_text"]) == (-5, -2.5, "'-7")


# --- counts on the command line -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "refusal"),
    [
        (["annotations", "contracts", "--limit", "-1"], "--limit: must be 1 or more, got -1"),
        (["annotations", "contracts", "--limit", "0"], "--limit: must be 1 or more, got 0"),
        (["annotations", "contracts", "--limit", "99999999999999999999"], "--limit: must be 10000 or less"),
        (["search", "keyword", "x", "--top-k", "0"], "--top-k: must be 1 or more, got 0"),
        (["search", "semantic", "x", "--top-k", "99999999999"], "--top-k: must be 1000 or less"),
        (["ingest", "docs", "--bucket", "generic", "--limit", "-3"], "--limit: must be 1 or more, got -3"),
        (["eval", "--questions", "q.jsonl", "--limit", "0"], "--limit: must be 1 or more, got 0"),
        (["bench", "--scale-sizes", "1000", "-1"], "--scale-sizes: must be 1 or more, got -1"),
        (["annotations", "contracts", "--limit", "ten"], "--limit: 'ten' is not a whole number"),
    ],
)
def test_counts_out_of_range_are_refused_before_anything_runs(argv, refusal, capsys):
    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(argv)
    assert refused.value.code == 2 and f"argument {refusal}" in capsys.readouterr().err


# --- the shared data folder, from any working directory -----------------------------------------------------------


def test_a_dataset_is_found_through_the_server_from_any_working_directory(stack, tmp_path, monkeypatch):
    if not (CHECKOUT_SHARED_DATA / "invoice2data_samples").is_dir():
        pytest.skip(f"{CHECKOUT_SHARED_DATA} has no invoice2data_samples on this machine")
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("RAGENT_SHARED_DATA", raising=False)
    monkeypatch.delenv("RAGENT_INGEST_ROOTS", raising=False)
    with AgentServices(stack) as services:
        report = build_ingest(services).compile().invoke({"dataset": "invoices"})
    assert report["added"] == 12 and not report["skipped"]
