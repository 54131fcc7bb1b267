"""Living with the data: `ragent documents list|show|delete` across the three stores, deletes interrupted by
`kill -9`, the sample corpus in its own scope, and the embedded Postgres stopped when its last user exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from core.errors import BackendUnavailable
from core.models import AnnotationRow, Document, SearchFilter, SourceDocument
from evals.served_agent import ServedAgent
from retrievers.ingestion.consistency import check
from retrievers.ingestion.documents import delete_documents, finish_pending_deletions
from retrievers.ingestion.pipeline import Ingestor, IngestReport
from retrievers.postgres.embedded.idle import WATCHER_FILE
from retrievers.postgres.embedded.process import alive
from retrievers.postgres.embedded.server import embedded_database_url, start_in_background
from retrievers.search import Retriever
from tests.test_cli import ragent
from tests.test_crashes import opened

BLOCKED_TIMEOUT_S = 120


def _invoices() -> list[SourceDocument]:
    """Two invoices; only the second has a `po_number`, so deleting it takes the field out of the catalog."""
    return [
        SourceDocument(
            document=Document(
                doc_id="inv-1",
                bucket="invoices",
                title="Invoice 1 from Contoso Ltd",
                body="Invoice 1 from Contoso Ltd for copper fittings, payable within thirty days.",
            ),
            annotations=[AnnotationRow(row={"issuer": "Contoso Ltd", "amount": 120.5})],
        ),
        SourceDocument(
            document=Document(
                doc_id="inv-2",
                bucket="invoices",
                title="Invoice 2 from Northwind Traders",
                body="Invoice 2 from Northwind Traders for walnut veneer panels, delivered to Rotterdam harbour. " * 30,
            ),
            annotations=[
                AnnotationRow(
                    row={"issuer": "Northwind Traders", "amount": 980.0, "po_number": "PO-7781", "note": "x" * 400}
                )
            ],
        ),
    ]


@pytest.fixture
def home(database_url, tmp_path, minilm):
    """A data home with the two invoices in scope `default` and again in scope `team_b`, no process holding it."""
    with opened(database_url, tmp_path, minilm) as stack:
        Ingestor(stack).ingest(_invoices(), progress=False)
        for source in (team_b := _invoices()):
            source.document.scope = "team_b"
        Ingestor(stack).ingest(team_b, progress=False)
    return tmp_path


def _cli(home, database_url, *args: str) -> subprocess.CompletedProcess:
    return ragent(*args, home=home, DATABASE_URL=database_url)


def _json(result: subprocess.CompletedProcess):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_documents_are_listed_with_titles_and_counts_and_shown_whole(home, database_url):
    listed = _cli(home, database_url, "documents", "list")
    assert listed.returncode == 0, listed.stderr
    assert "inv-1  'Invoice 1 from Contoso Ltd'" in listed.stdout and "1-2 of 2 document(s) in scope 'default'" in (
        listed.stdout
    )
    page = _cli(home, database_url, "documents", "list", "--limit", "1")
    assert "1-1 of 2 document(s)" in page.stdout and "--offset 1 for the next page" in page.stdout
    records = _json(_cli(home, database_url, "documents", "list", "--json", "--offset", "1"))
    assert records["total"] == 2 and [d["doc_id"] for d in records["documents"]] == ["inv-2"]
    second = records["documents"][0]
    assert second["annotation_rows"] == 1 and second["chunks"] > 1 and second["title"].startswith("Invoice 2")

    shown = _cli(home, database_url, "documents", "show", "inv-2")
    assert shown.returncode == 0, shown.stderr
    assert '"po_number": "PO-7781"' in shown.stdout and "x" * 400 in shown.stdout, "annotation rows are shown whole"
    assert "all of it with --json" in shown.stdout
    whole = _json(_cli(home, database_url, "documents", "show", "inv-2", "--json"))
    assert whole["body"] == _invoices()[1].document.body and whole["annotations"][0]["row"]["po_number"] == "PO-7781"

    missing = _cli(home, database_url, "documents", "show", "inv-9")
    assert missing.returncode == 2 and "no document 'inv-9' in scope 'default'" in missing.stderr


def test_a_deleted_document_is_gone_from_every_store_and_the_catalog(home, database_url, minilm):
    deleted = _cli(home, database_url, "documents", "delete", "inv-2")
    assert deleted.returncode == 0, deleted.stderr
    assert "deleted 1 document(s) of scope 'default'" in deleted.stdout and "invoices/inv-2" in deleted.stdout

    assert [d["doc_id"] for d in _json(_cli(home, database_url, "documents", "list", "--json"))["documents"]] == [
        "inv-1"
    ]
    assert "(no results)" in _cli(home, database_url, "search", "keyword", "walnut veneer").stdout
    rows = _cli(home, database_url, "annotations", "invoices", "--where", "issuer", "=", "Northwind Traders")
    assert rows.returncode == 0 and "0 of 0 row(s)" in rows.stdout, rows.stderr
    unknown = _cli(home, database_url, "annotations", "invoices", "--where", "po_number", "exists", "-")
    assert unknown.returncode == 2 and "unknown field 'po_number'" in unknown.stderr
    fields = {f["name"] for f in _json(_cli(home, database_url, "catalog", "invoices", "--json"))["fields"]}
    assert fields == {"issuer", "amount"}, "the catalog no longer lists a field only the deleted document had"
    checked = _cli(home, database_url, "check")
    assert checked.returncode == 0 and "consistent: every store agrees" in checked.stdout, checked.stdout
    with opened(database_url, home, minilm) as stack:
        assert "inv-2" in {h.doc_id for h in Retriever(stack).keyword("walnut", SearchFilter(scope="team_b"), 5)}

    again = _cli(home, database_url, "documents", "delete", "inv-2", "inv-1")
    assert again.returncode == 1 and "not documents of scope 'default': inv-2" in again.stdout
    assert _json(_cli(home, database_url, "documents", "list", "--json"))["total"] == 0
    unknown = _cli(home, database_url, "documents", "delete", "inv-2")
    assert unknown.returncode == 1
    assert unknown.stdout.splitlines()[:2] == ["nothing deleted", "not documents of scope 'default': inv-2"]


def test_deleting_a_bucket_asks_first_and_leaves_other_scopes_alone(home, database_url):
    unasked = _cli(home, database_url, "documents", "delete", "--bucket", "invoices")
    assert unasked.returncode == 2 and "add --yes" in unasked.stderr
    both = _cli(home, database_url, "documents", "delete", "inv-1", "--bucket", "invoices", "--yes")
    assert both.returncode == 2 and "not both" in both.stderr
    unknown = _cli(home, database_url, "documents", "delete", "--bucket", "recipes", "--yes")
    assert unknown.returncode == 2 and "bucket 'recipes' is unknown" in unknown.stderr

    report = _json(_cli(home, database_url, "documents", "delete", "--bucket", "invoices", "--yes", "--json"))
    assert sorted(d["doc_id"] for d in report["deleted"]) == ["inv-1", "inv-2"] and report["not_found"] == []
    assert _json(_cli(home, database_url, "documents", "list", "--json"))["total"] == 0
    assert _json(_cli(home, database_url, "documents", "list", "--json", "--scope", "team_b"))["total"] == 2
    assert _cli(home, database_url, "check").returncode == 0


# -- deletes interrupted by kill -9 --------------------------------------------------------------------


def _start_delete(home, database_url, doc_id: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "RAGENT_HOME": str(home),
        "RAGENT_CACHE_DIR": str(home / "cache"),
        "DATABASE_URL": database_url,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "cli", "documents", "delete", doc_id],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait_until_blocked_by(holder: psycopg.Connection, process: subprocess.Popen, database_url: str) -> None:
    """Until a backend waits on a lock `holder` holds (the delete process reached it)."""
    deadline = time.monotonic() + BLOCKED_TIMEOUT_S
    with psycopg.connect(database_url, autocommit=True) as watcher:
        while not watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", (holder.info.backend_pid,)
        ).fetchone()[0]:
            assert process.poll() is None, f"the delete exited ({process.returncode}) before it reached the lock"
            assert time.monotonic() < deadline, "the delete never reached the lock"
            time.sleep(0.02)


def _kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_a_delete_killed_before_postgres_commits_leaves_the_document_whole(home, database_url, minilm):
    with psycopg.connect(database_url) as holder:
        # The delete's transaction first counts a change to the bucket's catalog: holding that row stops it there.
        holder.execute(
            "INSERT INTO stale_catalogs AS s (scope, bucket) VALUES ('default', 'invoices')"
            " ON CONFLICT (scope, bucket) DO UPDATE SET changes = s.changes + 1"
        )
        process = _start_delete(home, database_url, "inv-2")
        try:
            _wait_until_blocked_by(holder, process, database_url)
        finally:
            _kill(process)
        holder.rollback()

    checked = _cli(home, database_url, "check")
    assert checked.returncode == 0 and "consistent: every store agrees" in checked.stdout, checked.stdout
    with opened(database_url, home, minilm) as stack:
        assert stack.store.get_document("default", "inv-2") is not None
        assert stack.store.pending_deletions() == []
        assert "inv-2" in {h.doc_id for h in Retriever(stack).keyword("walnut veneer", SearchFilter(), 5)}
        assert "inv-2" in {h.doc_id for h in Retriever(stack).semantic("wooden panels shipped", SearchFilter(), 5)}


def test_a_delete_killed_after_postgres_commits_is_finished_by_the_next_check(home, database_url, minilm):
    with psycopg.connect(database_url, autocommit=True) as holder:
        # After the commit and the engines, the delete refreshes the bucket's catalog under this advisory lock.
        holder.execute("SELECT pg_advisory_lock(727275, hashtext(%s))", ("default\x1finvoices",))
        process = _start_delete(home, database_url, "inv-2")
        try:
            _wait_until_blocked_by(holder, process, database_url)
        finally:
            _kill(process)
        holder.execute("SELECT pg_advisory_unlock_all()")

    with opened(database_url, home, minilm) as stack:
        assert [p["doc_id"] for p in stack.store.pending_deletions()] == ["inv-2"], "the kill landed mid-delete"
        assert stack.store.get_document("default", "inv-2") is None
    checked = _cli(home, database_url, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "finished 1 delete(s) an earlier process left part-way" in checked.stdout
    assert "consistent: every store agrees" in checked.stdout
    assert _cli(home, database_url, "check").stdout.count("finished") == 0, "a second check has nothing to finish"
    fields = {f["name"] for f in _json(_cli(home, database_url, "catalog", "invoices", "--json"))["fields"]}
    assert "po_number" not in fields


def test_chunks_an_interrupted_delete_left_in_the_engines_are_never_returned_and_are_dropped(
    home, database_url, minilm
):
    """The widest window: Postgres committed the delete, neither engine dropped a chunk (a kill right after the
    commit), then the same document is ingested again by a process that finishes the delete first."""
    with opened(database_url, home, minilm) as stack:
        stack.store.delete_documents("default", ["inv-2"])
        held = stack.keyword.chunk_ids("default") - stack.store.chunk_ids("default")
        assert held and held == stack.vectors.chunk_ids("default") - stack.store.chunk_ids("default")
        assert "inv-2" not in {h.doc_id for h in Retriever(stack).keyword("walnut veneer", SearchFilter(), 10)}
        assert "inv-2" not in {h.doc_id for h in Retriever(stack).semantic("wooden panels", SearchFilter(), 10)}

        report = Ingestor(stack).ingest(_invoices()[1:], progress=False)
        assert report.added == 1, "the document comes back as new"
        assert stack.store.pending_deletions() == []
        assert check(stack, repair=False).clean
        assert "inv-2" in {h.doc_id for h in Retriever(stack).keyword("walnut veneer", SearchFilter(), 10)}


def test_finishing_a_delete_keeps_the_chunks_postgres_knows_again(home, database_url, minilm):
    """A server backend shared by two processes: the document was ingested again (same content, so the same chunk
    ids) before the delete was finished. Its chunks stay in the engines."""
    with opened(database_url, home, minilm) as stack:
        stack.store.delete_documents("default", ["inv-1"])
        Ingestor(stack)._ingest_batch(_invoices()[:1], IngestReport(), force=False)
        assert finish_pending_deletions(stack) == 1
        assert check(stack, repair=False).clean
        assert Retriever(stack).keyword("copper fittings", SearchFilter(), 5)[0].doc_id == "inv-1"


def test_delete_refuses_what_is_not_a_request(home, database_url, minilm):
    with opened(database_url, home, minilm) as stack:
        with pytest.raises(ValueError, match="nothing to delete: name the documents"):
            delete_documents(stack, "default")
        for bad in ("a\x00b", " padded", "x" * 201, ""):
            with pytest.raises(ValueError, match="is not a document id"):
                delete_documents(stack, "default", ["inv-1", bad])
        assert delete_documents(stack, "default", ["nope", "nope"]).not_found == ["nope"]
        assert stack.store.counts("default")["documents"] == 2, "nothing deleted by a refused request"


# -- the sample corpus in its own scope ------------------------------------------------------------------


def test_the_sample_corpus_goes_to_its_own_scope_unless_one_is_named(tmp_path, database_url):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return ragent(*args, home=tmp_path, DATABASE_URL=database_url)

    ingested = cli("ingest", "--dataset", "sample")
    assert ingested.returncode == 0, ingested.stderr
    assert _json(cli("documents", "list", "--scope", "sample", "--json"))["total"] == 47
    assert _json(cli("documents", "list", "--json"))["total"] == 0, "a user's own scope holds none of the sample"

    in_sample = _json(cli("ask", "How many invoices are there?", "--scope", "sample", "--json"))
    assert in_sample["status"] == "answered" and in_sample["answer"]["value"] == 8
    asked = cli("ask", "How many invoices are there?", "--json")
    in_default = _json(asked)
    assert in_default["status"] == "answered", "nothing to search is no reason to ask which bucket to search"
    assert "Scope 'default' holds no documents yet" in in_default["answer"]["text"]
    assert in_default["answer"]["value"] is None and not in_default["answer"]["citations"]
    assert "ask with --scope sample" in asked.stderr


# -- the embedded Postgres's lifecycle ---------------------------------------------------------------------

HOLDER = """
import sys, time
from core.settings import Settings
from retrievers.stack import make_store
make_store(Settings.from_env())
print("holding", flush=True)
time.sleep(600)
"""


def _postgres_running(home) -> bool:
    pid_file = home / "postgres" / "postmaster.pid"
    if not pid_file.exists():
        return False
    try:
        os.kill(int(pid_file.read_text().split()[0]), 0)
    except ProcessLookupError:
        return False
    return True


def test_the_embedded_postgres_stops_with_its_last_user_even_after_a_kill_9(tmp_path):
    env = {**os.environ, "RAGENT_HOME": str(tmp_path), "RAGENT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DATABASE_URL", None)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        stats = _json(ragent("stats", "--json", home=tmp_path))
        assert stats["postgres"]["running"] and str(holder.pid) in " ".join(stats["postgres"]["used_by"])
        refused = ragent("stop", home=tmp_path)
        assert refused.returncode == 2 and f"in use by {holder.pid}" in refused.stderr
        assert _postgres_running(tmp_path)
    finally:
        _kill(holder)
    assert _postgres_running(tmp_path), "a process killed with SIGKILL cannot stop it"

    stats = ragent("stats", home=tmp_path)
    assert "running (pid" in stats.stdout
    assert "used by no other process; it stops as its last user exits" in stats.stdout
    assert not _postgres_running(tmp_path), "the last user stops it, the killed one forgotten"
    assert "was not running" in ragent("stats", home=tmp_path).stdout
    assert "is not running" in ragent("stop", home=tmp_path).stdout


def _eventually(condition, what: str, within_s: float = 60.0) -> None:
    """Wait for something another process does in its own time (a watcher's stop), failing after `within_s`."""
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"not within {within_s} s: {what}"
        time.sleep(0.2)


def test_the_embedded_postgres_stays_up_between_commands_and_stops_once_idle(tmp_path):
    """The default: a command's exit leaves the server up for the next command, which joins it without a restart;
    a watcher stops it once no process has used it for RAGENT_POSTGRES_IDLE_STOP_S seconds (the last user's value),
    and `ragent stop` stops it at once, the watcher then leaving too."""
    data_dir = tmp_path / "postgres"
    first = ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S="600")
    assert "was not running; this command started it, and it stops once unused for 600 s" in first.stdout, first.stderr
    assert _postgres_running(tmp_path), "the server outlives the command that started it"
    pid = int((data_dir / "postmaster.pid").read_text().split()[0])
    watcher = int((data_dir / WATCHER_FILE).read_text())

    second = ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S="600")
    assert f"running (pid {pid}), used by no other process, idle: stops in" in second.stdout, "joined, not restarted"
    assert int((data_dir / WATCHER_FILE).read_text()) == watcher, "one watcher however many commands leave"

    ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S="1")
    _eventually(lambda: not _postgres_running(tmp_path), "the watcher stops the idle server")
    _eventually(lambda: not (data_dir / WATCHER_FILE).exists(), "the watcher leaves once it has stopped the server")

    ragent("stats", home=tmp_path, RAGENT_POSTGRES_IDLE_STOP_S="600")
    watcher = int((data_dir / WATCHER_FILE).read_text())
    stopped = ragent("stop", home=tmp_path)
    assert stopped.returncode == 0 and "stopped the embedded Postgres" in stopped.stdout, stopped.stderr
    assert not _postgres_running(tmp_path)
    _eventually(lambda: not alive(watcher), "the watcher of a server stopped by `ragent stop` exits")
    assert "was not running" in ragent("stats", home=tmp_path).stdout


