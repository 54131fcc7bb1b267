"""Tenants over HTTP: a real `ragent serve` with API keys, driven through `langgraph_sdk` and raw HTTP as two
tenants' clients would, and as a client without a key or with a forged one would.

Teams A and B hold the sample corpus under the same document ids; B's labels differ (every contract governed by
Delaware law with 10 days' notice, invoices a thousand times larger) and B has a document of its own. alice may use
team-a and ingest, bob team-b only, carol both. Every answer must be what the caller's own labels say, every chunk
in a thread's evidence must be of the caller's scope, another identity's thread must not exist for them (404),
and a thread must stay in the scope of its first run.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import time
import uuid

import httpx
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph_sdk import get_sync_client

from core.models import FieldSpec, SourceDocument
from core.settings import Settings
from evals.served_agent import ServedAgent
from graph.access.thread_ids import FRESH_S, made_just_now
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import field_specs, sample
from retrievers.postgres.store import PostgresStore
from retrievers.stack import open_stack
from tests.conftest import fresh_database
from tests.test_isolation import A_LABELS, EURO, _in_scope, _tenant_b_labels

A, B = "team-a", "team-b"
DELAWARE_A = {d for d, s in A_LABELS.items() for a in s.annotations if "Delaware" in a.row.get("governing_law", [])}
CONTRACTS = {d for d, s in A_LABELS.items() if s.document.bucket == "contracts"}
NOTICE_30_A = {
    d for d, s in A_LABELS.items() for a in s.annotations if any(n >= 30 for n in a.row.get("notice_period_days", []))
}
B_SECRET = "team-b-vpn-secret"


@pytest.fixture(scope="module")
def served(postgres_url, tmp_path_factory):
    """Both teams ingested before the server starts (it owns the engines from then on), then three keys."""
    home = tmp_path_factory.mktemp("tenancy")
    with fresh_database(postgres_url) as url:
        env = {"RAGENT_HOME": str(home), "DATABASE_URL": url}
        stack = open_stack(Settings.from_env(env))
        try:
            ingestor, specs = Ingestor(stack), field_specs("sample")
            ingestor.ingest(_in_scope(sample.load(), A), field_specs=specs, progress=False)
            ingestor.ingest(_in_scope(sample.load(), B, _tenant_b_labels), field_specs=specs, progress=False)
            secret = {"doc_id": B_SECRET, "bucket": "generic", "scope": B, "title": "Team B VPN"}
            body = "Working from home: connect to the team B VPN gateway vpn-b.example with the blue token."
            ingestor.ingest([SourceDocument.model_validate({"document": {**secret, "body": body}})], progress=False)
        finally:
            stack.close()
        keys = {
            name: _add_key(env, name, *options)
            for name, options in {
                "alice": ["--scope", A, "--ingest"],
                "bob": ["--scope", B],
                "carol": ["--scope", A, "--scope", B],
            }.items()
        }
        with ServedAgent(home, {"DATABASE_URL": url}) as server:
            server.keys, server.database_url = keys, url
            yield server


def _add_key(env: dict, identity: str, *options: str) -> str:
    """`ragent keys add`, as an operator runs it; the key is the line that starts with rk_."""
    printed = subprocess.run(
        [sys.executable, "-m", "cli", "keys", "add", identity, *options],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return re.search(r"^rk_\S+$", printed, re.MULTILINE).group(0)


def client(served, who: str):
    return get_sync_client(url=served.url, api_key=served.keys[who])


def chunk_scopes(served, values: dict) -> set[str]:
    """The scopes of every chunk a thread's state names (evidence hits, graded hits, citations)."""
    ids = set(re.findall(r'"chunk_id": "([0-9a-f-]{36})"', json.dumps(values)))
    if not ids:
        return set()
    with psycopg.connect(served.database_url) as conn:
        rows = conn.execute("SELECT DISTINCT scope FROM chunks WHERE chunk_id = ANY(%s::uuid[])", (list(ids),))
        return {scope for (scope,) in rows}


def ask(api, question: str, **options) -> tuple[str, dict]:
    thread = api.threads.create()["thread_id"]
    return thread, api.runs.wait(thread, "agent", input={"question": question}, **options)


