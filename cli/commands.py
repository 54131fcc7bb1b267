"""What each `ragent` command does. Engines are opened per command and closed when it ends; imports are made
inside the commands, so `ragent --help` and a command that needs no model start without loading one."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

from chat.local.launcher import local_chat_status, stop_local_chat
from cli.collector import imports_kept_for_the_run
from cli.output import print_json
from cli.stores import opened_stack, opened_store
from core.errors import RagentError
from core.models import SearchFilter
from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE
from graph.queue_report import queue_line, read_queue

SNIPPET_CHARS = 160
BODY_PREVIEW_CHARS = 600
QUOTE_CHARS = 160
"""The most of an extracted value's source sentence `documents show` prints on its line (all of it with --json)."""
TITLE_CHARS = 48


def _titled(doc_id: str, title: str | None) -> str:
    """A document as tables show it: its id with its title beside it, when it has one of its own."""
    return f"{doc_id}  {title[:TITLE_CHARS]!r}" if title and title != doc_id else doc_id


def _parse_value(text: str) -> Any:
    """JSON when it parses (within the nesting bound), else the text as it is."""
    from retrievers.loaders.common import loads_json

    try:
        return loads_json(text)
    except json.JSONDecodeError:
        return text


def ingest(args: argparse.Namespace) -> None:
    from core.scope import dataset_scope
    from retrievers.ingestion.sources import ingest_source

    with opened_stack() as stack:
        report = ingest_source(
            stack,
            path=Path(args.path) if args.path else None,
            bucket=args.bucket,
            dataset=args.dataset,
            annotations=Path(args.annotations) if args.annotations else None,
            limit=args.limit,
            scope=args.scope or dataset_scope(args.dataset),
            force=args.force,
            prune=args.prune,
        )
    print(report.summary())


def search(args: argparse.Namespace) -> None:
    from retrievers.search import Retriever

    filters = SearchFilter(
        scope=args.scope,
        bucket=args.bucket,
        doc_ids=args.doc_id,
        authors=args.author,
        tags=args.tag,
        created_after=args.created_after,
        created_before=args.created_before,
    )
    with opened_stack() as stack:
        if args.bucket:
            stack.store.require_bucket(args.bucket)  # an unknown bucket holds nothing, which is not "no results"
        hits = getattr(Retriever(stack), args.mode)(args.query, filters, args.top_k)
    if args.json:
        print_json([dataclasses.asdict(hit) for hit in hits])
        return
    if not hits:
        print("  (no results)")
    for rank, hit in enumerate(hits, start=1):
        snippet = " ".join(hit.text.split())[:SNIPPET_CHARS]
        print(
            f"  {rank:2d}. [{hit.bucket}] {_titled(hit.doc_id, hit.title)}  score={hit.score:.4f}"
            f"  chars {hit.start}-{hit.end}\n      {snippet}"
        )


def annotations(args: argparse.Namespace) -> None:
    from retrievers.postgres.annotation_filters import Predicate
    from tools.envelope import MatchedTotal

    predicates = [
        Predicate(field=f, op=op, value=None if op == "exists" else _parse_value(v)) for f, op, v in args.where
    ]
    with opened_store() as store:
        store.require_bucket(args.bucket)
        rows = store.find_annotations(args.scope, args.bucket, predicates, limit=args.limit)
    if args.json:
        print_json(rows)
        return
    for row in rows:
        print(f"  {row['annotation_id']}  {row['title'][:TITLE_CHARS]!r}")
        print(f"      {json.dumps(row['row'], ensure_ascii=False)}")
    total = MatchedTotal(rows[0]["total_rows"], rows[0]["more_rows"]) if rows else MatchedTotal(0, False)
    said = f"{total.said} (counting stopped there)" if total.lower_bound else total.said
    more = total.lower_bound or total.count > len(rows)
    print(f"{len(rows)} of {said} row(s)" + ("; a higher --limit shows more" if more else ""))