def _postmaster(home) -> int:
    return int((home / "postgres" / "postmaster.pid").read_text().split()[0])


def test_a_data_folder_copied_or_moved_while_its_postgres_idles_gets_a_server_of_its_own(tmp_path):
    """The copied folder carries the original's lock file, whose server is alive: the copy must not join it (its
    writes would land in the original), and `ragent stop` on the copy must not stop the original's. A moved
    folder's server knows it by its old path: it is replaced by one started where the folder now is."""
    idle = {"RAGENT_POSTGRES_IDLE_STOP_S": "600"}
    original, copy, moved = tmp_path / "original", tmp_path / "copy", tmp_path / "moved"
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.txt").write_text(f"The {name} memo of the copied folder.")
    assert ragent("ingest", str(tmp_path / "first"), "--bucket", "generic", home=original, **idle).returncode == 0
    subprocess.run(["cp", "-a", str(original), str(copy)], check=True)

    added = ragent("ingest", str(tmp_path / "second"), "--bucket", "generic", home=copy, **idle)
    assert added.returncode == 0, added.stderr
    try:
        assert _postmaster(copy) != _postmaster(original), "the copy runs a server of its own"
        assert "second" in ragent("documents", "list", home=copy, **idle).stdout
        assert "second" not in ragent("documents", "list", home=original, **idle).stdout
        for home in (copy, original):
            assert "consistent" in ragent("check", home=home, **idle).stdout
        assert ragent("stop", home=copy).returncode == 0
        assert _postgres_running(original) and not _postgres_running(copy), "stopping the copy spares the original"

        server = _postmaster(original)
        original.rename(moved)
        listed = ragent("documents", "list", home=moved, **idle)
        assert listed.returncode == 0 and "first" in listed.stdout, listed.stderr
        assert not alive(server) and _postmaster(moved) != server, "the server of the old path was replaced"
        assert "consistent" in ragent("check", home=moved, **idle).stdout
    finally:
        for home in (copy, original, moved):
            if home.exists():
                ragent("stop", home=home)


