"""Two processes on one data folder: a process that owns the embedded engines (one that keeps ingesting, or a
`ragent serve`), and every CLI command started beside it.

What must hold each time: the command either does its work from Postgres alone (documents, annotations, catalogs,
counts) or is refused in one line that names the owner; no traceback; not one byte of an engine file changes; the
owner goes on ingesting afterwards; and once it is gone, `ragent check` finds the stores in agreement.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from evals.served_agent import ServedAgent
from retrievers.engines.lock import EngineLock, EnginesBusy
from tests.test_cli import ragent

ENGINE_FOLDERS = ("tantivy", "qdrant-edge")
OWNER = """
import json, sys
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import field_specs, sample
from core.models import Document, SourceDocument
from retrievers.stack import open_stack

stack = open_stack()
contracts = [s for s in sample.load() if s.document.bucket == "contracts"]
for source in contracts:  # in the sample's own scope, as `ragent serve --sample` puts it
    source.document.scope = "sample"
Ingestor(stack).ingest(contracts, field_specs=field_specs("sample"), progress=False)
print("ready", flush=True)
for n, _ in enumerate(sys.stdin):
    note = Document(doc_id=f"live-{n}", bucket="generic", title=f"Note {n}", body=f"Note {n}: the gate code changed.")
    report = Ingestor(stack).ingest([SourceDocument(document=note)], progress=False)
    print(json.dumps({"added": report.added}), flush=True)
stack.close()
"""

# Every command, with what it does beside an owner: "works" from Postgres alone, or is "refused" naming the owner.
COMMANDS = [
    (("stats", "--json"), "works"),
    (("documents", "list", "--bucket", "contracts"), "works"),
    (("catalog", "contracts", "--scope", "sample"), "works"),
    (("annotations", "contracts", "--where", "governing_law", "=", '"Delaware"', "--scope", "sample"), "works"),
    (("buckets",), "works"),
    (("search", "keyword", "notice"), "refused"),
    (("search", "semantic", "how much notice"), "refused"),
    (("search", "fused", "notice"), "refused"),
    (("ask", "Which contracts have a notice period under 60 days?"), "refused"),
    (("resume", "some-thread", "--answer", '{"choice": "stop"}'), "refused"),
    (("check",), "refused"),
    (("check", "--repair"), "refused"),
    (("ingest", "{folder}", "--bucket", "generic"), "refused"),
    (("documents", "delete", "sample-contract-001"), "refused"),
    (("serve",), "refused"),
]


def engine_files(home: Path) -> dict[str, str]:
    """Every file of the embedded engines with a hash of its bytes."""
    return {
        str(path.relative_to(home)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in ENGINE_FOLDERS
        for path in sorted((home / folder).rglob("*"))
        if path.is_file()
    }


def check_command_beside(owner_pid: int, home: Path, cache: Path, args: tuple[str, ...], expected: str, folder: Path):
    args = tuple(a.replace("{folder}", str(folder)) for a in args)
    before = engine_files(home)
    result = ragent(*args, home=home, RAGENT_CACHE_DIR=str(cache))
    assert "Traceback" not in result.stderr, result.stderr
    assert engine_files(home) == before, f"`ragent {' '.join(args)}` changed an engine file"
    if expected == "works":
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        errors = [line for line in result.stderr.splitlines() if line.startswith("ragent: error:")]
        assert len(errors) == 1 and f"in use by process {owner_pid} " in errors[0], result.stderr
    return result


@pytest.fixture
def cache(tmp_path_factory):
    """One embedding cache for the module's processes, so the sample's chunks are embedded once."""
    return tmp_path_factory.getbasetemp() / "two-processes-cache"


def test_every_command_beside_a_process_that_keeps_ingesting(tmp_path, cache):
    home = tmp_path / "home"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.md").write_text("A note that must not be ingested while another process owns the engines.")
    env = {**os.environ, "RAGENT_HOME": str(home), "RAGENT_CACHE_DIR": str(cache)}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert owner.stdout.readline().strip() == "ready"
        for args, expected in COMMANDS:
            result = check_command_beside(owner.pid, home, cache, args, expected, folder)
            if args == ("stats", "--json"):
                shown = json.loads(result.stdout)
                assert shown["store"]["documents"] >= 10 and f"process {owner.pid} " in shown["engines"]
            owner.stdin.write("ingest one more\n")
            owner.stdin.flush()
            assert json.loads(owner.stdout.readline()) == {"added": 1}, "the owner goes on ingesting"
        owner.stdin.close()
        assert owner.wait(timeout=120) == 0
    finally:
        if owner.poll() is None:
            owner.kill()
    checked = ragent("check", home=home, RAGENT_CACHE_DIR=str(cache))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    counted = json.loads(ragent("stats", "--json", home=home, RAGENT_CACHE_DIR=str(cache)).stdout)
    assert (
        counted["store"]["documents"] == 10 + len(COMMANDS)
        and counted["vectors"]["chunks"] == counted["store"]["chunks"]
    )


def test_every_command_beside_a_running_server(tmp_path, cache):
    home = tmp_path / "served"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "note.md").write_text("A note for the CLI, refused while the server owns the engines.")
    with ServedAgent(home, {"RAGENT_CACHE_DIR": str(cache)}) as server:
        before_any_run = ragent("documents", "delete", "sample-contract-001", "--scope", "sample", home=home)
        assert before_any_run.returncode == 2 and server.url in before_any_run.stderr, (
            "the server owns the engines from its start"
        )
        client = server.client()
        inbox = home / "inbox" / "sample" / "handbook"
        inbox.mkdir(parents=True)
        (inbox / "parking.md").write_text("# Parking\nVisitors park in the zorblatt garage behind building C.")
        thread = client.threads.create()["thread_id"]
        assert client.runs.wait(thread, "ingest", input={"path": "handbook", "bucket": "generic"})["added"] == 1
        server_pid = json.loads((home / "engines.lock").read_text())["pid"]
        for args, expected in COMMANDS:
            result = check_command_beside(server_pid, home, cache, args, expected, folder)
            if expected == "refused":
                assert server.url in result.stderr, "a refused command points at the server that owns the engines"
        (inbox / "lockers.md").write_text("# Lockers\nLockers on floor 2 open with the blue badge.")
        thread = client.threads.create()["thread_id"]
        assert client.runs.wait(thread, "ingest", input={"path": "handbook", "bucket": "generic"})["added"] == 1
        thread = client.threads.create()["thread_id"]
        answer = client.runs.wait(thread, "agent", input={"question": "Where do visitors park?"})["answer"]
        assert "zorblatt" in answer["text"]
    checked = ragent("check", home=home, RAGENT_CACHE_DIR=str(cache))
    assert checked.returncode == 0, checked.stdout + checked.stderr


LOCK_HOLDER = """
import sys
from pathlib import Path
from retrievers.engines.lock import EngineLock

