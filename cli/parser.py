"""The `ragent` command line's arguments, one function per command; every default a user can see is set here
(the agent's from `AgentContext`, so the CLI and the server agree)."""

from __future__ import annotations

import argparse
import os
from functools import partial
from pathlib import Path
from typing import get_args

from cli import catalog_commands, commands
from cli.environment import API_KEY_ENV, SERVER_ENV
from core.errors import InvalidInput
from core.models import FIELD_ROLES, FOUND_BY, FieldType
from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE, checked_scope
from graph.agents import AGENTS, DEFAULT_AGENT
from graph.context import AgentContext
from retrievers.engines.embedders.adaptation import EPOCHS as ADAPT_EPOCHS
from retrievers.engines.embedders.adaptation import HARD_NEGATIVES as ADAPT_HARD_NEGATIVES
from retrievers.engines.embedders.adaptation import LEARNING_RATE as ADAPT_LEARNING_RATE
from retrievers.loaders import DATASETS

SEARCH_TOP_K, SEARCH_TOP_K_MAX = 10, 1000
ANNOTATION_ROWS, ANNOTATION_ROWS_MAX = 50, 10_000
DOCUMENTS_LISTED, DOCUMENTS_LISTED_MAX = 50, 100_000
BENCH_SECTIONS = (
    "fusion",
    "langchain",
    "naive",
    "multihop",
    "answers",
    "verifier",
    "ingest",
    "scale",
    "annotations_scale",
    "vectors_scale",
    "server",
    "cold",
    "llm",
    "extraction",
)
BENCH_SCALE_SIZES = [10_000, 100_000, 1_000_000]
EVAL_OUT, BENCH_OUT = "eval-out", "bench-out"

AGENT_DEFAULTS = AgentContext()
PLANNER_HELP = (
    "auto: the rules, and the chat model (RAGENT_CHAT) where they cannot read a question whole; llm: the model in "
    "every mode, checked by code; rules: no model"
)