def stats(args: argparse.Namespace) -> None:
    """The store's counts always; the engines' when this process may open them, else who holds them (and what is
    wrong with a damaged one); and whether the embedded Postgres was running before this command started it (read
    first, since reading the counts starts it)."""
    from core.settings import Settings
    from retrievers.engines.lock import EnginesBusy

    settings = Settings.from_env()
    data_dir = settings.embedded_postgres_dir
    if data_dir is None:
        postgres: dict[str, Any] = {"embedded": False}
    else:
        from retrievers.postgres.embedded.server import embedded_postgres_status

        postgres = embedded_postgres_status(data_dir).as_json()
    try:
        with opened_stack() as stack:
            report = {"store": stack.store.counts(), "keyword": _engine_stats(stack.keyword)}
            report["vectors"] = _engine_stats(stack.vectors)
    except EnginesBusy as busy:
        with opened_store() as store:
            report = {"store": store.counts(), "engines": str(busy)}
    report["postgres"] = postgres
    report["chat"] = local_chat_status(settings.home).as_json()
    report["runs"] = read_queue(settings.home)
    if args.json:
        print_json(report)
        return
    counts = report["store"]
    print(
        f"every scope: documents {counts['documents']}   chunks {counts['chunks']}   "
        f"annotation rows {counts['annotations']}   (`ragent documents list --scope S` for one scope)"
    )
    for name in ("keyword", "vectors"):
        if name in report and "damaged" in report[name]:
            print(f"{name:<8} {report[name]['damaged']}")
        elif name in report:
            engine = report[name]
            size = engine["bytes_on_disk"] / 1e6
            print(f"{name:<8} {engine['engine']}: {engine['chunks']} chunks, {size:.1f} MB on disk")
    if "engines" in report:
        print(f"engines  {report['engines']}")
    print(_postgres_line(postgres, settings.postgres_idle_stop_s))
    print(_chat_line(report["chat"]))
    print(queue_line(report["runs"]))


def _engine_stats(engine: Any) -> dict[str, Any]:
    """An engine's figures, or what is wrong with its damaged index (the other figures are still worth seeing)."""
    from core.errors import IndexUnreadable

    try:
        return engine.stats()
    except IndexUnreadable as damage:
        return {"damaged": str(damage)}


def _chat_line(chat: dict[str, Any]) -> str:
    if not chat["running"]:
        return "chat     the local model is not running (RAGENT_CHAT=local starts it at the first question)"
    return (
        f"chat     local {chat['model']} at {chat['url']} (pid {chat['pid']}); it stops once unused for "
        f"{chat['stops_after_idle_s']:g} s (RAGENT_CHAT_IDLE_STOP_S; `ragent stop` stops it now); log {chat['log']}"
    )


def _postgres_line(postgres: dict[str, Any], idle_stop_s: float) -> str:
    if not postgres["embedded"]:
        return "postgres DATABASE_URL (not managed by ragent)"
    stops = (
        f"it stops once unused for {idle_stop_s:g} s (RAGENT_POSTGRES_IDLE_STOP_S; `ragent stop` stops it now)"
        if idle_stop_s
        else "it stops as its last user exits"
    )
    if not postgres["running"]:
        return f"postgres embedded in {postgres['data_dir']}: was not running; this command started it, and {stops}"
    users = postgres["used_by"]
    idle = (
        f", idle: stops in {max(0, round(postgres['stops_at'] - time.time()))} s unless used"
        if postgres["stops_at"]
        else ""
    )
    return (
        f"postgres embedded in {postgres['data_dir']}: running (pid {postgres['pid']}), "
        + (f"used by {', '.join(users)}; {stops}" if users else f"used by no other process{idle}; {stops}")
        + _restarted_clause(postgres.get("restarted"))
    )


