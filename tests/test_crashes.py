"""Crashes and lost indexes: what `kill -9`, the crash window of ingestion and a lost engine leave behind,
and how `ragent check` finds it and `ragent check --repair` puts it right."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager

import psycopg
import pytest

from core.models import AnnotationRow, Document, SearchFilter, SourceDocument
from retrievers.ingestion.consistency import MISSING, UNKNOWN, check
from retrievers.ingestion.pipeline import Ingestor, embedding_text
from retrievers.search import Retriever
from tests.conftest import make_stack
from tests.test_cli import ragent

SAMPLE_INGEST = ("ingest", "--dataset", "sample", "--scope", "default")
"""Into `default`, where the checks look (the sample's own scope is `sample`)."""
SAMPLE_LIMIT = 24  # a batch and a half of the sample corpus: the first commit comes seconds before the last
FIRST_COMMIT_TIMEOUT_S = 120

CONTRACT = (
    "MASTER SERVICES AGREEMENT between Northwind Traders LLC and Contoso Ltd. "
    + "The Supplier shall provide support services as described in each statement of work. " * 40
    + "This Agreement shall be governed by the laws of the State of Delaware."
)


def _documents() -> list[SourceDocument]:
    return [
        SourceDocument(
            document=Document(
                doc_id="msa",
                bucket="contracts",
                title="Master services agreement",
                author="northwind",
                tags=["legal", "signed"],
                created_at="2021-03-04",
                body=CONTRACT,
            ),
            annotations=[AnnotationRow(row={"governing_law": "Delaware"})],
        ),
        SourceDocument(
            document=Document(doc_id="memo", bucket="generic", body="The cafeteria closes at three on Fridays.")
        ),
        SourceDocument(
            document=Document(
                doc_id="inv-7781",
                bucket="invoices",
                title="Invoice INV-7781",
                body="Invoice INV-7781 from Contoso Ltd, payable within thirty days.",
            )
        ),
    ]


@contextmanager
def opened(database_url, home, embedder):
    """The embedded stack in `home`, closed on exit so that a `ragent` process can open it (qdrant-edge admits one)."""
    stack = make_stack(database_url, home, embedder)
    try:
        yield stack
    finally:
        stack.close()


@pytest.fixture
def home(database_url, tmp_path, minilm):
    """A data home with the three documents ingested into every store, and no process holding it open."""
    with opened(database_url, tmp_path, minilm) as stack:
        Ingestor(stack).ingest(_documents(), progress=False)
    return tmp_path


def _write_engines_only(stack, source: SourceDocument) -> set[str]:
    """Steps 1-3 of ingestion without step 4: the chunks reach both engines, Postgres never commits them."""
    _, indexed = Ingestor(stack)._chunk(source, source.content_hash())
    stack.keyword.upsert(indexed)
    stack.vectors.upsert(indexed, stack.embedder.embed_documents([embedding_text(c) for c in indexed]))
    return {c.chunk_id for c in indexed}


def _chunks_of(stack, doc_id: str) -> list[str]:
    return sorted(c.chunk_id for c in stack.store.indexed_chunks(sorted(stack.store.chunk_ids())) if c.doc_id == doc_id)


def _found(table: str, store: str, kind: str) -> int:
    """The `found` cell of one drift row of the table `ragent check` prints."""
    match = re.search(rf"^{store}\s+{re.escape(kind)}\s+(\d+)", table, re.MULTILINE)
    assert match, f"no {store} / {kind} row in:\n{table}"
    return int(match.group(1))


def _assert_every_store_agrees(stack, documents: int) -> None:
    """Same chunk ids everywhere, no duplicates, and every document's chunks in every engine."""
    committed = stack.store.chunk_ids()
    counts = stack.store.counts()
    assert (counts["documents"], counts["chunks"]) == (documents, len(committed))
    for engine in (stack.keyword, stack.vectors):
        assert engine.chunk_ids() == committed
        assert engine.count(SearchFilter()) == len(committed), "an engine holds a chunk id twice"
    per_document = Counter(c.doc_id for c in stack.store.indexed_chunks(sorted(committed)))
    assert len(per_document) == documents
    for doc_id, chunks in per_document.items():
        only = SearchFilter(doc_ids=[doc_id])
        assert stack.keyword.count(only) == stack.vectors.count(only) == chunks, doc_id


# -- kill -9 during ingestion --------------------------------------------------------------------------


def _documents_committed(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        try:
            return conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        except psycopg.errors.UndefinedTable:  # the ingest has not created the schema yet
            return 0


def _wait_for_first_commit(process: subprocess.Popen, database_url: str) -> None:
    deadline = time.monotonic() + FIRST_COMMIT_TIMEOUT_S
    while _documents_committed(database_url) == 0:
        assert process.poll() is None, f"the ingest exited ({process.returncode}) before committing a document"
        assert time.monotonic() < deadline, f"no document was committed within {FIRST_COMMIT_TIMEOUT_S} s"
        time.sleep(0.02)


def kill_ingest_after_first_commit(database_url: str, home) -> int:
    """`ragent ingest` of SAMPLE_LIMIT sample documents, killed with SIGKILL once its first document is committed;
    the number of documents that were committed."""
    environment = {
        **os.environ,
        "RAGENT_HOME": str(home),
        "RAGENT_CACHE_DIR": str(home / "cache"),
        "DATABASE_URL": database_url,
    }
    with open(home / "ingest.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli", *SAMPLE_INGEST, "--limit", str(SAMPLE_LIMIT)],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for_first_commit(process, database_url)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    survived = _documents_committed(database_url)
    assert 0 < survived < SAMPLE_LIMIT, "the kill must land in the middle of the ingest"
    return survived


def test_ingest_killed_with_sigkill_is_completed_by_the_next_ingest(database_url, tmp_path, minilm):
    survived = kill_ingest_after_first_commit(database_url, tmp_path)

    with opened(database_url, tmp_path, minilm) as stack:
        after_crash = check(stack, repair=False)
    assert all(d.found == 0 for d in after_crash.drift if d.kind == MISSING), (
        "engines are written before Postgres commits"
    )

    again = ragent(*SAMPLE_INGEST, "--limit", str(SAMPLE_LIMIT), home=tmp_path, DATABASE_URL=database_url)
    assert again.returncode == 0, again.stderr
    assert (
        f"documents: {SAMPLE_LIMIT} ({SAMPLE_LIMIT - survived} added, 0 updated, {survived} unchanged)" in again.stdout
    )
    checked = ragent("check", home=tmp_path, DATABASE_URL=database_url)
    assert checked.returncode == 0 and "consistent: every store agrees" in checked.stdout, (
        checked.stdout + checked.stderr
    )
    with opened(database_url, tmp_path, minilm) as stack:
        _assert_every_store_agrees(stack, SAMPLE_LIMIT)
        assert Retriever(stack).keyword("governing law", SearchFilter(bucket="contracts"), 5)


# -- the crash window, precisely -----------------------------------------------------------------------


def test_chunks_written_to_the_engines_but_never_committed_are_found_and_removed(home, database_url, minilm):
    """A crash between the engine writes and the Postgres commit: of a new document, and of a new version."""
    new_document = SourceDocument(
        document=Document(doc_id="draft", bucket="generic", body="A draft that never made it to Postgres.")
    )
    new_version = _documents()[1].model_copy(deep=True)
    new_version.document.body = "The cafeteria now opens at seven in the morning."
    with opened(database_url, home, minilm) as stack:
        orphans = _write_engines_only(stack, new_document) | _write_engines_only(stack, new_version)
        hits = Retriever(stack).keyword("draft cafeteria opens seven", SearchFilter(), 10)
        assert hits and not {h.chunk_id for h in hits} & orphans, "uncommitted chunks stay invisible"

    found = ragent("check", home=home, DATABASE_URL=database_url)
    assert found.returncode == 1, found.stderr
    assert _found(found.stdout, "keyword", UNKNOWN) == _found(found.stdout, "vectors", UNKNOWN) == len(orphans)
    assert _found(found.stdout, "keyword", MISSING) == 0 and "ragent check --repair" in found.stdout

    repaired = ragent("check", "--repair", home=home, DATABASE_URL=database_url)
    assert (
        repaired.returncode == 0 and f"repaired: {2 * len(orphans)} of {2 * len(orphans)} item(s)" in repaired.stdout
    ), repaired.stdout
    clean = ragent("check", home=home, DATABASE_URL=database_url)
    assert clean.returncode == 0 and "consistent: every store agrees" in clean.stdout, clean.stdout
    with opened(database_url, home, minilm) as stack:
        _assert_every_store_agrees(stack, len(_documents()))


def test_chunks_lost_from_the_engines_are_restored_so_that_search_finds_them_again(home, database_url, minilm):
    with opened(database_url, home, minilm) as stack:
        lost_keyword, lost_vectors = _chunks_of(stack, "msa"), _chunks_of(stack, "memo")
        stack.keyword.delete_chunks(lost_keyword)
        stack.vectors.delete_chunks(lost_vectors)
        assert Retriever(stack).keyword("governed by the laws of Delaware", SearchFilter(), 5) == []
        assert "memo" not in {
            h.doc_id for h in Retriever(stack).semantic("when does the canteen shut", SearchFilter(), 5)
        }

    repaired = ragent("check", "--repair", home=home, DATABASE_URL=database_url)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert _found(repaired.stdout, "keyword", MISSING) == len(lost_keyword)
    assert _found(repaired.stdout, "vectors", MISSING) == len(lost_vectors)
    with opened(database_url, home, minilm) as stack:
        retriever = Retriever(stack)
        assert "Delaware" in retriever.keyword("governed by the laws of Delaware", SearchFilter(), 5)[0].text
        assert retriever.semantic("when does the canteen shut", SearchFilter(), 1)[0].doc_id == "memo"
        assert retriever.keyword("cafeteria", SearchFilter(bucket="generic"), 5)[0].doc_id == "memo"
        _assert_every_store_agrees(stack, len(_documents()))


# -- the repair itself ---------------------------------------------------------------------------------


def test_chunks_rebuilt_from_postgres_are_exactly_what_ingestion_indexed(home, database_url, minilm):
    with opened(database_url, home, minilm) as stack:
        for source in _documents():
            _, indexed = Ingestor(stack)._chunk(source, source.content_hash())
            assert stack.store.indexed_chunks([c.chunk_id for c in indexed]) == indexed


def test_a_lost_vector_index_is_re_embedded_from_the_cache_and_a_second_run_finds_nothing(home, database_url, minilm):
    with opened(database_url, home, minilm) as stack:
        committed = sorted(stack.store.chunk_ids())
        stack.vectors.delete_chunks(committed)
        misses = stack.embedder.misses
        report = check(stack, repair=True)
        assert [(d.store, d.kind, d.found, d.repaired) for d in report.drift if d.found] == [
            ("vectors", MISSING, len(committed), len(committed))
        ]
        assert report.consistent and stack.embedder.misses == misses, "every vector must come from the embedding cache"
        assert check(stack, repair=False).clean
        assert check(stack, repair=True).clean, "a repair with nothing to repair changes nothing"


def test_a_check_of_one_scope_leaves_the_other_scopes_alone(home, database_url, minilm):
    with opened(database_url, home, minilm) as stack:
        _write_engines_only(
            stack, SourceDocument(document=Document(doc_id="x", bucket="generic", scope="tenant_b", body="Elsewhere."))
        )
        assert check(stack, repair=True, scope="default").clean
        assert [d.found for d in check(stack, repair=False, scope="tenant_b").drift if d.kind == UNKNOWN] == [1, 1]
        assert check(stack, repair=False).counts["keyword"]["chunks"] == len(stack.store.chunk_ids()) + 1


def test_rows_whose_document_is_missing_are_found_and_deleted(home, database_url, minilm):
    """Impossible while the foreign keys hold; a restore with `session_replication_role = replica` bypasses them."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute(
            "INSERT INTO annotations (scope, annotation_id, doc_id, bucket, kind, row) VALUES "
            "('default', 'ghost#properties-0', 'ghost', 'contracts', 'properties', '{}')"
        )
        conn.execute(
            "INSERT INTO chunks (chunk_id, scope, doc_id, ordinal, start_char, end_char, text) VALUES "
            "(gen_random_uuid(), 'default', 'ghost', 0, 0, 5, 'ghost')"
        )
    with opened(database_url, home, minilm) as stack:
        found = {d.kind: d.found for d in check(stack, repair=False).drift if d.store == "postgres"}
        assert found == {"chunk rows without a document": 1, "annotation rows without a document": 1}
        assert check(stack, repair=True).consistent
        assert check(stack, repair=False).clean
        assert stack.store.annotation_ids("default", "ghost") == []


AGENT_RUN = """
import sys, time
from dataclasses import replace
from pathlib import Path
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg import Connection
from graph.builder import compile_agent
from graph.checkpointing import CONNECTION_OPTIONS, SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.engines.embedders.minilm import MiniLMEmbedder
from tests.conftest import make_stack

class SlowKeyword:
    # the keyword engine of a run that is killed while it waits for the search
    def __init__(self, engine): self.engine = engine
    def __getattr__(self, name):
        if name == "search":
            return lambda *a, **k: time.sleep(600)
        return getattr(self.engine, name)

database_url, home = sys.argv[1], Path(sys.argv[2])
stack = make_stack(database_url, home, MiniLMEmbedder())
services = AgentServices(replace(stack, keyword=SlowKeyword(stack.keyword)))
with Connection.connect(database_url, **CONNECTION_OPTIONS) as conn:
    saver = PostgresSaver(conn, serde=SERDE)
    saver.setup()
    compile_agent(services, saver).invoke({"question": "How do I get onto the vpn when I work remotely?"},
                                {"configurable": {"thread_id": "killed"}}, context=AgentContext())
"""


def test_a_run_killed_mid_way_resumes_from_its_last_checkpoint(database_url, tmp_path, minilm):
    """`kill -9` while the run waits on a search; a new process picks the thread up from its last checkpoint
    (the planning steps are not run again) and answers."""
    from langgraph.checkpoint.postgres import PostgresSaver

    from graph.builder import compile_agent
    from graph.checkpointing import CONNECTION_OPTIONS, SERDE
    from graph.context import AgentContext
    from graph.services import AgentServices
    from retrievers.loaders import field_specs, sample

    with (
        opened(database_url, tmp_path, minilm) as stack,
        psycopg.Connection.connect(database_url, **CONNECTION_OPTIONS) as conn,
    ):
        Ingestor(stack).ingest(sample.load(), field_specs=field_specs("sample"), progress=False)
        PostgresSaver(conn, serde=SERDE).setup()
    env = {**os.environ, "RAGENT_ENGINE_TIMEOUT_S": "900"}
    run = subprocess.Popen([sys.executable, "-c", AGENT_RUN, database_url, str(tmp_path)], env=env, cwd=os.getcwd())
    deadline = time.monotonic() + FIRST_COMMIT_TIMEOUT_S
    with psycopg.connect(database_url, autocommit=True) as conn:
        # the input is step -1; __start__, decompose, route, plan and review are steps 0-4; then it waits in retrieve
        last_step = "SELECT max((metadata->>'step')::int) FROM checkpoints WHERE thread_id = 'killed'"
        while time.monotonic() < deadline and run.poll() is None:
            if (conn.execute(last_step).fetchone()[0] or -1) >= 4:
                break
            time.sleep(0.2)
    assert run.poll() is None, "the run was still waiting on its search"
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)

    with (
        opened(database_url, tmp_path, minilm) as stack,
        psycopg.Connection.connect(database_url, **CONNECTION_OPTIONS) as conn,
        AgentServices(stack) as services,
    ):
        agent = compile_agent(services, PostgresSaver(conn, serde=SERDE))
        config = {"configurable": {"thread_id": "killed"}}
        assert agent.get_state(config).next == ("retrieve",)
        agent.invoke(None, config, context=AgentContext())
        state = agent.get_state(config)
        history = list(agent.get_state_history(config))
    assert state.values["answer"].citations[0].doc_id == "sample-generic-002"
    assert [s.next for s in history].count(("route",)) == 1, "the steps before the crash ran once"
