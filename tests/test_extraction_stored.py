"""Fields found in the text at ingest and by `ragent extract`, on the real Postgres and engines: values with their
sources, labels never overwritten, a run killed with SIGKILL part-way resumed where it stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from core.models import Document, FieldSpec, SourceDocument
from retrievers.extraction.found import Found
from retrievers.extraction.stored import extract_stored
from retrievers.ingestion.pipeline import Ingestor
from retrievers.ingestion.sources import ingest_source
from retrievers.loaders import files

ROOT = Path(__file__).resolve().parents[1]
FIELDS = [
    FieldSpec(name="cuisine", type="string", found_by="text"),
    FieldSpec(name="prep_minutes", type="integer", unit="minutes", aliases=["prep", "time"], found_by="text"),
]


def _recipes(tmp_path: Path, count: int = 3) -> Path:
    folder = tmp_path / "recipes"
    folder.mkdir()
    for i in range(count):
        (folder / f"dish-{i}.md").write_text(f"# Dish {i}\n\nCuisine: Thai\nTime: {i + 1} hr 5 min\n\nCook it well.\n")
    return folder


def _properties(store, doc_id: str) -> dict:
    (row,) = [r for r in store.document_annotations("default", doc_id) if r["kind"] == "properties"]
    return row


def test_ingest_finds_the_declared_fields_and_says_where_each_was_read(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS)
    report = ingest_source(stack, path=_recipes(tmp_path), bucket="recipes", scope="default")
    assert (report.documents_extracted, report.values_extracted) == (3, 6)
    row = _properties(stack.store, "dish-1.md")
    assert row["row"] == {"cuisine": "Thai", "prep_minutes": 125}
    body = stack.store.get_document("default", "dish-1.md")["body"]
    said = {field: body[s["start"] : s["end"]] for field, s in row["sources"].items()}
    assert said == {"cuisine": "Cuisine: Thai", "prep_minutes": "Time: 2 hr 5 min"}
    catalog = {f.name: f for f in stack.store.field_catalog("default", "recipes")}
    assert catalog["prep_minutes"].doc_count == 3 and catalog["cuisine"].values == ["Thai"]
    covered = stack.store.coverage("default", "recipes", ["cuisine"])  # what a figure over the field says of itself
    assert (covered["documents"], covered["missing"], covered["extracted"]) == (3, {"cuisine": 0}, {"cuisine": 3})


def test_a_labelled_value_is_never_overwritten_and_a_reingest_finds_the_rest_again(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS)
    folder = _recipes(tmp_path, 2)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "dish-0.md", "row": {"cuisine": "Lao"}}) + "\n")
    ingest_source(stack, path=folder, bucket="recipes", annotations=labels, scope="default")
    assert _properties(stack.store, "dish-0.md")["row"] == {"cuisine": "Lao", "prep_minutes": 65}
    assert set(_properties(stack.store, "dish-0.md")["sources"]) == {"prep_minutes"}

    (folder / "dish-1.md").write_text("# Dish 1\n\nCuisine: Lao\nTime: 20 min\n")
    again = ingest_source(stack, path=folder, bucket="recipes", scope="default")  # no annotations file this time
    assert (again.updated, again.unchanged) == (1, 1)
    assert _properties(stack.store, "dish-0.md")["row"] == {"cuisine": "Lao", "prep_minutes": 65}
    assert _properties(stack.store, "dish-1.md")["row"] == {"cuisine": "Lao", "prep_minutes": 20}


def test_a_field_declared_after_ingest_is_found_by_ragent_extract_and_a_second_run_reads_nothing(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS[:1])
    Ingestor(stack).ingest(files.load(_recipes(tmp_path), bucket="recipes"), progress=False)
    stack.store.record_field_specs("recipes", FIELDS[1:])
    first = extract_stored(stack.store, "default", "recipes", progress=False)
    assert (first.documents, first.changed, first.values) == (3, 3, 6)
    assert _properties(stack.store, "dish-2.md")["row"] == {"cuisine": "Thai", "prep_minutes": 185}
    assert extract_stored(stack.store, "default", "recipes", progress=False).documents == 0
    assert {f.name for f in stack.store.field_catalog("default", "recipes")} == {"cuisine", "prep_minutes"}


def test_a_document_reingested_while_it_was_extracted_keeps_its_new_rows(store):
    store.add_bucket("recipes", "")
    document = Document(doc_id="a.md", bucket="recipes", body="Cuisine: Thai")
    store.commit_document(SourceDocument(document=document), "hash-1", [], [])
    assert not store.replace_annotations(document, [], "stamp", was="hash-0")
    assert store.replace_annotations(document, [], "stamp", was="hash-1")


_KILLED_RUN = """
import os, signal, sys
from retrievers.extraction.found import Found
from retrievers.extraction.found import Found
from retrievers.extraction.stored import extract_stored
from retrievers.postgres.store import PostgresStore

read = []

def model(body, specs):  # the model reading every document; the process is killed at the 40th
    read.append(body)
    if len(read) == 40:
        os.kill(os.getpid(), signal.SIGKILL)
    return {"cuisine": [Found(body.split(": ")[1], 0, len(body))]}

extract_stored(PostgresStore(sys.argv[1]), "default", "recipes", model=model, model_name="scripted", progress=False)
"""


def test_an_extraction_killed_with_sigkill_keeps_what_it_finished_and_the_next_run_does_only_the_rest(
    store, database_url
):
    store.add_bucket("recipes", "")
    store.record_field_specs("recipes", [FieldSpec(name="cuisine", type="string", found_by="model")])
    for i in range(120):
        document = Document(doc_id=f"d{i:03}.md", bucket="recipes", body=f"Cuisine: Thai {i}")
        store.commit_document(SourceDocument(document=document), f"hash-{i}", [], [])
    killed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_KILLED_RUN), database_url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    done = [d for d in (f"d{i:03}.md" for i in range(120)) if store.document_annotations("default", d)]
    assert done == [f"d{i:03}.md" for i in range(39)]  # the 39 it finished, each in its own transaction

    def model(body, specs):
        return {"cuisine": [Found(body.split(": ")[1], 0, len(body))]}

    rest = extract_stored(store, "default", "recipes", model=model, model_name="scripted", progress=False)
    assert (rest.documents, rest.values) == (81, 81)
    rows = [store.document_annotations("default", f"d{i:03}.md") for i in range(120)]
    assert all(len(r) == 1 and r[0]["row"] == {"cuisine": f"Thai {i}"} for i, r in enumerate(rows))
