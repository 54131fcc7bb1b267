"""model: one turn of the chat model, with the tools bound, read as the step's decision.

The model sees the question (after the thread's turns just before it, which a follow-up points back to), the seven
tools as OpenAI tools (`tools.langchain_tools.build_tools`: the scope's buckets as an enum, the fields of each from
the catalog) and `decide`, then the results of its calls. Its reply is the step's `Decision`
(`graph.single_loop.replies`), recorded in `decisions` as the orchestrator's review records its own. Once the
run's tool calls reach the cap the model is not asked again: the decision is `enough`, over what they found.

The model is called with LangGraph's `nostream` tag, and the conversation keeps its calls but not its words beside
them (those are the decision's reason): the loop's messages reach `messages` stream clients, and unchecked text of
the model must not.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.constants import TAG_NOSTREAM
from langgraph.runtime import Runtime

from core.errors import BackendUnavailable, InvalidInput
from graph.context import AgentContext
from graph.planners.chat_breaker import is_transport_failure
from graph.planners.model_calls import ModelCall
from graph.planners.model_reading import candidate_views, shown
from graph.schemas import Decision
from graph.services import AgentServices
from graph.single_loop.replies import DECIDE, decide_tool, decision_of, with_calls_written_as_text
from graph.single_loop.state import LoopState
from graph.state import budget
from prompts import load as load_prompts
from tools.langchain_tools import build_tools

THREAD_MESSAGES = 5
"""Of the thread's messages, the question and the two turns before it: what "which of those" points back to."""


def chat_model(services: AgentServices) -> BaseChatModel:
    """The services' chat model; the single loop is nothing without one, and says so."""
    model = services.chat_model
    if model is None:
        raise InvalidInput(
            "the single-loop agent needs a chat model: set RAGENT_CHAT=local for the local model, or OPENAI_API_KEY "
            "(with OPENAI_BASE_URL for another OpenAI-compatible endpoint); the orchestrator (`--agent "
            "orchestrator`, the server's `agent` graph) answers without one"
        )
    return model


def conversation(state: LoopState, context: AgentContext, fields: str) -> list[AnyMessage]:
    """The fixed system text first (with the tools, the prefix a server keeps read from one question to the next),
    then the thread's last turns, the fields of the question's buckets, the question and the loop so far."""
    text = load_prompts("single_loop")["loop"]
    *before, question = state["messages"][-THREAD_MESSAGES:]
    return [
        SystemMessage(text["system"].format(max_hits=context.max_hits, max_tool_calls=context.tool_call_cap)),
        *before,
        HumanMessage(text["fields"].format(fields=fields)),
        question,
        *state.get("loop", []),
    ]


LIMITS = {"title", "maxLength", "minLength", "maxItems", "maxProperties", "propertyNames", "format"}
"""Schema keys a model needs not read: the tools check every argument themselves (`tools.guard`)."""


def _argument(schema: dict, described: bool) -> dict:
    return {
        key: value if key == "description" else brief(value, False)
        for key, value in schema.items()
        if key not in LIMITS and (described or key != "description")
    }


def brief(schema: Any, described: bool = True) -> Any:
    """A tool's JSON schema as a model reads it: no titles or length limits, and descriptions on the tool and on its
    arguments, not on the objects inside them (a filter's or a condition's own essay). A small model reads fewer
    tokens; what it may write is the same."""
    if isinstance(schema, list):
        return [brief(item, described) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, value in schema.items():
        if key in LIMITS or (key == "description" and not described):
            continue
        if key == "properties" and isinstance(value, dict):  # each argument says what it is; what is inside, not
            kept[key] = {name: _argument(arg, described) for name, arg in value.items()}
        else:
            kept[key] = brief(value, described and key in ("function", "parameters"))
    return kept


def _ask(services: AgentServices, context: AgentContext, messages: list[AnyMessage]) -> AIMessage:
    built = build_tools(services.tools.context(context.scope), catalog_described=False)
    tools = [brief(convert_to_openai_tool(t)) for t in built] + [decide_tool()]
    # "required": every reply is to be a call (a search, or `decide`); a model left free to write words does (the
    # 1.5B on most recipe questions, and the loop ended with nothing found). The local 1.5B still let three of six
    # replies run to the token cap without a call that parses (docs/evals.md): it holds a model that follows it
    model = chat_model(services).bind_tools(tools, tool_choice="required")
    bound = model.with_config(tags=[TAG_NOSTREAM], run_name="model:single loop")
    try:
        reply = bound.invoke(messages)
    except Exception as error:
        if not is_transport_failure(error):
            raise
        services.breaker.trip()  # the orchestrator's planners leave the model alone for a while too
        raise BackendUnavailable(
            f"the chat model failed ({type(error).__name__}) and the single loop cannot go on without it: ask again "
            "once it answers, or ask the orchestrator, whose rules answer without it"
        ) from None
    names = {t.name for t in built} | {DECIDE}
    return with_calls_written_as_text(reply, names)


def _decide_answered(reply: AIMessage, decision: Decision) -> list[ToolMessage]:
    """Every call answered, as chat APIs require: `decide` beside other calls waits for their results."""
    said = "not taken: decide once you have the results of your other calls" if decision.action == "more" else "noted"
    return [ToolMessage(said, tool_call_id=c["id"] or "", name=DECIDE) for c in reply.tool_calls if c["name"] == DECIDE]


def model(state: LoopState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    context = runtime.context
    if budget(state, context).left == 0:
        spent = f"the run's {context.tool_call_cap} tool calls are spent; the answer is composed from what they found"
        return {"decisions": [Decision(action="enough", reason=spent)]}
    d, catalog = state["decomposition"], services.catalog(context.scope)
    buckets = "\n".join(f"- {name}: {info.description}" for name, info in catalog.buckets.items())
    fields = f"Buckets:\n{buckets}\n{shown(candidate_views(catalog, d.buckets, d.question))}"
    started = time.perf_counter()
    reply = _ask(services, context, conversation(state, context, fields))
    decision = decision_of(reply)
    calls_only = AIMessage(
        "", tool_calls=reply.tool_calls, invalid_tool_calls=reply.invalid_tool_calls, id=reply.id, name=reply.name
    )
    call = _recorded(reply, decision, started)
    return {"loop": [calls_only, *_decide_answered(reply, decision)], "decisions": [decision], "model_calls": [call]}


def _recorded(reply: AIMessage, decision: Decision, started: float) -> ModelCall:
    """The step's call as `--explain` and the evals list the orchestrator's: used when the model called a tool or
    decided; invalid, with the decision's reason, when it only wrote words (a 1.5B model did so on most recipe
    questions, and its calls had gone uncounted)."""
    acted = bool(reply.tool_calls)
    return ModelCall.since(
        "loop", started, reply.usage_metadata, "used" if acted else "invalid", "" if acted else decision.reason
    )