home, sys.argv = Path(sys.argv[1]), sys.argv[2:]  # the command the holder says it is
lock = EngineLock(home).acquire(wait_s=0)
print("holding", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""


@pytest.mark.parametrize(
    ("command", "waits"),
    [("ask", True), ("search", True), ("stats", True), ("documents", True), ("ingest", False), ("check", False)],
)
def test_a_question_holding_the_engines_is_waited_for_and_anything_else_refused(tmp_path, command, waits):
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(tmp_path), "ragent", command, "something"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        release = threading.Timer(0.5, lambda: (holder.stdin.write("\n"), holder.stdin.flush()))
        release.start()
        if waits:
            lock = EngineLock(tmp_path).acquire(wait_s=60)
            assert holder.stdout.readline().strip() == "released", "taken only once the question was done"
            lock.release()
        else:
            with pytest.raises(EnginesBusy, match=f"in use by process {holder.pid} \\(ragent {command} something\\)"):
                EngineLock(tmp_path).acquire(wait_s=60)
            assert holder.poll() is None, "refused while the holder still held it, without waiting"
        release.join()
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize(("command", "waits"), [("ask", True), ("ingest", False)])
def test_a_holder_that_has_not_yet_written_who_it_is_is_read_again(tmp_path, monkeypatch, command, waits):
    """The moment between a holder taking the lock and writing its name (or emptying the file and giving the lock
    back) is no refusal of an unknown process: the waiter reads the owner again until it is written, then waits
    for a question or names the command it refuses for."""
    from retrievers.engines import lock as engine_lock

    holder = EngineLock(tmp_path)
    fd = os.open(holder.path, os.O_RDWR | os.O_CREAT, 0o644)
    engine_lock.fcntl.flock(fd, engine_lock.fcntl.LOCK_EX)  # taken, nothing written yet
    reads, read_empty_twice = [], threading.Event()

    def read_owner(home):
        reads.append(owner := engine_lock.read_owner.__wrapped__(home))
        if sum(not o for o in reads) >= 2:
            read_empty_twice.set()
        return owner

    read_owner.__wrapped__ = engine_lock.read_owner
    monkeypatch.setattr(engine_lock, "read_owner", read_owner)
    outcome: dict = {}

    def wait_for_it():
        try:
            outcome["lock"] = EngineLock(tmp_path).acquire(wait_s=60)
        except EnginesBusy as e:
            outcome["refused"] = str(e)

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    assert read_empty_twice.wait(30), "the waiter never read the empty owner"
    assert not outcome, f"decided before the owner was written: {outcome}"
    os.pwrite(fd, json.dumps({"pid": 4242, "command": f"ragent {command} something"}).encode(), 0)
    if waits:
        os.ftruncate(fd, 0)  # giving it back, as `release` does: the file is empty again for a moment
        engine_lock.fcntl.flock(fd, engine_lock.fcntl.LOCK_UN)
    waiter.join(30)
    os.close(fd)
    if waits:
        assert "lock" in outcome, outcome
        outcome["lock"].release()
    else:
        assert outcome["refused"].startswith(f"the search engines in {tmp_path} are in use by process 4242 (ragent ")


@pytest.mark.parametrize(
    ("argv", "advice"),
    [
        (["ragent", "ask", "how many?"], "ask through that server (`ragent ask --server http://127.0.0.1:8123 ...`"),
        (["ragent", "ingest", "./folder"], "ingest through that server (its `ingest` graph at http://127.0.0.1:8123"),
        (["ragent", "stop"], "ask through that server"),
    ],
)
def test_a_command_refused_beside_a_server_is_told_what_it_can_do_there(tmp_path, monkeypatch, argv, advice):
    monkeypatch.setattr(sys, "argv", argv)
    owner = {"pid": 7, "command": "langgraph dev", "server_url": "http://127.0.0.1:8123"}
    message = str(EnginesBusy(tmp_path, owner))
    assert message.startswith(f"the search engines in {tmp_path} are in use by process 7 (langgraph dev); {advice}")
    assert message.endswith("or stop it first")