ROUTES = [
    (
        "Which contracts are governed by Delaware law?",
        lambda answer: {r["doc_id"] for r in answer["rows"]} == DELAWARE_A,
        lambda answer: {r["doc_id"] for r in answer["rows"]} == CONTRACTS,
    ),
    (
        "How many contracts per governing law?",
        lambda answer: f"| Delaware | {len(DELAWARE_A)} |" in answer["text"],
        lambda answer: f"| Delaware | {len(CONTRACTS)} |" in answer["text"],
    ),
    (
        "What is the total amount of invoices in EUR?",
        lambda answer: answer["value"] == pytest.approx(EURO),
        lambda answer: answer["value"] == pytest.approx(EURO * 1000),
    ),
    (
        "How do I get onto the VPN when working from home?",
        lambda answer: B_SECRET not in json.dumps(answer),
        lambda answer: answer["citations"],
    ),
]


@pytest.mark.parametrize(("question", "right_for_a", "right_for_b"), ROUTES, ids=[q for q, *_ in ROUTES])
def test_each_route_answers_from_the_callers_own_scope(served, question, right_for_a, right_for_b):
    for who, scope, right in (("alice", A, right_for_a), ("bob", B, right_for_b)):
        api = client(served, who)
        thread, output = ask(api, question)
        assert right(output["answer"]), (who, output["answer"]["text"])
        assert chunk_scopes(served, api.threads.get_state(thread)["values"]) <= {scope}
        assert {"owner": who, "scope": scope}.items() <= api.threads.get(thread)["metadata"].items()


