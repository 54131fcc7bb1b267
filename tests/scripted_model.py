"""Scripted chat models for the planner tests: langchain-core's fake chat model replying with the scripted messages
in order, and asked for a typed output as the planner asks (`with_structured_output(schema, method="json_schema",
include_raw=True)`): the reply's content is the JSON, parsed into the schema as an OpenAI-compatible client does,
with what failed to parse in `parsing_error`. No network, no model."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda
from pydantic import Field


class ScriptedModel(GenericFakeChatModel):
    """Replies with the scripted messages in order. A JSON-schema output is read from the reply's content; any other
    structured output (the evals' judges) from the reply's tool calls, as langchain-core reads them."""

    def bind_tools(self, tools, **kwargs):
        return self

    def with_structured_output(self, schema, *, method: str = "function_calling", include_raw: bool = False, **kwargs):
        if method != "json_schema":
            return super().with_structured_output(schema, include_raw=include_raw, **kwargs)

        def read(message: BaseMessage) -> dict[str, Any]:
            try:
                return {"raw": message, "parsed": schema.model_validate_json(message.text), "parsing_error": None}
            except ValueError as error:  # not JSON, or JSON the schema refuses (pydantic's ValidationError)
                return {"raw": message, "parsed": None, "parsing_error": error}

        def parsed(message: BaseMessage):
            output = read(message)
            if output["parsing_error"] is not None:
                raise output["parsing_error"]
            return output["parsed"]

        return self | RunnableLambda(read if include_raw else parsed)


class RecordingModel(ScriptedModel):
    """A scripted chat model that keeps every prompt it was sent, its messages joined."""

    prompts: list[str] = Field(default_factory=list)

    def _generate(self, messages, *args, **kwargs):
        self.prompts.append("\n".join(m.text for m in messages))
        return super()._generate(messages, *args, **kwargs)


def reply(output: dict) -> AIMessage:
    """A reply whose content is `output` as JSON: what a model answers under a JSON schema."""
    return AIMessage(content=json.dumps(output))


def reading(
    bucket: str,
    asks: str,
    conditions: list[dict] | None = None,
    of_field: str = "none",
    group_by: str = "none",
    top: int | None = None,
) -> AIMessage:
    """The model's reading of a question (`graph.planners.model_reading.reading_schema`), as JSON content."""
    return reply(
        {
            "bucket": bucket,
            "asks": asks,
            "conditions": conditions or [],
            "of_field": of_field,
            "group_by": group_by,
            "top": top,
        }
    )


def condition(field: str, op: str, value) -> dict:
    return {"field": field, "op": op, "value": value}