def test_ragent_stop_stops_a_postgres_left_running(tmp_path):
    env = {**os.environ, "RAGENT_HOME": str(tmp_path), "RAGENT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DATABASE_URL", None)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
    finally:
        _kill(holder)
    stopped = ragent("stop", home=tmp_path)
    assert stopped.returncode == 0 and "stopped the embedded Postgres" in stopped.stdout, stopped.stderr
    assert not _postgres_running(tmp_path)
    elsewhere = ragent("stop", home=tmp_path, DATABASE_URL="postgresql://u@127.0.0.1:9/db")
    assert elsewhere.returncode == 2 and "does not manage" in elsewhere.stderr


def test_the_embedded_postgres_stops_when_ragent_serve_stops(tmp_path):
    """The server process exits on SIGTERM without its atexit, so `ragent serve` lets the Postgres go for it."""
    served = ServedAgent(tmp_path, {"RAGENT_CACHE_DIR": str(tmp_path / "cache")})
    served.env.pop("DATABASE_URL", None)
    with served:
        api = served.client()
        output = api.runs.wait(api.threads.create()["thread_id"], "agent", input={"question": "How many invoices?"})
        assert output["answer"]["value"] == 8, "the demo server answers from the sample corpus"
        assert _postgres_running(tmp_path)
    assert not _postgres_running(tmp_path)


def test_a_postgres_start_begun_early_is_joined_and_its_failure_is_the_callers(tmp_path):
    """`ragent ask` starts the embedded Postgres while it imports the agent; the first caller that needs the server
    waits for that start and gets its URL, or its failure as the usual one-line error."""
    data_dir = tmp_path / "postgres"
    start_in_background(data_dir, idle_stop_s=0)
    with psycopg.connect(embedded_database_url(data_dir, idle_stop_s=0)) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
    (tmp_path / "a-file").write_text("not a folder")
    unusable = tmp_path / "a-file" / "postgres"
    start_in_background(unusable, idle_stop_s=0)
    with pytest.raises(BackendUnavailable, match="did not start .*or set DATABASE_URL"):
        embedded_database_url(unusable, idle_stop_s=0)
