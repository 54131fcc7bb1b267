"""LLMPlanner driven by scripted fake chat models from langchain-core (no network, no model)."""

from __future__ import annotations

import uuid
from itertools import count

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.llm_planner import LLMPlanner
from graph.services import AgentServices
from retrievers.loaders import sample

_ids = count()


class ScriptedModel(GenericFakeChatModel):
    """Replies with the scripted messages in order; tools are 'bound' by replying with tool calls as scripted."""

    def bind_tools(self, tools, **kwargs):
        return self


def structured(name: str, args: dict) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{next(_ids)}"}])


DELAWARE = {
    "question": "Which contracts are governed by Delaware law?",
    "intent": "list",
    "buckets": ["contracts"],
    "constraints": [{"bucket": "contracts", "field": "governing_law", "op": "=", "value": "Delaware"}],
}
PLAN = {
    "buckets": ["contracts"],
    "strategy": "structured",
    "max_tool_calls": 5,
    "calls": [
        {
            "tool": "annotations_search",
            "arguments": {
                "bucket": "contracts",
                "predicates": {"governing_law": {"op": "=", "value": "Delaware"}},
                "top_k": 50,
            },
        }
    ],
}
ENOUGH = {"action": "enough", "reason": "three Delaware contracts found"}
STRUCTURED_ROUTE = {"kind": "structured", "fallback_order": [], "reason": "fields answer it"}
LEAD = AIMessage(content="Three contracts are governed by Delaware law [1].")


@pytest.fixture(scope="module")
def stack(sample_stack):
    return sample_stack


def run(stack, script: list[AIMessage], question: str = DELAWARE["question"]):
    with AgentServices(stack, chat_model=ScriptedModel(messages=iter(script))) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": question}, config, context=AgentContext(planner="llm"))
        return agent.get_state(config).values


DELAWARE_CONTRACTS = {
    s.document.doc_id for s in sample.load() for a in s.annotations if "Delaware" in (a.row.get("governing_law") or [])
}


def test_valid_structured_outputs_drive_the_planned_calls(stack):
    state = run(
        stack,
        [
            structured("Decomposition", DELAWARE),
            structured("RouteChoice", STRUCTURED_ROUTE),
            structured("Plan", PLAN),
            structured("Decision", ENOUGH),
            LEAD,
        ],
    )
    assert [e.call.model_dump() for e in state["evidence"]] == [{**PLAN["calls"][0], "purpose": ""}]
    assert state["decisions"][-1].reason == "three Delaware contracts found"
    assert {r["doc_id"] for r in state["answer"].rows} == DELAWARE_CONTRACTS
    assert state["answer"].composed_by == "model"
    assert state["answer"].text.startswith("Three contracts are governed by Delaware law") and "| doc_id |" in (
        state["answer"].text
    )


def test_invalid_outputs_are_retried_once_then_the_rules_take_the_mode(stack):
    garbage = AIMessage(content="I think Delaware?")
    unknown_field = structured(
        "Decomposition",
        {
            **DELAWARE,
            "constraints": [{"bucket": "contracts", "field": "jurisdiction_of_mars", "op": "=", "value": "x"}],
        },
    )
    state = run(stack, [garbage, unknown_field, *[garbage] * 8])
    assert [(c.field, c.value) for c in state["decomposition"].constraints] == [("governing_law", "Delaware")], (
        "the rule decomposer took over"
    )
    assert {r["doc_id"] for r in state["answer"].rows} == DELAWARE_CONTRACTS


def test_a_second_attempt_with_the_error_is_used_when_valid(stack):
    unknown_bucket = structured("Decomposition", {**DELAWARE, "buckets": ["recipes"]})
    state = run(
        stack,
        [
            unknown_bucket,
            structured("Decomposition", DELAWARE),
            structured("RouteChoice", STRUCTURED_ROUTE),
            structured("Plan", PLAN),
            structured("Decision", ENOUGH),
            LEAD,
        ],
    )
    assert (
        state["decomposition"].buckets == ["contracts"]
        and state["decisions"][-1].reason == "three Delaware contracts found"
    )


def test_a_call_rejected_as_invalid_request_is_recovered(stack):
    bad_plan = {
        **PLAN,
        "calls": [
            {
                "tool": "annotations_search",
                "arguments": {"bucket": "contracts", "predicates": {"colour": {"op": "=", "value": "red"}}},
            }
        ],
    }
    state = run(
        stack,
        [
            structured("Decomposition", DELAWARE),
            structured("RouteChoice", STRUCTURED_ROUTE),
            structured("Plan", bad_plan),
            structured("Decision", ENOUGH),
            LEAD,
        ],
    )
    statuses = [e.envelope.status for e in state["evidence"]]
    assert statuses[0] == "invalid_request" and "unknown field 'colour'" in state["evidence"][0].envelope.hint
    assert "recovering from rejected calls" in state["decisions"][1].reason and statuses[-1] == "ok"
    assert {r["doc_id"] for r in state["answer"].rows} == DELAWARE_CONTRACTS


def test_planner_llm_without_a_model_is_a_clear_error(stack, monkeypatch):
    from core.errors import InvalidInput

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with (
        AgentServices.from_env() as services,
        pytest.raises(InvalidInput, match="needs a chat model: set OPENAI_API_KEY"),
    ):
        services.planner(AgentContext(planner="llm"))
    with AgentServices(stack) as services:
        assert type(services.planner(AgentContext(planner="auto"))).__name__ == "RulePlanner"


# -- route selection -------------------------------------------------------------------------------------------


def route_with(stack, script: list[AIMessage], d: Decomposition, tried: list[str]):
    with AgentServices(stack) as services:
        model = ScriptedModel(messages=iter(script))
        planner = LLMPlanner(AgentContext(planner="llm", max_hits=7), services.catalog("default"), model, ChatBreaker())
        return planner.route(d, tried), planner.fallbacks


TEXT_QUESTION = Decomposition(question="How do I get onto the VPN from home?", intent="qa", buckets=["generic"])
COUNT_QUESTION = Decomposition(question="How many contracts are there?", intent="count", buckets=["contracts"])


def test_the_models_route_is_taken_with_the_runs_cutoffs(stack):
    choice = {"kind": "long_text", "fallback_order": [], "reason": "the answer is in the guide's text"}
    route, fallbacks = route_with(stack, [structured("RouteChoice", choice)], TEXT_QUESTION, [])
    assert (route.kind, route.fallback_order, route.max_hits) == ("long_text", [], 7) and fallbacks == []


@pytest.mark.parametrize(
    ("d", "tried", "choice", "rules_route"),
    [
        (COUNT_QUESTION, [], {"kind": "long_text", "fallback_order": []}, "structured"),
        (TEXT_QUESTION, [], {"kind": "structured", "fallback_order": ["long_text"]}, "long_text"),
        (TEXT_QUESTION, [], {"kind": "hybrid", "fallback_order": []}, "long_text"),
        (COUNT_QUESTION, ["structured"], {"kind": "structured", "fallback_order": []}, "structured"),
    ],
    ids=["count-by-passages", "structured-for-text", "hybrid-without-constraints", "already-tried"],
)
def test_a_route_that_breaks_the_rules_is_asked_again_then_left_to_the_rules(stack, d, tried, choice, rules_route):
    bad = structured("RouteChoice", {**choice, "reason": "a guess"})
    route, fallbacks = route_with(stack, [bad, bad], d, tried)
    assert route.kind == rules_route and fallbacks == ["select_route: no usable answer after 2 attempts"]