def _restarted_clause(restarted: dict[str, Any] | None) -> str:
    """Said while the Postgres that a watching process (the server) started again after its postmaster died runs."""
    if not restarted:
        return ""
    times = "" if restarted["count"] == 1 else f" ({restarted['count']} restarts by that process)"
    return (
        f"; restarted by {restarted['by']} at {time.strftime('%H:%M:%S', time.localtime(restarted['at']))} after "
        f"its postmaster (pid {restarted['died']}) died{times}"
    )


def stop(args: argparse.Namespace) -> None:
    from core.settings import Settings
    from retrievers.postgres.embedded.server import stop_embedded_postgres

    settings = Settings.from_env()
    chat = stop_local_chat(settings.home)
    if chat.running:
        print(f"stopped the local chat model {chat.model} (pid {chat.pid})")
    data_dir = settings.embedded_postgres_dir
    if data_dir is None:
        raise RagentError("DATABASE_URL names a Postgres ragent does not manage; stop it the way it was started")
    status = stop_embedded_postgres(data_dir)
    print(
        f"stopped the embedded Postgres in {data_dir} (pid {status.pid})"
        if status.running
        else f"the embedded Postgres in {data_dir} is not running"
    )


def documents_list(args: argparse.Namespace) -> None:
    with opened_store() as store:
        if args.bucket:
            store.require_bucket(args.bucket)
        rows, total = store.list_documents(
            args.scope, args.bucket, matching=args.matching, limit=args.limit, offset=args.offset
        )
    if args.json:
        print_json(
            {"scope": args.scope, "bucket": args.bucket, "total": total, "offset": args.offset, "documents": rows}
        )
        return
    for d in rows:
        print(
            f"  {d['bucket']:<12} {_titled(d['doc_id'], d['title'])}\n"
            f"      {d['chunks']} chunks, {d['annotation_rows']} annotation rows, {d['chars']} chars, "
            f"version {d['version']}, ingested {d['ingested_at']:%Y-%m-%d %H:%M}"
        )
    where = f"scope {args.scope!r}" + (f", bucket {args.bucket!r}" if args.bucket else "")
    shown = f"{args.offset + 1}-{args.offset + len(rows)}" if rows else "none"
    more = f"; --offset {args.offset + len(rows)} for the next page" if args.offset + len(rows) < total else ""
    print(f"{shown} of {total} document(s) in {where}{more}")


def documents_show(args: argparse.Namespace) -> None:
    from retrievers.ingestion.documents import show_document

    with opened_store() as store:
        record = show_document(store, args.scope, args.doc_id)
    if args.json:
        print_json(record)
        return
    for name in ("doc_id", "bucket", "title", "author", "tags", "created_at", "source", "summary", "version"):
        if record.get(name) not in (None, "", []):
            print(f"  {name:<12} {record[name]}")
    print(f"  {'ingested':<12} {record['ingested_at']:%Y-%m-%d %H:%M:%S}   content hash {record['content_hash'][:16]}")
    print(f"  {'chunks':<12} {record['chunks']}   body {len(record['body'])} chars")
    print(f"  annotation rows ({len(record['annotations'])}):")
    for row in record["annotations"]:
        print(f"    {row['annotation_id']}  {json.dumps(row['row'], ensure_ascii=False)}")
        for field, source in row.get("sources", {}).items():
            right = f" (right {source['confidence']:.0%} of the time)" if source.get("confidence") is not None else ""
            print(f"      {field} found by {source['found_by']}{right}: {_quoted(record['body'], source)}")
    body = " ".join(record["body"].split())
    cut = len(body) > BODY_PREVIEW_CHARS
    print(f"  text: {body[:BODY_PREVIEW_CHARS]}" + (" ... (all of it with --json)" if cut else ""))


def _quoted(body: str, source: dict) -> str:
    """The words an extracted value was read from, on one line ("not found in the text" for a yes/no read from an
    absence)."""
    if source["start"] == source["end"]:
        return "not found in the text"
    words = " ".join(body[source["start"] : source["end"]].split())
    return json.dumps(words if len(words) <= QUOTE_CHARS else words[: QUOTE_CHARS - 3] + "...", ensure_ascii=False)


