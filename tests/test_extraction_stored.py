"""Fields found in the text at ingest and by `ragent extract`, on the real Postgres and engines: values with their
sources, labels never overwritten, a run killed with SIGKILL part-way resumed where it stopped, a run of some fields
(`--fields`) leaving the others as they were, and the same through the ingest graph."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.errors import InvalidInput
from core.models import Document, FieldSpec, SourceDocument
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.ingest_graph import build_ingest, progress_events
from graph.nodes.clarify import clarification_payload
from graph.schemas import Decision
from graph.services import AgentServices
from graph.unread_fields import UnreadField
from retrievers.extraction.found import Found
from retrievers.extraction.stored import extract_stored, fields_to_extract
from retrievers.ingestion.pipeline import Ingestor
from retrievers.ingestion.sources import ingest_source
from retrievers.loaders import files
from tests.test_agent import Run

ROOT = Path(__file__).resolve().parents[1]
RULES = AgentContext(planner="rules")
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
    assert (first.documents, first.changed, first.values) == (3, 3, 3), "cuisine was read at ingest, prep is new"
    assert _properties(stack.store, "dish-2.md")["row"] == {"cuisine": "Thai", "prep_minutes": 185}
    assert extract_stored(stack.store, "default", "recipes", progress=False).documents == 0
    assert {f.name for f in stack.store.field_catalog("default", "recipes")} == {"cuisine", "prep_minutes"}


def test_words_a_user_adds_for_a_field_make_ragent_extract_read_the_text_for_it_again(stack, tmp_path):
    """The recipes write "Duration: 1 hr 5 min", which none of prep_minutes' words label: nothing found at ingest.
    `ragent catalog describe recipes prep_minutes --aliases duration` says it is the same field, and the next
    `ragent extract` reads the documents again and finds it; its words unchanged, a further run reads nothing."""
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS)
    folder = _recipes(tmp_path)
    for page in folder.iterdir():
        page.write_text(page.read_text().replace("Time:", "Duration:"))
    Ingestor(stack).ingest(files.load(folder, bucket="recipes"), progress=False)
    assert "prep_minutes" not in _properties(stack.store, "dish-0.md")["row"]
    stack.store.describe("recipes", "prep_minutes", aliases=["duration"])
    again = extract_stored(stack.store, "default", "recipes", progress=False)
    assert (again.documents, again.values) == (3, 3)
    assert _properties(stack.store, "dish-0.md")["row"]["prep_minutes"] == 65
    assert extract_stored(stack.store, "default", "recipes", progress=False).documents == 0


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


def _found_after_colon(calls: list[str]):
    """A scripted model that reads `Cuisine: X` and counts the documents it was asked about."""

    def model(body, specs):
        calls.append(body)
        line = next(line for line in body.splitlines() if line.startswith("Cuisine"))
        start = body.index(line)
        return {"cuisine": [Found(line.split(": ")[1], start, start + len(line))]}

    return model


def test_a_run_of_named_fields_leaves_the_other_fields_as_they_were_and_due_for_the_next_full_run(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS[:1])
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "dish-0.md", "row": {"prep_minutes": 5}}) + "\n")
    ingest_source(stack, path=_recipes(tmp_path), bucket="recipes", annotations=labels, scope="default")
    cuisine = {d: _properties(stack.store, d) for d in ("dish-0.md", "dish-1.md", "dish-2.md")}
    two_letters = FIELDS[0].model_copy(update={"found_by": "pattern", "pattern": r"Cuisine: (?P<value>\w\w)"})
    stack.store.record_field_specs("recipes", [two_letters, FIELDS[1]])  # both changed since ingest

    only_prep = extract_stored(stack.store, "default", "recipes", fields=["prep_minutes"], progress=False)
    assert (only_prep.fields, only_prep.documents, only_prep.values) == (["prep_minutes"], 3, 2)
    assert _properties(stack.store, "dish-0.md") == cuisine["dish-0.md"], "the label is kept, cuisine untouched"
    row = _properties(stack.store, "dish-1.md")
    assert row["row"] == {"cuisine": "Thai", "prep_minutes": 125}, "cuisine not found again with its new pattern"
    assert row["sources"]["cuisine"] == cuisine["dish-1.md"]["sources"]["cuisine"]

    rest = extract_stored(stack.store, "default", "recipes", progress=False)
    assert (rest.documents, rest.values) == (3, 3), "cuisine is due in every document, prep_minutes in none"
    assert _properties(stack.store, "dish-1.md")["row"] == {"cuisine": "Th", "prep_minutes": 125}
    assert _properties(stack.store, "dish-0.md")["row"] == {"cuisine": "Th", "prep_minutes": 5}
    assert extract_stored(stack.store, "default", "recipes", progress=False).documents == 0
    assert extract_stored(stack.store, "default", "recipes", fields=["cuisine"], progress=False).documents == 0


def test_the_models_values_are_kept_by_a_run_without_it_and_not_asked_for_again(store):
    store.add_bucket("recipes", "")
    by_model = FieldSpec(name="cuisine", type="string", found_by="model")
    store.record_field_specs("recipes", [by_model, FIELDS[1]])
    for i in range(3):
        document = Document(doc_id=f"d{i}.md", bucket="recipes", body=f"Cuisine: Thai {i}\nTime: {i + 1} min")
        store.commit_document(SourceDocument(document=document), f"hash-{i}", [], [])
    calls, progress = [], []
    model = _found_after_colon(calls)
    first = extract_stored(
        store,
        "default",
        "recipes",
        model=model,
        model_name="m",
        progress=False,
        progressed=lambda *p: progress.append(p),
    )
    assert (first.documents, first.values, len(calls)) == (3, 6, 3)
    assert progress == [(0, 3), (1, 3), (2, 3), (3, 3)]
    store.record_field_specs("recipes", [FIELDS[1].model_copy(update={"description": "minutes to prepare"})])
    without_model = extract_stored(store, "default", "recipes", progress=False)
    assert (without_model.documents, without_model.values) == (3, 3)
    rows = store.document_annotations("default", "d2.md")
    assert rows[0]["row"] == {"cuisine": "Thai 2", "prep_minutes": 3}
    assert rows[0]["sources"]["cuisine"]["found_by"] == "model"
    again = extract_stored(store, "default", "recipes", model=model, model_name="m", progress=False)
    assert (again.values, len(calls)) == (0, 3), "the model is not asked again: nothing it finds changed"
    assert extract_stored(store, "default", "recipes", model=model, model_name="m", progress=False).documents == 0


def test_the_model_fills_what_the_rules_left_empty_and_a_run_without_it_keeps_that(store):
    store.add_bucket("recipes", "")
    store.record_field_specs("recipes", FIELDS[:1])  # cuisine, found in the text by its labelled line
    bodies = {"d0.md": "Cuisine: Thai\nServe hot.", "d1.md": "A dish from Laos, cooked the Lao way."}
    for doc_id, body in bodies.items():
        document = Document(doc_id=doc_id, bucket="recipes", body=body)
        store.commit_document(SourceDocument(document=document), doc_id, [], [])
    extract_stored(store, "default", "recipes", progress=False)
    assert store.document_annotations("default", "d1.md") == [], "the labelled-line rule finds nothing in d1"
    asked = []

    def model(body, specs):
        asked.append((body, [spec.name for spec in specs]))
        start = body.index("Lao")
        return {"cuisine": [Found("Lao", start, start + 3)]}

    def run(**model_args):
        return extract_stored(store, "default", "recipes", progress=False, **model_args)

    assert run(model=model, model_name="m").values == 1
    assert asked == [(bodies["d1.md"], ["cuisine"])], "only the document the rules left empty is asked"
    (row,) = store.document_annotations("default", "d1.md")
    assert row["row"] == {"cuisine": "Lao"} and row["sources"]["cuisine"]["found_by"] == "model"
    assert store.document_annotations("default", "d0.md")[0]["sources"]["cuisine"]["found_by"] == "text"
    covered = store.coverage("default", "recipes", ["cuisine"])
    assert (covered["extracted"], covered["by_model"]) == ({"cuisine": 2}, {"cuisine": 1}), "a figure says which"
    assert run().documents == 0, "a run without the model keeps what it filled"
    assert (run(model=model, model_name="m").documents, len(asked)) == (0, 1), "and it is not asked again"
    assert run(model=model, model_name="another").values == 1 and len(asked) == 2, "another model reads it again"
    assert store.document_annotations("default", "d1.md")[0]["row"] == {"cuisine": "Lao"}


def test_a_field_a_run_cannot_find_stops_it_with_the_bucket_s_fields_named():
    specs = [*FIELDS, FieldSpec(name="chef", type="string"), FieldSpec(name="rating", type="string", found_by="model")]
    assert [s.name for s in fields_to_extract("recipes", specs, ["prep_minutes"], False)] == ["prep_minutes"]
    assert [s.name for s in fields_to_extract("recipes", specs, None, True)] == ["cuisine", "prep_minutes", "rating"]
    for fields, with_model, said in [
        (["servings"], False, "recipes has no field 'servings'; its fields are cuisine, prep_minutes, chef, rating"),
        (["chef"], True, "recipes.chef comes from labels only and is not found in the text"),
        (["rating"], False, "recipes.rating is found by the chat model: ask for the model too"),
    ]:
        with pytest.raises(InvalidInput, match=re.escape(said)):
            fields_to_extract("recipes", specs, fields, with_model)


def test_the_ingest_graph_extracts_named_fields_streams_its_progress_and_refuses_what_it_cannot_do(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS[:1])
    ingest_source(stack, path=_recipes(tmp_path), bucket="recipes", scope="default")
    stack.store.record_field_specs("recipes", FIELDS[1:])
    graph = build_ingest(SimpleNamespace(stack=stack, chat_model=None)).compile()

    parts = list(
        graph.stream(
            {"extract": True, "bucket": "recipes", "fields": ["prep_minutes"]}, stream_mode=["custom", "values"]
        )
    )
    progress = [p for mode, p in parts if mode == "custom"]
    assert progress[0] == {"event": "extract", "bucket": "recipes", "done": 0, "total": 3}
    assert progress[-1]["done"] == 3, "the last is always sent"
    result = parts[-1][1]
    assert (result["extracted_fields"], result["documents"], result["values"], result["failed"]) == (
        ["prep_minutes"],
        3,
        3,
        0,
    )
    assert result["summary"].startswith("recipes (prep_minutes): 3 documents read, 3 with changed fields")

    for request, said in [
        ({"bucket": "recipez"}, "bucket 'recipez' is unknown"),
        ({"bucket": "recipes", "fields": ["servings"]}, "its fields are cuisine, prep_minutes"),
        ({"bucket": "recipes", "model": True}, "this server has no chat model to extract with"),
        ({"bucket": "recipes", "fields": "cuisine"}, "fields must be a list of the bucket's field names"),
        ({"bucket": "recipes", "path": "inbox"}, "not path (an ingest's)"),
        ({}, "an extraction needs the bucket"),
        ({"bucket": "recipes", "extract": False, "fields": ["cuisine"]}, 'fields go with an extraction: add "extract"'),
    ]:
        with pytest.raises(InvalidInput, match=re.escape(said)):
            graph.invoke({"extract": True, **request})


def test_progress_is_sent_a_few_times_a_second_however_fast_documents_go_and_its_end_always():
    events = []
    progressed = progress_events(0.25, events.append, "recipes")
    for done in range(100_001):
        progressed(done, 100_000)
    assert events[0]["done"] == 0 and events[-1] == {
        "event": "extract",
        "bucket": "recipes",
        "done": 100_000,
        "total": 100_000,
    }
    assert len(events) <= 2 + 4 * 10, "a hundred thousand calls take well under ten seconds"


def test_a_figure_over_a_field_declared_after_ingest_asks_to_read_the_documents_for_it_first(stack, tmp_path):
    stack.store.add_bucket("recipes", "")
    stack.store.record_field_specs("recipes", FIELDS[:1])
    ingest_source(stack, path=_recipes(tmp_path, 4), bucket="recipes", scope="default")
    stack.store.record_field_specs("recipes", FIELDS[1:])  # prep_minutes: 65, 125, 185 and 245 minutes in the text
    stack.store.refresh_bucket_catalogs("recipes")  # as `ragent catalog describe` does
    question = "How many recipes have a prep time under 150 minutes?"
    with AgentServices(stack) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        asked = Run(agent, question, RULES)
        assert asked.answer is None and asked.interrupt["kind"] == "unread", asked.interrupt["reason"]
        assert asked.interrupt["reason"].startswith("4 of the 4 documents of recipes have no prep_minutes recorded")
        assert [o["choice"] for o in asked.interrupt["options"]] == ["extract", "answer", "stop"]

        over_the_few = Run(agent, question, RULES).resume({"choice": "answer"})
        assert over_the_few.answer.value == 0 and "4 of the 4 recipes have no prep_minutes" in over_the_few.answer.text

        read = asked.resume({"choice": "extract"})
        assert read.answer.value == 2 and "no prep_minutes" not in read.answer.text
        assert _properties(stack.store, "dish-3.md")["row"] == {"cuisine": "Thai", "prep_minutes": 245}
        assert Run(agent, question, RULES).interrupt is None, "read once: the next question is answered at once"


def test_a_caller_that_may_not_ingest_is_offered_to_answer_or_stop_but_not_to_read_documents():
    state = {
        "question": "How many recipes have a prep time under 150 minutes?",
        "decomposition": Decomposition(question="q", intent="count", buckets=["recipes"]),
        "decisions": [Decision(action="clarify", clarify_kind="unread", reason="not read")],
    }
    unread = UnreadField("recipes", "prep_minutes", missing=4, documents=4, unread=4)

    def choices(may_extract: bool) -> list[str]:
        payload = clarification_payload(state, 5, set(), {"recipes"}, unread, may_extract)
        return [option["choice"] for option in payload["options"]]

    assert choices(True) == ["extract", "answer", "stop"] and choices(False) == ["answer", "stop"]