def scope_name(text: str) -> str:
    """A scope as argparse type: checked here because the documents get it after their own validation."""
    try:
        return checked_scope(text)
    except InvalidInput as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_int(text: str, maximum: int | None = None, minimum: int = 1) -> int:
    """A count (a limit, top-k, a size) as argparse type, from 1 (or `minimum`) to `maximum`: zero or less, or more
    than an engine takes (Postgres' LIMIT is a bigint, Tantivy allocates room for every hit asked for), would end in
    a traceback instead of a message naming the option."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {number}")
    if maximum is not None and number > maximum:
        raise argparse.ArgumentTypeError(f"must be {maximum} or less, got {number}")
    return number


def learning_rate(text: str) -> float:
    """A fine-tuning learning rate as argparse type: a number above 0 and at most 1e-3 (more ruins the weights)."""
    try:
        rate = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < rate <= 1e-3:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 0.001, got {text}")
    return rate


def word_list(text: str) -> list[str]:
    """Comma-separated words or phrases ("bill, invoice copy") as argparse type."""
    return [word.strip() for word in text.split(",") if word.strip()]


def _scope(parser: argparse.ArgumentParser, help: str | None = None, default: str | None = DEFAULT_SCOPE) -> None:
    parser.add_argument(
        "--scope", type=scope_name, default=default, help=help or "tenant or workspace (default: %(default)s)"
    )


def _shown(parser: argparse.ArgumentParser, flag: str, what: str, default: int, maximum: int) -> None:
    """How many results a read command shows, from 1 to `maximum`."""
    parser.add_argument(
        flag,
        type=partial(positive_int, maximum=maximum),
        default=default,
        help=f"{what} to show, up to {maximum} (default: %(default)s)",
    )


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the full records as JSON instead of a table")


def _agent_options(parser: argparse.ArgumentParser, scope_help: str | None = None, scope: str | None = DEFAULT_SCOPE):
    _scope(parser, scope_help, scope)
    _json(parser)
    parser.add_argument("--explain", action="store_true", help="print the decomposition, decisions and tool calls")
    parser.add_argument(
        "--max-tool-calls",
        type=int,
        default=AGENT_DEFAULTS.max_tool_calls,
        help="tool calls allowed in the run (capped at 24)",
    )
    parser.add_argument(
        "--max-hits",
        type=int,
        default=AGENT_DEFAULTS.max_hits,
        help="more matching documents than this asks you to narrow",
    )
    parser.add_argument(
        "--planner",
        choices=("auto", "rules", "llm"),
        default=AGENT_DEFAULTS.planner,
        help=PLANNER_HELP,
    )


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get(SERVER_ENV) or None,
        metavar="URL",
        help=f"run on this ragent server instead of opening the engines here (default: ${SERVER_ENV})",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"the server's API key (default: ${API_KEY_ENV}, else the local key `ragent serve` wrote in the data "
        "folder)",
    )


def _ingest(sub) -> None:
    p = sub.add_parser("ingest", help="ingest a folder (.txt .md .json .jsonl .pdf) or a dataset from ../shared/data")
    p.add_argument("path", nargs="?", help="folder to ingest (or a dataset folder with --dataset)")
    p.add_argument("--bucket", help="bucket of the folder's documents")
    p.add_argument("--annotations", help="JSONL file of annotation rows: {doc_id, kind, row, raw}")
    p.add_argument("--dataset", choices=list(DATASETS))
    p.add_argument("--limit", type=positive_int, help="ingest at most this many documents")
    _scope(p, "tenant or workspace the documents belong to (default: 'default'; 'sample' for --dataset sample)", None)
    p.add_argument(
        "--force", action="store_true", help="rewrite unchanged documents too (rebuilds a lost or corrupted index)"
    )
    p.add_argument(
        "--prune", action="store_true", help="delete the documents ingested from files no longer in the folder"
    )
    p.set_defaults(run=commands.ingest)


def _search(sub) -> None:
    p = sub.add_parser("search", help="keyword, semantic or fused search over chunks")
    p.add_argument("mode", choices=["keyword", "semantic", "fused"])
    p.add_argument("query")
    p.add_argument("--bucket")
    _scope(p)
    _shown(p, "--top-k", "hits", SEARCH_TOP_K, SEARCH_TOP_K_MAX)
    p.add_argument("--doc-id", action="append", help="restrict to these documents (repeatable)")
    p.add_argument("--author", action="append", help="any of these authors (repeatable)")
    p.add_argument("--tag", action="append", help="all of these tags (repeatable)")
    p.add_argument("--created-after", help="YYYY-MM-DD")
    p.add_argument("--created-before", help="YYYY-MM-DD")
    _json(p)
    p.set_defaults(run=commands.search)


def _annotations(sub) -> None:
    p = sub.add_parser("annotations", help="annotation rows of a bucket matching predicates")
    p.add_argument("bucket")
    p.add_argument(
        "--where",
        nargs=3,
        action="append",
        default=[],
        metavar=("FIELD", "OP", "VALUE"),
        help="e.g. --where notice_period_days '<' 60 (VALUE is JSON when it parses, else text)",
    )
    _scope(p)
    _shown(p, "--limit", "rows", ANNOTATION_ROWS, ANNOTATION_ROWS_MAX)
    _json(p)
    p.set_defaults(run=commands.annotations)


def _catalog_and_buckets(sub) -> None:
    p = sub.add_parser(
        "catalog",
        help="the annotation fields of a bucket (types, counts, values, aliases, roles); `describe` adds your words",
        usage="%(prog)s BUCKET [--scope SCOPE]\n"
        "       %(prog)s describe BUCKET [FIELD] [--aliases A,B] [--remove-aliases A,B] [--description TEXT]\n"
        "                        [--role ROLE] [--unit UNIT] [--unit-field FIELD]\n"
        "       %(prog)s describe BUCKET FIELD --type TYPE [--multi] [--found-by HOW] [--pattern REGEX]",
        description="Show a bucket's catalog, or describe a bucket or field in your words: the planner reads the "
        "aliases, role and unit with the loader's, at once and in every scope, and a re-ingest keeps them.",
    )
    p.add_argument("target", nargs="+", metavar="BUCKET", help="a bucket to show, or: describe BUCKET [FIELD]")
    _scope(p, "tenant or workspace whose documents are counted (default: %(default)s)")
    words = p.add_argument_group("describe BUCKET [FIELD]")
    words.add_argument("--aliases", type=word_list, default=[], help='words or phrases to add, e.g. "bill,tab"')
    words.add_argument("--remove-aliases", type=word_list, default=[], help="words or phrases to take back")
    words.add_argument("--description", help="what the bucket or field holds ('' gives the loader's back)")
    words.add_argument(
        "--role",
        choices=FIELD_ROLES,
        help="what the field's values are: name (of companies or people), identifier (matched exactly), money, "
        "currency (ISO codes) or text ('' gives the loader's back)",
    )
    words.add_argument("--unit", help="the field's fixed unit: days, percent, a currency code")
    words.add_argument("--unit-field", help="the field holding this field's unit, e.g. currency")
    declared = p.add_argument_group("describe BUCKET FIELD: declare a field, or how it is found")
    declared.add_argument("--type", choices=get_args(FieldType), help="declare FIELD with values of this type")
    declared.add_argument("--multi", action="store_true", help="a document may have several values")
    declared.add_argument(
        "--found-by",
        choices=FOUND_BY,
        help="how documents without a label give the field: text (a line starting with its name or an alias; the "
        "default), pattern (--pattern), model (the chat model, by `ragent extract --model`), rule (the shipped "
        "rule), labels (annotations files only)",
    )
    declared.add_argument(
        "--pattern", help="a regular expression whose group 'value' is the value (--found-by pattern)"
    )
    _json(p)
    p.set_defaults(run=catalog_commands.catalog)

    p = sub.add_parser("buckets", help="list buckets, or add one")
    p.add_argument("action", nargs="?", choices=["list", "add"], default="list")
    p.add_argument("name", nargs="?")
    p.add_argument("--description", default="")
    p.add_argument("--aliases", type=word_list, default=[], help='words users say for the bucket, e.g. "recipe,dish"')
    p.add_argument(
        "--schema",
        type=Path,
        help="a TOML or JSON file declaring the bucket's fields ([fields.NAME] type, unit, aliases, found_by ...)",
    )
    p.set_defaults(run=catalog_commands.buckets)

    p = sub.add_parser(
        "extract",
        help="find the declared fields in the text of documents already stored (after declaring or changing fields;"
        " --model for the fields the chat model finds)",
    )
    p.add_argument(
        "--bucket",
        action="append",
        help="only this bucket (repeatable; default: every bucket with fields found in the text)",
    )
    p.add_argument(
        "--fields",
        type=word_list,
        action="extend",
        help="only these fields of the --bucket, e.g. cuisine,prep_minutes (repeatable; the others stay as they are)",
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="also the fields found by the chat model (RAGENT_CHAT), and the model fills what the rules left empty",
    )
    _scope(p)
    p.set_defaults(run=catalog_commands.extract)


def _agent(sub) -> None:
    sub.add_parser("demo", help="ingest the sample corpus and answer questions that take every route").set_defaults(
        run=commands.demo
    )

    p = sub.add_parser("ask", help="answer a question with citations; asks you when it cannot go on")
    p.add_argument("question")
    p.add_argument("--thread", help="thread id (a new one by default); the run is checkpointed under it")
    _agent_choice(p)
    _agent_options(p, "tenant or workspace (default: 'default'; with --server, the one the server gives the key)", None)
    _server_options(p)
    p.set_defaults(run=commands.ask)

    p = sub.add_parser("resume", help="answer a thread's clarification and let it finish")
    p.add_argument("thread")
    p.add_argument(
        "--answer",
        required=True,
        help='the number of an option the clarification lists, or JSON, e.g. {"choice": "export"} or '
        '{"choice": "narrow", "field": "governing_law", "value": "Delaware"}',
    )
    _agent_options(p, "the thread's own scope (the default); another is refused", scope=None)
    _server_options(p)
    p.set_defaults(run=commands.resume)


def _agent_choice(p) -> None:
    p.add_argument(
        "--agent",
        choices=list(AGENTS),
        default=DEFAULT_AGENT,
        help="orchestrator: a planner per step (the rules, or a chat model checked at each); single-loop: one chat "
        "model calling the tools until it has enough (needs a chat model); default: %(default)s",
    )


def _evals(sub) -> None:
    p = sub.add_parser(
        "eval", help="score the agent on a question set, or the search modes and the agent on a BEIR set"
    )
    p.add_argument("--questions", help="JSONL question set (evals/questions/*.jsonl)")
    p.add_argument("--beir", help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv")
    p.add_argument("--split", default="test", help="qrels split of the BEIR folder")
    p.add_argument(
        "--home",
        help="data folder already holding the corpus (default: one per dataset combination under $RAGENT_HOME/eval)",
    )
    p.add_argument("--limit", type=positive_int, help="only the first N questions")
    p.add_argument("--out", default=EVAL_OUT, help="folder for the JSON records and the Markdown summary")
    p.add_argument("--planner", choices=("auto", "rules", "llm"), default=AGENT_DEFAULTS.planner, help=PLANNER_HELP)
    _agent_choice(p)
    p.set_defaults(run=commands.evaluate)

    p = sub.add_parser(
        "adapt",
        help="fine-tune the embedder on a BEIR folder's labelled pairs (CPU, minutes); use it with "
        "RAGENT_EMBEDDINGS=adapted:NAME in a data folder of its own",
    )
    p.add_argument("--beir", required=True, help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv")
    p.add_argument("--split", default="train", help="qrels split to learn from (never the one you evaluate on)")
    p.add_argument("--name", help="name of the adapted model (default: the folder's name)")
    p.add_argument("--epochs", type=partial(positive_int, maximum=20), default=ADAPT_EPOCHS)
    p.add_argument("--learning-rate", type=learning_rate, default=ADAPT_LEARNING_RATE)
    p.add_argument(
        "--hard-negatives",
        type=partial(positive_int, minimum=0, maximum=4),
        default=ADAPT_HARD_NEGATIVES,
        help="keyword-ranked documents not judged relevant to train each pair against (ranks 3-30; default "
        f"{ADAPT_HARD_NEGATIVES}; 0: the other documents of its batch only)",
    )
    p.set_defaults(run=commands.adapt)

    p = sub.add_parser(
        "bench",
        help="the benchmarks side by side: vs LangChain, vs naive RAG, multi-hop, cost at scale, latency, fields found "
        "in the text",
    )
    p.add_argument(
        "--only", nargs="+", choices=BENCH_SECTIONS, default=list(BENCH_SECTIONS), help="run only these sections"
    )
    p.add_argument(
        "--home",
        help="data folder holding every shared dataset (default: the eval folder for them, ingested on first use)",
    )
    p.add_argument(
        "--scale-sizes",
        nargs="+",
        type=positive_int,
        default=BENCH_SCALE_SIZES,
        help="chunk counts of the scale corpora",
    )
    p.add_argument("--out", default=BENCH_OUT)
    p.set_defaults(run=commands.bench)


def _operations(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="the web page, the LangGraph API and Studio on the embedded engines (--sample: on the sample corpus)",
    )
    p.add_argument("--port", type=int, help="port to listen on (a free one by default)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument(
        "--sample",
        action="store_true",
        help=f"the demo: ingest the sample corpus into scope {SAMPLE_SCOPE!r} and read it in runs that name no scope",
    )
    p.add_argument(
        "--no-auth",
        action="store_true",
        help="no API key, for development on this machine: clients on a loopback address only, as identity 'local'",
    )
    p.add_argument("--verbose", action="store_true", help="LangGraph's own log too (a line per request and run)")
    p.set_defaults(run=commands.serve)

    keys = sub.add_parser("keys", help="the server's API keys: who may call it, for which scopes, and ingest")
    actions = keys.add_subparsers(dest="keys_action", required=True)
    p = actions.add_parser("add", help="a new key for an identity; its text is shown once")
    p.add_argument("identity", help="who uses the key (threads are theirs)")
    p.add_argument(
        "--scope",
        dest="scopes",
        action="append",
        required=True,
        help="a scope the key may use (repeat for several; '*' for every scope)",
    )
    p.add_argument("--ingest", action="store_true", help="may also ingest documents into its scopes")
    p.set_defaults(run=commands.keys_add)
    p = actions.add_parser("list", help="the keys (ids, identities, scopes; never their text)")
    p.add_argument("--json", action="store_true", help="print the entries as JSON")
    p.set_defaults(run=commands.keys_list)
    p = actions.add_parser("revoke", help="remove a key by id, or every key of an identity")
    p.add_argument("key", help="a key id (from `ragent keys list`) or an identity")
    p.set_defaults(run=commands.keys_revoke)

    p = sub.add_parser("check", help="do Postgres, the keyword index and the vector index agree? --repair makes them")
    p.add_argument(
        "--repair", action="store_true", help="re-index chunks an engine lacks, delete what Postgres does not know"
    )
    p.add_argument("--scope", type=scope_name, help="check one tenant or workspace (default: every scope)")
    p.set_defaults(run=commands.check)

    p = sub.add_parser("stats", help="counts and sizes of every store, and whether the embedded Postgres runs")
    _json(p)
    p.set_defaults(run=commands.stats)

    sub.add_parser(
        "stop",
        help="stop the data folder's embedded Postgres and local chat model now (each stops by itself once unused: "
        "RAGENT_POSTGRES_IDLE_STOP_S, 300 s, and RAGENT_CHAT_IDLE_STOP_S, 600 s, by default)",
    ).set_defaults(run=commands.stop)


def _documents(sub) -> None:
    p = sub.add_parser("documents", help="list, show or delete the documents of a scope")
    actions = p.add_subparsers(dest="documents_action", required=True)
    p = actions.add_parser("list", help="the documents of a scope (or of one bucket), with their counts")
    p.add_argument("--bucket")
    p.add_argument("--matching", metavar="WORDS", help="only documents whose title or id holds every word")
    _scope(p)
    _shown(p, "--limit", "documents", DOCUMENTS_LISTED, DOCUMENTS_LISTED_MAX)
    p.add_argument(
        "--offset",
        type=partial(positive_int, minimum=0, maximum=2**62),
        default=0,
        help="skip this many first (for the next page)",
    )
    _json(p)
    p.set_defaults(run=commands.documents_list)
    p = actions.add_parser("show", help="one document: its fields, annotation rows and text")
    p.add_argument("doc_id")
    _scope(p)
    _json(p)
    p.set_defaults(run=commands.documents_show)
    p = actions.add_parser(
        "delete",
        help="delete documents (or a whole bucket of a scope) from Postgres, the keyword and the vector index at once",
    )
    p.add_argument("doc_ids", nargs="*", metavar="DOC_ID", help="ids as `ragent documents list` shows them")
    p.add_argument("--bucket", help="delete every document of this bucket in the scope")
    _scope(p)
    p.add_argument("--yes", action="store_true", help="do not ask before deleting a whole bucket")
    _json(p)
    p.set_defaults(run=commands.documents_delete)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragent", description="Agentic retrieval over bucketed document corpora, with citations."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_agent, _ingest, _search, _annotations, _catalog_and_buckets, _documents, _evals, _operations):
        add(sub)
    return parser
