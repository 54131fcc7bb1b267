"""The tools as LangChain tools a chat model can bind: names, descriptions, and JSON schemas built from the index.

The bucket argument becomes an enum of the buckets that hold documents in the caller's scope, so a model
cannot invent one, and each description carries the bucket list and, for the tools that take predicates, the
annotation fields of every bucket with their types and example values, from the field catalog. Invalid
arguments come back as an `invalid_request` envelope (never an exception), like every other failure.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field, ValidationError, create_model

from tools.catalog import Catalog
from tools.context import ToolContext
from tools.envelope import failure
from tools.guard import validation_reason
from tools.registry import TOOLS, Tool, call_tool, descriptions

MAX_FIELD_EXAMPLES = 6


def fields_text(catalog: Catalog, buckets: list[str]) -> str:
    """One line per annotation field of each bucket: name, type, kind of row, range or examples, description."""
    lines = []
    for bucket in buckets:
        fields = catalog.fields(bucket)
        if not fields:
            continue
        lines.append(f"{bucket}:")
        for f in fields:
            shown = f.values if f.values is not None else f.examples
            examples = ", ".join(json.dumps(v, ensure_ascii=False) for v in shown[:MAX_FIELD_EXAMPLES])
            span = f" from {f.min} to {f.max};" if f.min is not None else ""
            row_kind = "" if f.kind == "properties" else f" on {f.kind} rows"
            about = f" ({f.description})" if f.description else ""
            lines.append(f"  {f.name}: {f.type}{' list' if f.multi else ''}{row_kind};{span} e.g. {examples}{about}")
    return "\n".join(lines)


def tool_description(tool: Tool, buckets: dict[str, str], fields: str) -> str:
    text = descriptions()[tool.name]
    parts = [
        text["description"],
        f"Good at: {text['good_at']}",
        f"Bad at: {text['bad_at']}",
        f"Cost: {text['cost']}.",
        f"Example: {text['example']}",
    ]
    if tool.takes_bucket and buckets:
        parts.append("Buckets:\n" + "\n".join(f"  {name}: {about}" for name, about in buckets.items()))
    if tool.uses_fields and fields:
        parts.append("Annotation fields by bucket:\n" + fields)
    return "\n".join(parts)


def arguments_schema(tool: Tool, buckets: list[str]) -> type[BaseModel]:
    """`tool`'s arguments with its bucket narrowed to `buckets` (an enum the model sees)."""
    if not tool.takes_bucket:
        return tool.arguments
    return create_model(
        f"{tool.name}_arguments",
        __base__=tool.arguments,
        bucket=(Literal[tuple(buckets)], Field(description="One of the buckets listed in the description")),
    )


def _invalid(name: str):
    def handle(error: ValidationError) -> str:
        return failure("invalid_request", f"{name}: {validation_reason(error)}").model_dump_json()

    return handle


def build_tools(context: ToolContext, *, catalog_described: bool = True) -> list[StructuredTool]:
    """Every tool, described for the buckets and fields of `context`'s scope as they are now.
    `catalog_described=False` leaves the buckets and fields out of the descriptions, for a caller that shows them
    once in its own prompt (five tools each repeating a scope's buckets and field catalog cost a small local model
    minutes of reading per turn); the bucket argument stays an enum of the scope's buckets."""
    catalog = Catalog(context)
    buckets = {name: info.description for name, info in catalog.buckets.items()}
    enum = list(buckets)
    fields = fields_text(catalog, enum) if catalog_described else ""
    buckets = buckets if catalog_described else {}
    built = []
    for tool in TOOLS.values():

        def run(_name: str = tool.name, **arguments: Any) -> tuple[str, dict[str, Any]]:
            envelope = call_tool(_name, arguments, context)
            return json.dumps(envelope, ensure_ascii=False), envelope

        built.append(
            StructuredTool.from_function(
                func=run,
                name=tool.name,
                description=tool_description(tool, buckets, fields),
                args_schema=arguments_schema(tool, enum),
                response_format="content_and_artifact",
                handle_validation_error=_invalid(tool.name),
            )
        )
    return built