@pytest.mark.parametrize("forged", [B, "default", "sample"])
def test_a_context_scope_outside_the_identity_is_refused_before_anything_runs(served, forged):
    api = client(served, "alice")
    thread = api.threads.create()["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        api.runs.wait(thread, "agent", input={"question": "How many contracts?"}, context={"scope": forged})
    assert refused.value.response.status_code == 403
    assert f"alice may not use scope '{forged}'" in refused.value.response.text
    assert api.threads.get_state(thread)["values"] in ({}, None, []), "nothing ran"


def test_documents_are_managed_within_the_keys_scopes_and_deleted_only_with_ingestion_allowed(served):
    alice, bob = client(served, "alice"), client(served, "bob")

    def documents(api, **request):
        return api.runs.wait(api.threads.create()["thread_id"], "documents", input=request, raise_error=False)

    listed = documents(bob, action="list", bucket="contracts", limit=100)
    assert listed["scope"] == B and {d["doc_id"] for d in listed["documents"]} == CONTRACTS
    shown = documents(bob, action="show", doc_ids=[B_SECRET])
    assert shown["document"]["body"].startswith("Working from home") and shown["document"]["scope"] == B
    refused = documents(bob, action="delete", doc_ids=["sample-contract-001"])
    assert "bob may not delete documents" in refused["__error__"]["message"]
    assert documents(bob, action="list", bucket="contracts")["total"] == len(CONTRACTS), "nothing was deleted"
    hidden = documents(alice, action="show", doc_ids=[B_SECRET])
    assert f"no document '{B_SECRET}' in scope '{A}'" in hidden["__error__"]["message"]
    with pytest.raises(httpx.HTTPStatusError) as elsewhere:
        documents(alice, action="list", scope=B)
    assert (
        elsewhere.value.response.status_code == 403
        and f"alice may not use scope '{B}'" in elsewhere.value.response.text
    )
    assert documents(alice, action="delete", doc_ids=["no-such-document"])["not_found"] == ["no-such-document"]


def test_the_readme_resume_exports_the_threads_own_scope_only(served):
    """The example of docs/operations.md, word for word: a thread that asked in team-a, resumed with no context."""
    api = client(served, "alice")
    thread, _ = ask(api, "Which contracts have a notice period of at least 30 days?", context={"max_hits": 1})
    assert api.threads.get(thread)["status"] == "interrupted"
    output = api.runs.wait(thread, "agent", command={"resume": {"choice": "export"}})
    answer = output["answer"]
    assert answer["format"] == "export" and answer["value"] == len(NOTICE_30_A)
    with (served.home / answer["export_path"]).open(newline="") as exported:
        rows = list(csv.DictReader(exported))
    assert {r["doc_id"] for r in rows} == NOTICE_30_A, "team B's labels (10 days everywhere) would export none"


def test_another_identitys_thread_does_not_exist_for_them(served):
    alice, bob = client(served, "alice"), client(served, "bob")
    thread, _ = ask(alice, "Which contracts have a notice period of at least 30 days?", context={"max_hits": 1})
    attempts = {
        "get": lambda: bob.threads.get(thread),
        "state": lambda: bob.threads.get_state(thread),
        "history": lambda: bob.threads.get_history(thread),
        "update": lambda: bob.threads.update(thread, metadata={"note": "mine"}),
        "take": lambda: bob.threads.update(thread, metadata={"owner": "bob"}),  # was 403: the id exists
        "resume": lambda: bob.runs.wait(thread, "agent", command={"resume": {"choice": "export"}}),
        "continue": lambda: bob.runs.wait(thread, "agent", input={"question": "How many contracts?"}),
        "stream": lambda: list(bob.runs.stream(thread, "agent", input={"question": "How many contracts?"})),
        "runs": lambda: bob.runs.list(thread),
        "delete": lambda: bob.threads.delete(thread),
    }
    for name, attempt in attempts.items():
        with pytest.raises(httpx.HTTPStatusError) as refused:
            attempt()
        assert refused.value.response.status_code == 404, name
    assert thread not in {t["thread_id"] for t in bob.threads.search(metadata={"owner": "alice"})}
    assert bob.threads.search(limit=100) == [] or all(t["metadata"]["owner"] == "bob" for t in bob.threads.search())
    assert alice.threads.get(thread)["status"] == "interrupted", "the thread is untouched"


def test_a_thread_keeps_the_scope_of_its_first_run(served):
    carol = client(served, "carol")
    with pytest.raises(httpx.HTTPStatusError) as unnamed:
        ask(carol, "How many contracts?")
    assert unnamed.value.response.status_code == 403 and "name one in the run's context" in unnamed.value.response.text
    thread, _ = ask(
        carol, "Which contracts have a notice period of at least 30 days?", context={"scope": A, "max_hits": 1}
    )
    for run in (
        {"command": {"resume": {"choice": "export"}}, "context": {"scope": B}},
        {"input": {"question": "How many contracts are governed by Delaware law?"}, "context": {"scope": B}},
    ):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            carol.runs.wait(thread, "agent", **run)
        assert refused.value.response.status_code == 403
        assert "belongs to scope 'team-a'" in refused.value.response.text
    with pytest.raises(httpx.HTTPStatusError) as retagged:
        carol.threads.update(thread, metadata={"scope": B})
    assert retagged.value.response.status_code == 403
    answer = carol.runs.wait(thread, "agent", command={"resume": {"choice": "export"}})["answer"]
    assert answer["value"] == len(NOTICE_30_A), "resumed in team-a, where it asked"


def test_threads_copy_within_their_owner_and_their_scope_only(served):
    alice, bob = client(served, "alice"), client(served, "bob")
    thread, _ = ask(alice, "How many contracts per governing law?")
    copied = alice.threads.copy(thread)
    assert {"owner": "alice", "scope": A}.items() <= alice.threads.get(copied["thread_id"])["metadata"].items()
    for other in (thread, str(uuid.uuid4())):  # LangGraph answers a copy of no thread with 409: the same for both
        with pytest.raises(httpx.HTTPStatusError) as refused:
            bob.threads.copy(other)
        assert refused.value.response.status_code == 409
    assert all(t["metadata"]["owner"] == "bob" for t in bob.threads.search(limit=1000))
    with pytest.raises(httpx.HTTPStatusError) as cleared:
        alice.threads.update(thread, metadata={"scope": None})
    assert cleared.value.response.status_code == 403


def test_naming_a_thread_id_answers_alike_whether_another_tenant_holds_it_or_none_does(served):
    """LangGraph answered 409 'already exists' for another identity's id, where a read answers 404, and let the
    first tenant to name an id take it: ids are the server's to choose, so both are refused alike."""
    alice, bob = client(served, "alice"), client(served, "bob")
    thread, _ = ask(alice, "How many contracts per governing law?")
    deadline = time.monotonic() + 2 * FRESH_S
    while made_just_now(thread) and time.monotonic() < deadline:  # an id in its first seconds: graph.access.thread_ids
        time.sleep(0.05)
    question = {"question": "How many contracts?"}
    attempts = {
        "create": lambda named: bob.threads.create(thread_id=named),
        "create or keep": lambda named: bob.threads.create(thread_id=named, if_exists="do_nothing"),
        "run creating it": lambda named: bob.runs.wait(named, "agent", input=question, if_not_exists="create"),
    }
    answers = {}
    for named in (thread, str(uuid.uuid4())):
        for name, attempt in attempts.items():
            with pytest.raises(httpx.HTTPStatusError) as refused:
                attempt(named)
            answers.setdefault(name, set()).add((refused.value.response.status_code, refused.value.response.text))
    assert all(len(seen) == 1 for seen in answers.values()), answers
    assert all(status == 422 and "chosen by the server" in text for seen in answers.values() for status, text in seen)
    assert alice.threads.get(thread)["metadata"]["owner"] == "alice", "alice's thread is untouched"
    assert bob.threads.create()["metadata"]["owner"] == "bob", "a thread without a named id is made as before"


def test_paths_over_http_are_shown_from_the_ingest_root_not_the_servers_folders(served):
    folder = served.home / "inbox" / A / "leaflets"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bins.md").write_text("# Bins\nThe green bin goes out on Tuesdays at the zorblat depot.")
    alice = client(served, "alice")

    def run(graph: str, request: dict) -> dict:
        return alice.runs.wait(alice.threads.create()["thread_id"], graph, input=request, raise_error=False)

    ingested = run("ingest", {"path": "leaflets", "bucket": "generic"})
    missing = run("ingest", {"path": "no-such-leaflets", "bucket": "generic"})
    listed = run("documents", {"action": "list", "bucket": "generic", "limit": 1000})
    [doc_id] = [d["doc_id"] for d in listed["documents"] if d["doc_id"].endswith("bins.md")]
    shown = run("documents", {"action": "show", "doc_ids": [doc_id]})
    assert ingested["added"] == 1 and shown["document"]["source"] == "inbox/leaflets/bins.md"
    assert "inbox/no-such-leaflets is not a folder" in missing["__error__"]["message"]
    for output in (ingested, missing, listed, shown):
        assert str(served.home) not in json.dumps(output) and str(served.home.resolve()) not in json.dumps(output)


def test_a_key_reissued_without_a_scope_no_longer_sees_that_scopes_threads(served):
    env = {"RAGENT_HOME": str(served.home), "DATABASE_URL": served.database_url}
    before = get_sync_client(url=served.url, api_key=_add_key(env, "erin", "--scope", A))
    thread, _ = ask(before, "How many contracts per governing law?")
    subprocess.run([sys.executable, "-m", "cli", "keys", "revoke", "erin"], env={**os.environ, **env}, check=True)
    after = get_sync_client(url=served.url, api_key=_add_key(env, "erin", "--scope", B))
    for attempt in (lambda: after.threads.get(thread), lambda: after.threads.get_state(thread)):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            attempt()
        assert refused.value.response.status_code == 404
    assert after.threads.search() == []


def test_ingestion_is_a_permission_and_only_into_the_callers_scopes(served):
    folder = served.home / "inbox" / A / "handbook"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "parking.md").write_text("# Parking\nVisitors park in the quorvex garage; the gate code is at reception.")
    alice, bob = client(served, "alice"), client(served, "bob")
    request = {"path": "handbook", "bucket": "generic"}
    refused = bob.runs.wait(bob.threads.create()["thread_id"], "ingest", input=request, raise_error=False)
    assert "bob may not ingest documents" in refused["__error__"]["message"]
    with pytest.raises(httpx.HTTPStatusError) as elsewhere:
        alice.runs.wait(alice.threads.create()["thread_id"], "ingest", input={**request, "scope": B})
    assert elsewhere.value.response.status_code == 403
    report = alice.runs.wait(alice.threads.create()["thread_id"], "ingest", input=request)
    assert report["added"] == 1
    _, theirs = ask(bob, "Where do visitors park in the quorvex garage?")
    assert "parking.md" not in json.dumps(theirs)
    _, ours = ask(alice, "Where do visitors park in the quorvex garage?")
    assert ours["answer"]["citations"][0]["doc_id"].endswith("parking.md")


