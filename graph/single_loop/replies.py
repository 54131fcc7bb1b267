"""A reply of the loop's model read as the step's `Decision`: the plan's JSON decision after each result.

The model has the seven tools and one more, `decide`, whose arguments are that decision. A reply is read as:
- tool calls: `more`, the calls its `next_calls` (the tools node runs them);
- a `decide` call: `enough`, or `clarify` with its kind;
- anything else (words, or a decision that cannot be read): `enough`. Every reply of the model thus either spends
  tool calls or ends the loop, so no reply can keep it going past the cap; and the model's words are never the
  answer: compose writes that from the evidence, and checks it.
A call whose arguments are not JSON is refused as an invalid argument is, with an envelope the model reads.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal, NamedTuple

from langchain_core.messages import AIMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.schemas import Decision, ToolCall
from prompts import load as load_prompts
from tools.envelope import Envelope, failure
from tools.guard import validation_reason

DECIDE = "decide"
REASON_CHARS = 300
"""Of the model's words beside its calls, kept as the step's reason."""


class Decide(BaseModel):
    """The arguments of `decide`."""

    model_config = ConfigDict(title=DECIDE)

    action: Literal["enough", "clarify"]
    reason: str = Field(description="Why, in one sentence")
    clarify_kind: Literal["no_low", "overload"] | None = Field(
        default=None,
        description="For clarify: no_low when nothing relevant was found or the question's words match nothing, "
        "overload when too many documents match to list",
    )


def decide_tool() -> dict[str, Any]:
    """`decide` as an OpenAI tool, described in `prompts/single_loop.toml`."""
    tool = convert_to_openai_tool(Decide)
    tool["function"]["description"] = load_prompts("single_loop")["decide"]["description"]
    return tool


class Requested(NamedTuple):
    """A tool call of a reply: its id (which its result answers), the call, and the envelope of a call that cannot
    run at all (arguments that are not JSON)."""

    id: str
    call: ToolCall
    refused: Envelope | None = None


def requested(reply: AIMessage) -> list[Requested]:
    """The reply's tool calls but `decide`, those that cannot run last."""
    calls = [
        Requested(c["id"] or "", ToolCall(tool=c["name"], arguments=c["args"]))
        for c in reply.tool_calls
        if c["name"] != DECIDE
    ]
    return calls + [
        Requested(
            c["id"] or "",
            ToolCall(tool=c["name"] or "", arguments={}),
            failure(
                "invalid_request",
                f"{c['name'] or 'a tool call'}: the arguments are not a JSON object ({c['error'] or c['args']})",
            ),
        )
        for c in reply.invalid_tool_calls
    ]


def with_calls_written_as_text(reply: AIMessage, names: set[str]) -> AIMessage:
    """A reply that writes its tool call as JSON text (`{"name": ..., "arguments": {...}}`, what a small model does
    when its chat template's call markers are not followed) read as the call it is, so that it runs and the model
    sees its result; any other reply as it is."""
    if reply.tool_calls or reply.invalid_tool_calls:
        return reply
    try:
        said = json.loads(reply.text.strip().removeprefix("```json").removesuffix("```").strip())
    except ValueError:
        return reply
    written = said if isinstance(said, list) else [said]
    calls = [
        {"name": c["name"], "args": c.get("arguments") or {}, "id": f"call_{uuid.uuid4().hex[:12]}"}
        for c in written
        if isinstance(c, dict) and c.get("name") in names and isinstance(c.get("arguments", {}), dict)
    ]
    if not calls or len(calls) != len(written):
        return reply
    return AIMessage(content="", tool_calls=calls, id=reply.id, usage_metadata=reply.usage_metadata)


def decision_of(reply: AIMessage) -> Decision:
    calls = requested(reply)
    if calls:
        said = reply.text.strip()[:REASON_CHARS]
        named = ", ".join(dict.fromkeys(r.call.tool for r in calls))
        return Decision(action="more", reason=said or f"the model calls {named}", next_calls=[r.call for r in calls])
    decided = [c for c in reply.tool_calls if c["name"] == DECIDE]
    if not decided:
        return Decision(
            action="enough",
            reason="the model stopped calling tools without deciding; the answer is composed from what they found "
            "(the model's own words are not shown)",
        )
    try:
        said = Decide.model_validate(decided[0]["args"])
    except ValidationError as error:
        return Decision(
            action="enough",
            reason=f"the model's decision could not be read ({validation_reason(error)}); the answer is composed "
            "from what the tools found",
        )
    if said.action == "clarify":
        return Decision(action="clarify", reason=said.reason, clarify_kind=said.clarify_kind or "no_low")
    return Decision(action="enough", reason=said.reason)
