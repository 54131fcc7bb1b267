"""The `ragent` command line: ingestion, the three kinds of search, annotations, catalogs and the demo.

Every error a user can cause or fix (a bad bucket, an unreadable annotations file, an unreachable backend)
is printed as one line that says what to do, with exit status 2; nothing is half-written.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any, Sequence

import psycopg
from pydantic import ValidationError

from retrievers.annotation_filters import Predicate
from retrievers.errors import RagentError
from retrievers.models import DEFAULT_SCOPE, SCOPE_RE, SearchFilter

SNIPPET_CHARS = 160
BENCH_SECTIONS = ("langchain", "naive", "multihop", "scale")

# What `ragent demo` asks on the sample corpus: every route, and one question that needs a clarification
# (the demo answers it with the first option offered, as a user at the terminal might).
DEMO_QUESTIONS = [
    ("Which contracts have a notice period under 60 days?", {}),
    ("How many contracts per governing law?", {}),
    ("What is the total amount of invoices in EUR?", {}),
    ("Summarize the limitation of liability in contracts governed by Delaware law", {}),
    ("How do I get onto the VPN when working from home?", {}),
    ("Which contracts have a notice period of at least 30 days?", {"max_hits": 3}),
]

def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _print_hits(hits) -> None:
    if not hits:
        print("  (no results)")
    for rank, hit in enumerate(hits, start=1):
        snippet = " ".join(hit.text.split())[:SNIPPET_CHARS]
        print(f"  {rank:2d}. [{hit.bucket}] {hit.doc_id}  score={hit.score:.4f}  chars {hit.start}-{hit.end}\n      {snippet}")


def cmd_ingest(args: argparse.Namespace) -> None:
    from retrievers.sources import ingest_source
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        report = ingest_source(stack, path=Path(args.path) if args.path else None, bucket=args.bucket, dataset=args.dataset,
                               annotations=Path(args.annotations) if args.annotations else None, limit=args.limit,
                               scope=args.scope, force=args.force)
    finally:
        stack.close()
    print(report.summary())


def scope_name(text: str) -> str:
    """A scope as argparse type: checked here because the documents get it after their own validation."""
    if not SCOPE_RE.match(text):
        raise argparse.ArgumentTypeError(f"scope {text!r} is not valid (letters, digits, '_.:-', up to 64 characters)")
    return text


def cmd_search(args: argparse.Namespace) -> None:
    from retrievers.search import Retriever
    from retrievers.stack import open_stack

    filters = SearchFilter(
        scope=args.scope, bucket=args.bucket, doc_ids=args.doc_id, authors=args.author, tags=args.tag,
        created_after=args.created_after, created_before=args.created_before,
    )
    stack = open_stack()
    try:
        hits = getattr(Retriever(stack), args.mode)(args.query, filters, args.top_k)
    finally:
        stack.close()
    _print_hits(hits)


def cmd_annotations(args: argparse.Namespace) -> None:
    from retrievers.stack import open_stack

    predicates = [Predicate(field=f, op=op, value=None if op == "exists" else _parse_value(v)) for f, op, v in args.where]
    stack = open_stack()
    try:
        stack.store.require_bucket(args.bucket)
        rows = stack.store.find_annotations(args.scope, args.bucket, predicates, limit=args.limit)
    finally:
        stack.close()
    for row in rows:
        print(f"  {row['annotation_id']}  {json.dumps(row['row'], ensure_ascii=False)[:200]}")
    print(f"{len(rows)} row(s)")


def cmd_catalog(args: argparse.Namespace) -> None:
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        stack.store.require_bucket(args.bucket)
        catalog = stack.store.field_catalog(args.scope, args.bucket)
    finally:
        stack.close()
    for f in catalog:
        shown = f.values if f.values is not None else f.examples
        span = f"  range {f.min} .. {f.max}" if f.min is not None else ""
        print(f"  {f.kind}.{f.name}: {f.type}{'[]' if f.multi else ''}  in {f.doc_count} docs{span}  e.g. {shown[:8]}")


def cmd_buckets(args: argparse.Namespace) -> None:
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        if args.action == "add":
            stack.store.add_bucket(args.name, args.description)
        for name, description in stack.store.buckets().items():
            print(f"  {name}: {description}")
    finally:
        stack.close()


def cmd_stats(args: argparse.Namespace) -> None:
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        print(json.dumps({"store": stack.store.counts(), "keyword": stack.keyword.stats(), "vectors": stack.vectors.stats()}, indent=2))
    finally:
        stack.close()


def cmd_check(args: argparse.Namespace) -> None:
    """Exit status 1 when the stores disagree and were not repaired, so that scripts and cron can alert on it."""
    from retrievers.consistency import check
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        report = check(stack, repair=args.repair, scope=args.scope)
    finally:
        stack.close()
    print(report.table())
    if not report.consistent:
        raise SystemExit(1)


def cmd_demo(args: argparse.Namespace) -> None:
    from graph import resources
    from graph.ask import agent_session, settle
    from graph.context import AgentContext
    from retrievers.sources import ingest_source

    def first_option(payload: dict) -> dict:
        print(f"(the demo answers: {payload['options'][0]['label']})")
        return {k: v for k, v in payload["options"][0].items() if k != "label"}

    with agent_session() as agent:
        print("== ingesting the sample corpus (unchanged documents are skipped)")
        print(ingest_source(resources.stack(), dataset="sample").summary())
        for number, (question, settings) in enumerate(DEMO_QUESTIONS, start=1):
            print(f"\n== question {number}: {question}")
            thread, context = f"demo-{uuid.uuid4().hex[:8]}", AgentContext(**settings)
            agent.invoke({"question": question}, {"configurable": {"thread_id": thread}}, context=context)
            settle(agent, thread, context, explain=False, ask_human=first_option)


def cmd_ask(args: argparse.Namespace) -> None:
    from graph.ask import ask
    from graph.context import AgentContext

    ask(args.question, thread=args.thread, explain=args.explain,
        context=AgentContext(scope=args.scope, max_tool_calls=args.max_tool_calls, max_hits=args.max_hits))


def cmd_resume(args: argparse.Namespace) -> None:
    from graph.ask import resume
    from graph.context import AgentContext

    try:
        answer = json.loads(args.answer)
    except json.JSONDecodeError as exc:
        raise RagentError(f"--answer is not JSON ({exc.msg}); e.g. --answer '{{\"choice\": \"stop\"}}'") from None
    resume(args.thread, answer, explain=args.explain,
           context=AgentContext(scope=args.scope, max_tool_calls=args.max_tool_calls, max_hits=args.max_hits))


def cmd_eval(args: argparse.Namespace) -> None:
    if bool(args.questions) == bool(args.beir):
        raise RagentError("give a question set (`--questions FILE.jsonl`) or a BEIR folder (`--beir DIR`)")
    if args.questions:
        from evals.question_eval import markdown, run_question_file

        summary = run_question_file(Path(args.questions), home=Path(args.home) if args.home else None, out=Path(args.out), limit=args.limit)
    else:
        from evals.beir_eval import run_beir
        from evals.question_eval import markdown

        summary = run_beir(Path(args.beir), split=args.split, out=Path(args.out), limit=args.limit)
    print(markdown(summary))
    print(f"records and summary written to {args.out}")


def cmd_bench(args: argparse.Namespace) -> None:
    from evals.bench import run

    print(run(Path(args.out), sections=args.only or list(BENCH_SECTIONS), home=Path(args.home) if args.home else None, scale_sizes=args.scale_sizes))
    print(f"\nreport written to {Path(args.out) / 'bench.md'}")


def cmd_serve(args: argparse.Namespace) -> None:
    from graph.serve import serve

    raise SystemExit(serve(host=args.host, port=args.port, with_sample=not args.no_sample))


def _agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", type=scope_name, default=DEFAULT_SCOPE)
    parser.add_argument("--explain", action="store_true", help="print the decomposition, decisions and tool calls")
    parser.add_argument("--max-tool-calls", type=int, default=8, help="tool calls allowed in the run (capped at 24)")
    parser.add_argument("--max-hits", type=int, default=50, help="more matching documents than this asks you to narrow")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragent", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="ingest the sample corpus and answer questions that take every route")
    demo.set_defaults(run=cmd_demo)

    ingest = sub.add_parser("ingest", help="ingest a folder (.txt .md .json .jsonl .pdf) or a dataset from ../shared/data")
    ingest.add_argument("path", nargs="?", help="folder to ingest (or a dataset folder with --dataset)")
    ingest.add_argument("--bucket", help="bucket of the folder's documents")
    ingest.add_argument("--annotations", help="JSONL file of annotation rows: {doc_id, kind, row, raw}")
    ingest.add_argument("--dataset", choices=["cuad", "kleister_nda", "sroie", "invoices", "scifact", "hotpotqa", "sample"])
    ingest.add_argument("--limit", type=int, help="ingest at most this many documents")
    ingest.add_argument("--scope", type=scope_name, default=DEFAULT_SCOPE, help="tenant or workspace the documents belong to")
    ingest.add_argument("--force", action="store_true", help="rewrite unchanged documents too (rebuilds a lost or corrupted index)")
    ingest.set_defaults(run=cmd_ingest)

    search = sub.add_parser("search", help="keyword, semantic or fused search over chunks")
    search.add_argument("mode", choices=["keyword", "semantic", "fused"])
    search.add_argument("query")
    search.add_argument("--bucket")
    search.add_argument("--scope", type=scope_name, default=DEFAULT_SCOPE)
    search.add_argument("--top-k", type=int, default=10)
    search.add_argument("--doc-id", action="append", help="restrict to these documents (repeatable)")
    search.add_argument("--author", action="append", help="any of these authors (repeatable)")
    search.add_argument("--tag", action="append", help="all of these tags (repeatable)")
    search.add_argument("--created-after", help="YYYY-MM-DD")
    search.add_argument("--created-before", help="YYYY-MM-DD")
    search.set_defaults(run=cmd_search)

    annotations = sub.add_parser("annotations", help="annotation rows of a bucket matching predicates")
    annotations.add_argument("bucket")
    annotations.add_argument("--where", nargs=3, action="append", default=[], metavar=("FIELD", "OP", "VALUE"),
                             help="e.g. --where notice_period_days '<' 60 (VALUE is JSON when it parses, else text)")
    annotations.add_argument("--scope", type=scope_name, default=DEFAULT_SCOPE)
    annotations.add_argument("--limit", type=int, default=50)
    annotations.set_defaults(run=cmd_annotations)

    catalog = sub.add_parser("catalog", help="the annotation fields of a bucket: types, counts, values")
    catalog.add_argument("bucket")
    catalog.add_argument("--scope", type=scope_name, default=DEFAULT_SCOPE)
    catalog.set_defaults(run=cmd_catalog)

    buckets = sub.add_parser("buckets", help="list buckets, or add one")
    buckets.add_argument("action", nargs="?", choices=["list", "add"], default="list")
    buckets.add_argument("name", nargs="?")
    buckets.add_argument("--description", default="")
    buckets.set_defaults(run=cmd_buckets)

    ask_parser = sub.add_parser("ask", help="answer a question with citations; asks you when it cannot go on")
    ask_parser.add_argument("question")
    ask_parser.add_argument("--thread", help="thread id (a new one by default); the run is checkpointed under it")
    _agent_options(ask_parser)
    ask_parser.set_defaults(run=cmd_ask)

    resume_parser = sub.add_parser("resume", help="answer a thread's clarification and let it finish")
    resume_parser.add_argument("thread")
    resume_parser.add_argument("--answer", required=True, help='JSON, e.g. {"choice": "export"} or {"choice": "narrow", "field": "governing_law", "value": "Delaware"}')
    _agent_options(resume_parser)
    resume_parser.set_defaults(run=cmd_resume)

    evaluation = sub.add_parser("eval", help="score the agent on a question set, or the search modes and the agent on a BEIR set")
    evaluation.add_argument("--questions", help="JSONL question set (evals/questions/*.jsonl)")
    evaluation.add_argument("--beir", help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv")
    evaluation.add_argument("--split", default="test", help="qrels split of the BEIR folder")
    evaluation.add_argument("--home", help="data folder already holding the corpus (default: one per dataset combination under $RAGENT_HOME/eval)")
    evaluation.add_argument("--limit", type=int, help="only the first N questions")
    evaluation.add_argument("--out", default="eval-out", help="folder for the JSON records and the Markdown summary")
    evaluation.set_defaults(run=cmd_eval)

    bench = sub.add_parser("bench", help="the benchmarks side by side: vs LangChain, vs naive RAG, multi-hop, cost at scale")
    bench.add_argument("--only", nargs="+", choices=BENCH_SECTIONS, help="run only these sections")
    bench.add_argument("--home", help="data folder holding every shared dataset (default: the eval folder for them, ingested on first use)")
    bench.add_argument("--scale-sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000], help="chunk counts of the scale corpora")
    bench.add_argument("--out", default="bench-out")
    bench.set_defaults(run=cmd_bench)

    serve = sub.add_parser("serve", help="the LangGraph server API and Studio on the embedded engines, with the sample corpus")
    serve.add_argument("--port", type=int, help="port to listen on (a free one by default)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--no-sample", action="store_true", help="do not ingest the sample corpus first")
    serve.set_defaults(run=cmd_serve)

    check_parser = sub.add_parser("check", help="do Postgres, the keyword index and the vector index agree? --repair makes them")
    check_parser.add_argument("--repair", action="store_true", help="re-index chunks an engine lacks, delete what Postgres does not know")
    check_parser.add_argument("--scope", type=scope_name, help="check one tenant or workspace (default: every scope)")
    check_parser.set_defaults(run=cmd_check)

    stats = sub.add_parser("stats", help="counts and sizes of every store")
    stats.set_defaults(run=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except RagentError as error:
        print(f"ragent: error: {error}", file=sys.stderr)
        return 2
    except ValidationError as error:
        first = error.errors()[0]
        print(f"ragent: error: {'.'.join(map(str, first['loc']))}: {first['msg']}", file=sys.stderr)
        return 2
    except psycopg.OperationalError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"ragent: error: Postgres failed during the run ({first_line}); committed documents are intact, run the command again", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ragent: interrupted; documents already committed stay, the rest can be ingested again", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