def test_a_key_ingests_from_its_own_scopes_inbox_only_and_its_refusals_name_nothing_of_another_scope(served):
    """One inbox for every scope let alice (team-a, may ingest) take team-b's files into team-a and read them back,
    and an annotations file's error named a team-b document (issue 34, item 3)."""
    theirs = served.home / "inbox" / B / "teamb-private"
    theirs.mkdir(parents=True)
    (theirs / "codeword.md").write_text("# Codeword\nThe team B launch codeword is saffron-kestrel.")
    (theirs / "labels.jsonl").write_text('{"doc_id": "teamb-hidden-id", "row": {"owner": "bob"}}\n')
    mine = served.home / "inbox" / A / "own-notes"
    mine.mkdir(parents=True)
    (mine / "lunch.md").write_text("# Lunch\nTeam A lunches at noon.")
    (mine / "their-codeword.md").symlink_to(theirs / "codeword.md")
    (served.home / "inbox" / A / "their-folder").symlink_to(theirs, target_is_directory=True)
    alice = client(served, "alice")

    def ingest(request: dict) -> dict:
        return alice.runs.wait(alice.threads.create()["thread_id"], "ingest", input=request, raise_error=False)

    attempts = [
        {"path": "teamb-private", "bucket": "generic"},
        {"path": f"{B}/teamb-private", "bucket": "generic"},
        {"path": f"../{B}/teamb-private", "bucket": "generic"},
        {"path": "their-folder", "bucket": "generic"},
        {"path": "own-notes", "bucket": "generic", "annotations": f"../{B}/teamb-private/labels.jsonl"},
    ]
    for request in attempts:
        refused = ingest(request)
        assert "__error__" in refused, request
        said = json.dumps(refused)
        assert "saffron" not in said and "teamb-hidden-id" not in said and "codeword" not in said, said
        assert str(served.home) not in said, said
    report = ingest({"path": "own-notes", "bucket": "generic"})
    assert report["added"] == 1, "alice's own file, not the link to team-b's"
    assert [s["path"] for s in report["skipped"]] == ["their-codeword.md"]
    assert "saffron" not in json.dumps(report)
    listed = alice.runs.wait(
        alice.threads.create()["thread_id"], "documents", input={"action": "list", "bucket": "generic", "limit": 1000}
    )
    assert not [d for d in listed["documents"] if "codeword" in d["doc_id"]], "nothing of team-b's in team-a"
    _, answer = ask(alice, "What is the team B launch codeword?")
    assert "saffron" not in json.dumps(answer)