def documents_delete(args: argparse.Namespace) -> None:
    from retrievers.ingestion.documents import delete_documents

    if args.bucket and not args.doc_ids and not args.yes:
        question = f"delete every document of bucket {args.bucket!r} in scope {args.scope!r}? [y/N] "
        if not sys.stdin.isatty():
            raise RagentError(f"deleting a whole bucket asks first; add --yes to delete bucket {args.bucket!r}")
        if input(question).strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return
    with opened_stack() as stack:
        report = delete_documents(stack, args.scope, args.doc_ids, bucket=args.bucket)
    if args.json:
        print_json(report.as_json())
    else:
        print(report.summary())
    if report.not_found:
        raise SystemExit(1)


def check(args: argparse.Namespace) -> None:
    """Exit status 1 when the stores disagree and were not repaired, or when the server's run queue is stuck, so
    that scripts and cron can alert on it. The queue is read first: a running server holds the engines."""
    from core.settings import Settings
    from retrievers.ingestion.consistency import check as check_stores

    queue = read_queue(Settings.from_env().home)
    print(queue_line(queue))
    with opened_stack() as stack:
        report = check_stores(stack, repair=args.repair, scope=args.scope)
    print(report.table())
    if not report.consistent or queue.get("stuck"):
        raise SystemExit(1)


def demo(args: argparse.Namespace) -> None:
    from cli.ask import agent_session, settle
    from cli.printing import option_reply
    from graph.context import AgentContext
    from graph.demo_questions import DEMO_QUESTIONS
    from retrievers.ingestion.sources import ingest_source

    def first_option(payload: dict) -> dict:
        print(f"(the demo answers: {payload['options'][0]['label']})")
        return option_reply(payload["options"][0])

    with agent_session() as (agent, services):
        print(f"== ingesting the sample corpus into scope {SAMPLE_SCOPE!r} (unchanged documents are skipped)")
        print(ingest_source(services.stack, dataset="sample", scope=SAMPLE_SCOPE).summary())
        for number, (question, settings) in enumerate(DEMO_QUESTIONS, start=1):
            print(f"\n== question {number}: {question}")
            thread, context = f"demo-{uuid.uuid4().hex[:8]}", AgentContext(scope=SAMPLE_SCOPE, **settings)
            agent.invoke({"question": question}, {"configurable": {"thread_id": thread}}, context=context)
            settle(agent, thread, context, explain=False, ask_human=first_option)


def _agent_context(args: argparse.Namespace):
    from graph.context import AgentContext

    scope = args.scope or DEFAULT_SCOPE  # `resume` without --scope: the thread's own, set there
    return AgentContext(scope=scope, max_tool_calls=args.max_tool_calls, max_hits=args.max_hits, planner=args.planner)


def _start_postgres_early() -> None:
    """Start the embedded Postgres while the agent's modules are imported (`start_in_background`): a question from
    the shell waits for the slower of the two instead of both."""
    from core.settings import Settings

    settings = Settings.from_env()
    if data_dir := settings.embedded_postgres_dir:
        from retrievers.postgres.embedded.server import start_in_background

        start_in_background(data_dir, idle_stop_s=settings.postgres_idle_stop_s)


def ask(args: argparse.Namespace) -> None:
    if args.server:
        from cli import remote

        remote.ask(
            args.server,
            remote.api_key(args.api_key),
            args.question,
            thread=args.thread,
            explain=args.explain,
            context=_agent_context(args),
            scope=args.scope,
            as_json=args.json,
            agent_name=args.agent,
        )
        return
    context = _agent_context(args)
    _start_postgres_early()
    with imports_kept_for_the_run():
        from cli.ask import ask as ask_agent

    ask_agent(
        args.question,
        thread=args.thread,
        explain=args.explain,
        context=context,
        as_json=args.json,
        agent_name=args.agent,
    )


