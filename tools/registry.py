"""The tools by name: arguments, implementation and what the model is told about them (prompts/tools.toml)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Callable, Mapping

from pydantic import BaseModel

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
from tools.envelope import Envelope
from tools.runner import run_tool
from tools.search_tools import fused_search, search_semantic, search_text

PROMPTS = Path(__file__).resolve().parents[1] / "prompts" / "tools.toml"


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
        Tool("annotations_aggregate", AnnotationsAggregateArgs, annotations_aggregate, takes_bucket=True, uses_fields=True),
        Tool("get_document_metadata", DocumentMetadataArgs, get_document_metadata, takes_bucket=False, uses_fields=False),
        Tool("get_document", DocumentArgs, get_document, takes_bucket=False, uses_fields=False),
    )
}


@cache
def descriptions() -> dict[str, dict[str, str]]:
    with PROMPTS.open("rb") as handle:
        return tomllib.load(handle)


def call_tool(name: str, arguments: Mapping[str, Any], context: ToolContext) -> dict[str, Any]:
    """Run a tool by name; an unknown name is an `invalid_request` like any other bad argument."""
    tool = TOOLS.get(name)
    if tool is None:
        return Envelope(status="invalid_request", hint=f"no tool {name!r}; tools: {', '.join(TOOLS)}").model_dump()
    return run_tool(name, tool.arguments, tool.implementation, arguments, context)
