"""The tools by name: arguments, implementation and what the model is told about them (prompts/tools.toml)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

import prompts
from tools.annotation_tools import annotations_aggregate, annotations_search
from tools.arguments import (
    AnnotationsAggregateArgs,
    AnnotationsSearchArgs,
    DocumentArgs,
    DocumentMetadataArgs,
    FusedSearchArgs,
    SearchSemanticArgs,
    SearchTextArgs,
)
from tools.context import ToolContext
from tools.document_tools import get_document, get_document_metadata
from tools.envelope import Envelope, failure
from tools.guard import run_tool
from tools.search_tools import fused_search, search_semantic, search_text


@dataclass(frozen=True)
class Tool:
    name: str
    arguments: type[BaseModel]
    implementation: Callable[[Any, ToolContext], Envelope]
    takes_bucket: bool
    uses_fields: bool


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool("search_text", SearchTextArgs, search_text, takes_bucket=True, uses_fields=True),
        Tool("search_semantic", SearchSemanticArgs, search_semantic, takes_bucket=True, uses_fields=True),
        Tool("fused_search", FusedSearchArgs, fused_search, takes_bucket=True, uses_fields=True),
        Tool("annotations_search", AnnotationsSearchArgs, annotations_search, takes_bucket=True, uses_fields=True),
        Tool(
            "annotations_aggregate",
            AnnotationsAggregateArgs,
            annotations_aggregate,
            takes_bucket=True,
            uses_fields=True,
        ),
        Tool(
            "get_document_metadata", DocumentMetadataArgs, get_document_metadata, takes_bucket=False, uses_fields=False
        ),
        Tool("get_document", DocumentArgs, get_document, takes_bucket=False, uses_fields=False),
    )
}


def descriptions() -> dict[str, dict[str, str]]:
    return prompts.load("tools")


def run_named(name: str, arguments: Mapping[str, Any], context: ToolContext) -> Envelope:
    """Run a tool by name; an unknown name is an `invalid_request` like any other bad argument."""
    tool = TOOLS.get(name)
    if tool is None:
        return failure("invalid_request", f"no tool {name!r}; tools: {', '.join(TOOLS)}")
    return run_tool(name, tool.arguments, tool.implementation, arguments, context)


def call_tool(name: str, arguments: Mapping[str, Any], context: ToolContext) -> dict[str, Any]:
    """`run_named`, as the JSON a model reads."""
    return run_named(name, arguments, context).model_dump(mode="json")