def test_fields_are_extracted_on_the_server_in_the_callers_scope_with_its_progress_streamed(served):
    alice, bob = client(served, "alice"), client(served, "bob")
    folder = served.home / "inbox" / A / "recipes"
    folder.mkdir(parents=True)
    for i in range(3):
        (folder / f"dish-{i}.md").write_text(f"# Dish {i}\n\nCuisine: Thai\nServes: {i + 2}\n")
    store = PostgresStore(served.database_url)  # a bucket and its fields, declared as `ragent buckets add` does
    try:
        store.add_bucket("recipes", "")
        store.record_field_specs("recipes", [FieldSpec(name="cuisine", type="string", found_by="text")])
        ingest = {"path": "recipes", "bucket": "recipes"}
        ingested = alice.runs.wait(alice.threads.create()["thread_id"], "ingest", input=ingest)
        servings = FieldSpec(name="servings", type="integer", aliases=["serves"], found_by="text")
        store.record_field_specs("recipes", [servings])  # declared after the documents came
    finally:
        store.close()
    assert ingested["added"] == 3
    request = {"extract": True, "bucket": "recipes", "fields": ["servings"]}

    refused = bob.runs.wait(bob.threads.create()["thread_id"], "ingest", input=request, raise_error=False)
    assert "bob may not extract documents' fields" in refused["__error__"]["message"]
    with pytest.raises(httpx.HTTPStatusError) as elsewhere:
        alice.runs.wait(alice.threads.create()["thread_id"], "ingest", input={**request, "scope": B})
    assert elsewhere.value.response.status_code == 403
    unknown = alice.runs.wait(
        alice.threads.create()["thread_id"], "ingest", input={**request, "fields": ["serves"]}, raise_error=False
    )
    assert "recipes has no field 'serves'; its fields are cuisine, servings" in unknown["__error__"]["message"]

    parts = list(
        alice.runs.stream(
            alice.threads.create()["thread_id"], "ingest", input=request, stream_mode=["custom", "values"]
        )
    )
    progress = [p.data for p in parts if p.event == "custom"]
    assert progress[0] == {"event": "extract", "bucket": "recipes", "done": 0, "total": 3} and progress[-1]["done"] == 3
    result = [p.data for p in parts if p.event == "values"][-1]
    assert (result["extracted_fields"], result["documents"], result["values"]) == (["servings"], 3, 3)
    with psycopg.connect(served.database_url) as conn:
        rows = conn.execute(
            "SELECT a.scope, a.row FROM annotations a JOIN documents d USING (scope, doc_id) WHERE d.bucket = 'recipes'"
        ).fetchall()
    assert sorted((scope, row["servings"], row["cuisine"]) for scope, row in rows) == [
        (A, 2, "Thai"),
        (A, 3, "Thai"),
        (A, 4, "Thai"),
    ]


