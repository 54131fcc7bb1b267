"""`ragent catalog` and `ragent buckets`: what a bucket and its fields are, and the user's words for them. They read
and write Postgres alone, so they work beside a running server or ingest."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cli.output import print_json
from cli.stores import opened_store
from core.errors import RagentError

if TYPE_CHECKING:
    from retrievers.postgres.field_catalog import Vocabulary


def catalog(args: argparse.Namespace) -> None:
    """`ragent catalog BUCKET` shows the bucket and its fields; `ragent catalog describe BUCKET [FIELD] ...` first
    records the user's words for one of them, then shows it as the planner now reads it."""
    edits = {
        "aliases": args.aliases,
        "remove_aliases": args.remove_aliases,
        "description": args.description,
        "role": args.role,
        "unit": args.unit,
        "unit_field": args.unit_field,
    }
    describing = args.target[0] == "describe" and len(args.target) > 1
    bucket, *field = args.target[1:] if describing else args.target
    if len(field) > (1 if describing else 0):
        raise RagentError("use `ragent catalog BUCKET` or `ragent catalog describe BUCKET [FIELD] --aliases ...`")
    if not describing and any(value not in (None, []) for value in edits.values()):
        raise RagentError(f"--aliases, --role and the like describe: `ragent catalog describe {bucket} [FIELD] ...`")
    with opened_store() as store:
        store.require_bucket(bucket)
        if describing:
            store.describe(bucket, *field, **edits)
        fields = [f for f in store.field_catalog(args.scope, bucket) if not field or f.name == field[0]]
        description, aliases = store.buckets()[bucket], store.bucket_aliases()[bucket]
        said = store.vocabulary(bucket, field[0]) if field and not fields else None
    if args.json:
        print_json(
            {
                "bucket": bucket,
                "scope": args.scope,
                "description": description,
                "aliases": aliases,
                "fields": [f.model_dump(mode="json") for f in fields],
                **({"said": said.model_dump(mode="json")} if said else {}),
            }
        )
        return
    if not field:
        _print_bucket(bucket, description, aliases)
    elif said:
        print(f"  {field[0]}: no document of scope {args.scope!r} has it; your words are kept: {_said(said)}")
    for f in fields:
        shown = f.values if f.values is not None else f.examples
        span = f"  range {f.min} .. {f.max}" if f.min is not None else ""
        vocabulary = "".join(
            f"  {name}={getattr(f, name)}" for name in ("role", "unit", "unit_field") if getattr(f, name)
        )
        print(
            f"  {f.kind}.{f.name}: {f.type}{'[]' if f.multi else ''}{vocabulary}  in {f.doc_count} docs{span}"
            f"  e.g. {shown[:8]}"
        )
        if f.aliases:
            print(f"      aliases: {', '.join(f.aliases)}")


def _print_bucket(name: str, description: str, aliases: list[str]) -> None:
    print(f"  {name}: {description}")
    if aliases:
        print(f"      aliases: {', '.join(aliases)}")


def _said(vocabulary: Vocabulary) -> str:
    """The user's own words about a field, for a field no document in the scope has yet."""
    parts = {
        "aliases": ", ".join(vocabulary.aliases),
        "without": ", ".join(vocabulary.removed_aliases),
        "description": vocabulary.description,
        "role": vocabulary.role,
        "unit": vocabulary.unit,
        "unit_field": vocabulary.unit_field,
    }
    return "; ".join(f"{name} {value}" for name, value in parts.items() if value) or "none"


def buckets(args: argparse.Namespace) -> None:
    if args.action == "add" and not args.name:
        raise RagentError("name the bucket: `ragent buckets add NAME --description TEXT [--aliases A,B]`")
    if args.action != "add" and args.aliases:
        raise RagentError(
            "--aliases goes with `ragent buckets add NAME`; for a bucket that exists, use "
            "`ragent catalog describe NAME --aliases A,B`"
        )
    with opened_store() as store:
        if args.action == "add":
            store.add_bucket(args.name, args.description)
            if args.aliases:
                store.describe(args.name, aliases=args.aliases)
        aliases = store.bucket_aliases()
        for name, description in store.buckets().items():
            _print_bucket(name, description, aliases.get(name, []))