def resume(args: argparse.Namespace) -> None:
    from retrievers.loaders.common import loads_json

    try:
        answer = loads_json(args.answer)
    except json.JSONDecodeError as exc:
        raise RagentError(
            f"--answer is neither an option's number nor usable JSON ({exc.msg}); "
            """e.g. --answer 2 or --answer '{"choice": "stop"}'"""
        ) from None
    context = _agent_context(args)
    if args.server:
        from cli import remote

        resume_thread = partial(remote.resume, args.server, remote.api_key(args.api_key))
    else:
        _start_postgres_early()
        with imports_kept_for_the_run():
            from cli.ask import resume as resume_thread
    resume_thread(args.thread, answer, asked_scope=args.scope, explain=args.explain, context=context, as_json=args.json)


def evaluate(args: argparse.Namespace) -> None:
    from evals.question_eval import markdown

    if bool(args.questions) == bool(args.beir):
        raise RagentError("give a question set (`--questions FILE.jsonl`) or a BEIR folder (`--beir DIR`)")
    if args.questions:
        from evals.question_eval import run_question_file
        from graph.context import AgentContext

        summary = run_question_file(
            Path(args.questions),
            home=Path(args.home) if args.home else None,
            out=Path(args.out),
            limit=args.limit,
            context=AgentContext(planner=args.planner),
            agent=args.agent,
        )
    else:
        from evals.beir_eval import run_beir

        summary = run_beir(Path(args.beir), split=args.split, out=Path(args.out), limit=args.limit)
    print(markdown(summary))
    print(f"records and summary written to {args.out}")


def adapt(args: argparse.Namespace) -> None:
    from retrievers.engines.embedders.adaptation import adapt as fine_tune

    folder = Path(args.beir)
    name = args.name or folder.resolve().name.lower()
    made = fine_tune(
        folder,
        name=name,
        split=args.split,
        epochs=args.epochs,
        learning_rate=args.learning_rate,
        hard_negatives=args.hard_negatives,
    )
    print(
        f"{made['model_name']}: {made['trained_on']['pairs']} pairs, {made['train_seconds']} s, saved in "
        f"{made['folder']}\nuse it in a data folder of its own: "
        f"RAGENT_HOME=DIR RAGENT_EMBEDDINGS=adapted:{name} ragent ingest ..."
    )


def bench(args: argparse.Namespace) -> None:
    from evals.bench import run

    print(
        run(
            Path(args.out),
            sections=args.only,
            home=Path(args.home) if args.home else None,
            scale_sizes=args.scale_sizes,
        )
    )
    print(f"\nreport written to {Path(args.out) / 'bench.md'}")


def serve(args: argparse.Namespace) -> None:
    from cli.serve import serve as run_server

    raise SystemExit(
        run_server(host=args.host, port=args.port, with_sample=args.sample, no_auth=args.no_auth, verbose=args.verbose)
    )


def _key_ring():
    from core.settings import Settings
    from graph.access.keys import KeyRing

    return KeyRing(Settings.from_env().home)


def keys_add(args: argparse.Namespace) -> None:
    key, plain = _key_ring().add(args.identity, args.scopes, args.ingest)
    print(f"key {key.id} for {key.identity}: scopes {', '.join(key.scopes)}{'; may ingest' if key.may_ingest else ''}")
    print(plain)
    print("(shown once: only its hash is kept; send it as the x-api-key header)")


def keys_list(args: argparse.Namespace) -> None:
    keys = _key_ring().keys()
    if args.json:
        print(json.dumps([k.model_dump(exclude={"digest"}) for k in keys], indent=2))
        return
    for k in keys:
        ingest = "ingest" if k.may_ingest else "-"
        print(f"{k.id}  {k.identity:<20} {','.join(k.scopes):<30} {ingest:<7} {k.created_at}")
    if not keys:
        print("no keys: `ragent serve` makes a local one, `ragent keys add` others")


def keys_revoke(args: argparse.Namespace) -> None:
    for k in _key_ring().revoke(args.key):
        print(f"revoked {k.id} ({k.identity})")