def test_requests_without_a_valid_key_are_refused(served):
    for headers in (
        {},
        {"x-api-key": "rk_00000000_" + "x" * 43},
        {"authorization": "Bearer not-a-key"},
        {"x-auth-scheme": "langsmith"},
        {"x-api-key": served.keys["alice"][:-1]},
    ):
        response = httpx.post(f"{served.url}/threads/search", json={}, headers=headers)
        assert response.status_code == 401, headers
    assert httpx.post(
        f"{served.url}/threads/search", json={}, headers={"authorization": f"Bearer {served.keys['bob']}"}
    ).is_success


def test_cross_origin_requests_are_allowed_for_studio_only(served):
    def preflight(origin: str) -> httpx.Response:
        headers = {
            "origin": origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "x-api-key",
        }
        return httpx.options(f"{served.url}/threads/search", headers=headers)

    assert (
        preflight("https://smith.langchain.com").headers["access-control-allow-origin"] == "https://smith.langchain.com"
    )
    evil = preflight("https://evil.example")
    assert evil.status_code == 400 and "access-control-allow-origin" not in evil.headers


def test_a_revoked_key_is_refused_at_once(served):
    env = {"RAGENT_HOME": str(served.home), "DATABASE_URL": served.database_url}
    key = _add_key(env, "dave", "--scope", A)
    assert httpx.post(f"{served.url}/threads/search", json={}, headers={"x-api-key": key}).is_success
    subprocess.run([sys.executable, "-m", "cli", "keys", "revoke", "dave"], env={**os.environ, **env}, check=True)
    assert httpx.post(f"{served.url}/threads/search", json={}, headers={"x-api-key": key}).status_code == 401


FORGED_TRIED = 30


@pytest.fixture(scope="module")
def alices_thread(served):
    thread, _ = ask(
        client(served, "alice"), "Which contracts have a notice period of at least 30 days?", context={"max_hits": 1}
    )
    return thread


@settings(max_examples=FORGED_TRIED, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    key=st.sampled_from(["bob", "none", "garbage", "alice-cut", "bob-as-bearer-and-header"]),
    header=st.sampled_from([{}, {"x-auth-scheme": "langsmith"}, {"x-user": "alice"}, {"x-scope": A}]),
    context=st.sampled_from(
        [None, {"scope": A}, {"scope": B}, {"scope": "default"}, {"scope": ["team-a"]}, {"scope": 7}]
    ),
    thread=st.sampled_from(["alice", "new", "random"]),
    run=st.sampled_from(["input", "resume"]),
)
def test_forged_headers_contexts_and_thread_ids_never_reach_another_tenant(
    served, alices_thread, key, header, context, thread, run
):
    headers = dict(header)
    if key == "bob":
        headers["x-api-key"] = served.keys["bob"]
    elif key == "garbage":
        headers["x-api-key"] = "rk_" + uuid.uuid4().hex[:8] + "_forged"
    elif key == "alice-cut":
        headers["x-api-key"] = served.keys["alice"][:20]
    elif key == "bob-as-bearer-and-header":
        headers |= {"authorization": f"Bearer {served.keys['bob']}", "x-api-key": served.keys["bob"] + "x"}
    thread_id = {"alice": alices_thread, "new": None, "random": str(uuid.uuid4())}[thread]
    body = {"assistant_id": "agent", **({"context": context} if context is not None else {})}
    body |= (
        {"command": {"resume": {"choice": "export"}}}
        if run == "resume"
        else {"input": {"question": "How many contracts per governing law?"}}
    )
    path = f"/threads/{thread_id}/runs/wait" if thread_id else "/runs/wait"
    response = httpx.post(served.url + path, json=body, headers=headers, timeout=60)
    if key != "bob":
        assert response.status_code == 401
        return
    if thread == "alice":  # 404 as for no thread; 403/422 when the forged scope is refused first
        assert response.status_code in (403, 404, 422) and alices_thread not in response.text
        return
    if not response.is_success:
        assert response.status_code in (400, 403, 404, 409, 422), response.text
        return
    output = response.json()
    text = json.dumps(output)
    assert f"| Delaware | {len(DELAWARE_A)} |" not in text and "team-a" not in text
    assert chunk_scopes(served, output) <= {B}
