"""`ragent catalog` and `ragent buckets`: what a bucket and its fields are, and the user's words for them. They read
and write Postgres alone, so they work beside a running server or ingest."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cli.output import print_json
from cli.schema_file import read_schema
from cli.stores import opened_store
from core.errors import InvalidInput, RagentError
from core.models import FieldSpec

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
    declaring = {"type": args.type, "found_by": args.found_by, "pattern": args.pattern, "multi": args.multi or None}
    describing = args.target[0] == "describe" and len(args.target) > 1
    bucket, *field = args.target[1:] if describing else args.target
    if len(field) > (1 if describing else 0):
        raise RagentError("use `ragent catalog BUCKET` or `ragent catalog describe BUCKET [FIELD] --aliases ...`")
    if not describing and any(value not in (None, []) for value in [*edits.values(), *declaring.values()]):
        raise RagentError(f"--aliases, --role and the like describe: `ragent catalog describe {bucket} [FIELD] ...`")
    if any(value is not None for value in declaring.values()) and not field:
        raise RagentError(f"--type, --found-by and --pattern declare a field: `ragent catalog describe {bucket} FIELD`")
    with opened_store() as store:
        store.require_bucket(bucket)
        declares = any(value is not None for value in declaring.values())
        if describing and declares:
            _declare(store, bucket, field[0], declaring)
        if describing and (not declares or any(value not in (None, []) for value in edits.values())):
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


def _declare(store, bucket: str, name: str, declaring: dict[str, Any]) -> None:
    """Declare field `name` of `bucket` (`--type`), or change how a declared one is found; a user's field is found
    in the text unless they say otherwise."""
    from retrievers.extraction.rules import RULES  # compiling every rule is for this command, not every one

    declared = {spec.name: spec for spec in store.field_specs(bucket)}
    given = {key: value for key, value in declaring.items() if value is not None}
    if name not in declared and "type" not in given:
        raise InvalidInput(
            f"{bucket} has no field {name!r} declared: give its type, e.g. "
            f"`ragent catalog describe {bucket} {name} --type string`"
        )
    base = declared[name].model_dump() if name in declared else {"name": name, "found_by": "text"}
    if given.get("found_by", base["found_by"]) != "pattern":
        base["pattern"] = ""
    try:
        spec = FieldSpec.model_validate({**base, **given})
    except ValidationError as error:
        raise InvalidInput(f"field {name!r}: " + "; ".join(e["msg"] for e in error.errors())) from None
    if spec.found_by == "rule" and name not in RULES.get(bucket, {}):
        raise InvalidInput(f"no shipped rule finds {bucket}.{name}; use --found-by text, pattern or model")
    store.record_field_specs(bucket, [spec])
    store.refresh_bucket_catalogs(bucket)


def buckets(args: argparse.Namespace) -> None:
    if args.action == "add" and not args.name:
        raise RagentError("name the bucket: `ragent buckets add NAME --description TEXT [--aliases A,B]`")
    if args.action != "add" and args.aliases:
        raise RagentError(
            "--aliases goes with `ragent buckets add NAME`; for a bucket that exists, use "
            "`ragent catalog describe NAME --aliases A,B`"
        )
    if args.schema and args.action != "add":
        raise RagentError("--schema goes with `ragent buckets add NAME --schema FILE`")
    fields = read_schema(args.schema) if args.schema else []
    with opened_store() as store:
        if args.action == "add":
            store.add_bucket(args.name, args.description)
            if args.aliases:
                store.describe(args.name, aliases=args.aliases)
            if fields:
                store.record_field_specs(args.name, fields)
                store.refresh_bucket_catalogs(args.name)
                print(
                    f"{args.name}: {len(fields)} fields declared ({', '.join(f.name for f in fields)}); "
                    f"`ragent extract --bucket {args.name}` finds them in documents already ingested"
                )
        aliases = store.bucket_aliases()
        for name, description in store.buckets().items():
            _print_bucket(name, description, aliases.get(name, []))


def extract(args: argparse.Namespace) -> None:
    """`ragent extract`: the declared fields (or those of --fields) found again in the stored documents of a scope
    (see retrievers.extraction.stored); with --model the chat model's fields too."""
    from retrievers.extraction.stored import extract_stored, fields_to_extract

    if args.fields and len(args.bucket or []) != 1:
        raise RagentError("--fields names fields of one bucket: `ragent extract --bucket BUCKET --fields F1,F2`")
    with opened_store() as store:
        buckets = args.bucket or [
            name for name in store.buckets() if any(s.found_by != "labels" for s in store.field_specs(name))
        ]
        for bucket in buckets:
            store.require_bucket(bucket)
        if args.fields:  # a field it cannot find stops the command before the model starts
            fields_to_extract(buckets[0], store.described_specs(buckets[0]), args.fields, args.model)
        model, model_name = _model_finder() if args.model else (None, "")
        embedder = _clause_embedder()
        for bucket in buckets:
            report = extract_stored(
                store, args.scope, bucket, fields=args.fields, model=model, model_name=model_name, embedder=embedder
            )
            print(report.summary())


def _clause_embedder():
    """The data folder's MiniLM, made when a learned clause decision first reads a sentence vector (the ingest
    decides with it, so extracting again decides alike); None under another embedder, whose vectors the decisions
    were not learned from."""
    from functools import partial

    from core.settings import Settings
    from retrievers.engines.deferred import DeferredEmbedder
    from retrievers.engines.embedders.minilm import MiniLMEmbedder
    from retrievers.stack import MINILM_SETTINGS

    embeddings = Settings.from_env().embeddings
    if embeddings not in MINILM_SETTINGS:
        return None
    return DeferredEmbedder(partial(MiniLMEmbedder, precision=MINILM_SETTINGS[embeddings]))


def _model_finder():
    """The chat model as the `model` finder, and its name (recorded with what it extracted)."""
    from chat.model import chat_model_from_env
    from chat.settings import ChatSettings
    from retrievers.extraction.model_reader import ModelReader

    chat = ChatSettings.from_env()
    model = chat_model_from_env(chat=chat)
    if model is None:
        raise RagentError("--model needs a chat model: set RAGENT_CHAT=local (the local model) or RAGENT_CHAT=openai")
    return ModelReader(model), chat.model
