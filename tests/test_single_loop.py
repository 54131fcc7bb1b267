"""The single-loop agent (one chat model with the tools bound) on the sample corpus, driven by scripted fake chat
models from langchain-core (no network, no model): what a user sees of its answers, its cap, its recoveries and its
clarifications, and that it is the orchestrator's graph to Studio, the server and `ragent resume`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import Field

from cli.printing import option_reply
from core.errors import InvalidInput
from graph.agents import AGENTS, GRAPH_ID, thread_graph
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from graph.single_loop.builder import compile_single_loop
from retrievers.loaders import sample

_ids = count()
TOOL_NAMES = [
    "search_text",
    "search_semantic",
    "fused_search",
    "annotations_search",
    "annotations_aggregate",
    "get_document_metadata",
    "get_document",
]


class ScriptedModel(GenericFakeChatModel):
    """Replies with the scripted messages in order, and keeps what it was shown each time and which tools it had."""

    shown: list = Field(default_factory=list)
    tools: list = Field(default_factory=list)

    def bind_tools(self, tools, **kwargs):
        self.tools[:] = [getattr(t, "name", None) or t["function"]["name"] for t in tools]
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.shown.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def calls(*named: tuple[str, dict], words: str = "") -> AIMessage:
    return AIMessage(content=words, tool_calls=[{"name": n, "args": a, "id": f"call_{next(_ids)}"} for n, a in named])


def decide(action: str, reason: str, words: str = "", **kind) -> AIMessage:
    return calls(("decide", {"action": action, "reason": reason, **kind}), words=words)


DELAWARE_COUNT = (
    "annotations_aggregate",
    {"bucket": "contracts", "aggregate": "count", "predicates": {"governing_law": {"op": "=", "value": "Delaware"}}},
)
DELAWARE = {
    s.document.doc_id for s in sample.load() for a in s.annotations if "Delaware" in (a.row.get("governing_law") or [])
}
RULES_COMPOSE = AgentContext(planner="rules")
"""The loop still runs on the model; the answer is then composed by the rules, with no model call."""


def agent_on(services: AgentServices):
    """The single loop as the CLI compiles it: a checkpointer, and its graph id recorded in every checkpoint."""
    saver = InMemorySaver(serde=SERDE)
    return compile_single_loop(services, saver).with_config(configurable={GRAPH_ID: AGENTS["single-loop"]}), saver


def ask(stack, script: Iterator[AIMessage] | list[AIMessage], question: str, context: AgentContext = RULES_COMPOSE):
    model = ScriptedModel(messages=iter(script))
    services = AgentServices(stack, chat_model=model)
    agent, saver = agent_on(services)
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    agent.invoke({"question": question}, config, context=context)
    return agent, config, model, saver


def envelope_shown(message) -> dict:
    assert isinstance(message, ToolMessage), message
    return json.loads(message.content)


def test_a_count_is_answered_through_one_aggregate_call_with_the_figure_computed_by_code(sample_stack):
    script = [
        calls(DELAWARE_COUNT),
        decide("enough", "the aggregate counts them", words="There are 99 contracts under Delaware law."),
        AIMessage("Three contracts are governed by Delaware law [1]."),  # compose: the lead the model writes
    ]
    agent, config, model, _ = ask(
        sample_stack, script, "How many contracts are governed by Delaware law?", AgentContext(planner="llm")
    )
    state = agent.get_state(config).values
    answer = state["answer"]
    assert answer.value == len(DELAWARE) == 3
    assert answer.composed_by == "model" and answer.text.startswith("Three contracts are governed by Delaware law")
    assert "**3**: count over 3 documents of bucket contracts where governing_law = Delaware" in answer.text
    assert "99" not in answer.text, "the model's own words beside its decision are never the answer"
    assert [d.action for d in state["decisions"]] == ["more", "enough"] and state["tool_calls"] == 1
    assert [(e.call.tool, e.route, e.envelope.status) for e in state["evidence"]] == [
        ("annotations_aggregate", "structured", "ok")
    ]
    assert [type(m).__name__ for m in state["messages"]] == ["HumanMessage", "AIMessage"], "the thread is a chat"
    assert state["messages"][-1].text == answer.text
    assert model.tools == [*TOOL_NAMES, "decide"], "the seven tools are bound, and the decision"
    assert len(model.shown) == 3, "a model call per step, and one to write the answer"
    first = model.shown[0]
    assert isinstance(first[-1], HumanMessage) and first[-1].text == "How many contracts are governed by Delaware law?"
    assert envelope_shown(model.shown[1][-1])["total"] == {"documents": 3, "value": 3}, "the model saw the result"


def test_the_cap_stops_a_model_that_never_stops(sample_stack):
    forever = (calls(("search_text", {"bucket": "contracts", "query": f"Delaware {n}"})) for n in count())
    agent, config, model, _ = ask(
        sample_stack, forever, "Which contracts mention Delaware?", AgentContext(planner="rules", max_tool_calls=3)
    )
    state = agent.get_state(config).values
    assert state["tool_calls"] == 3 and len(state["evidence"]) == 3 and len(model.shown) == 3
    assert [d.action for d in state["decisions"]] == ["more", "more", "more", "enough"]
    assert "3 tool calls are spent" in state["decisions"][-1].reason
    assert state["answer"] is not None and not agent.get_state(config).next, "the run ended with an answer"


def test_calls_past_the_cap_in_one_reply_are_not_run(sample_stack):
    twice = (
        calls(*[("search_text", {"bucket": "contracts", "query": f"Delaware {n}-{i}"}) for i in range(2)])
        for n in count()
    )
    agent, config, model, _ = ask(
        sample_stack, twice, "Which contracts mention Delaware?", AgentContext(planner="rules", max_tool_calls=3)
    )
    state = agent.get_state(config).values
    assert state["tool_calls"] == 3 and len(model.shown) == 2, "two replies asked for four calls; three ran"
    assert state["loop"][-1].content.startswith("not run:"), "the call past the cap is answered, not run"


@pytest.mark.parametrize(
    ("bad_reply", "hint_says"),
    [
        (
            calls(("annotations_aggregate", {**DELAWARE_COUNT[1], "predicates": {"jurisdiction": {"op": "="}}})),
            ["jurisdiction", "governing_law"],  # what was wrong, and the fields there are
        ),
        (
            AIMessage(
                content="",
                invalid_tool_calls=[
                    {"name": "annotations_aggregate", "args": "{bucket: contracts", "id": "call_x", "error": "not JSON"}
                ],
            ),
            ["not a JSON object"],
        ),
    ],
    ids=["unknown-field", "arguments-not-json"],
)
def test_an_invalid_call_comes_back_as_an_envelope_the_model_reads_and_recovers_from(
    sample_stack, bad_reply, hint_says
):
    script = [bad_reply, calls(DELAWARE_COUNT), decide("enough", "counted")]
    agent, config, model, _ = ask(sample_stack, script, "How many contracts are governed by Delaware law?")
    state = agent.get_state(config).values
    seen = envelope_shown(model.shown[1][-1])
    assert seen["status"] == "invalid_request" and all(words in seen["hint"] for words in hint_says), seen
    assert [e.envelope.status for e in state["evidence"]] == ["invalid_request", "ok"]
    assert state["answer"].value == 3 and state["answer"].format == "figure"
    assert [(c.field, c.value) for c in state["decomposition"].constraints] == [("governing_law", "Delaware")]


def test_a_follow_up_on_the_thread_starts_a_new_loop_that_sees_the_turn_before(sample_stack):
    script = [
        calls(DELAWARE_COUNT),
        decide("enough", "counted"),
        calls(
            (
                "annotations_search",
                {
                    "bucket": "contracts",
                    "predicates": {
                        "governing_law": {"op": "=", "value": "Delaware"},
                        "audit_rights": {"op": "=", "value": True},
                    },
                },
            )
        ),
        decide("enough", "listed"),
    ]
    agent, config, model, _ = ask(sample_stack, script, "How many contracts are governed by Delaware law?")
    agent.invoke({"question": "Which of those have audit rights?"}, config, context=RULES_COMPOSE)
    state = agent.get_state(config).values
    second_turn = model.shown[2]
    turn = ["HumanMessage", "AIMessage", "HumanMessage", "HumanMessage"]
    assert [type(m).__name__ for m in second_turn[1:]] == turn, (
        "the previous question and answer, the buckets and fields, the new question; none of the first loop's calls"
    )
    assert second_turn[3].text.startswith("The collection's buckets") and second_turn[4].text.startswith("Which of")
    assert second_turn[2].text.startswith("**3**: count over 3 documents")
    assert {r["doc_id"] for r in state["answer"].rows} == {
        "sample-contract-001",
        "sample-contract-008",
        "sample-contract-009",
    }
    assert [d.action for d in state["decisions"]] == ["more", "enough"] and state["tool_calls"] == 1


STARBUCKS = "How many receipts are from Starbucks?"
STARBUCKS_COUNT = (
    "annotations_aggregate",
    {"bucket": "receipts", "aggregate": "count", "predicates": {"company": {"op": "=", "value": "Starbucks"}}},
)


def test_a_clarify_decision_interrupts_as_the_orchestrator_does_and_the_model_goes_on_after_it(sample_stack):
    script = [
        calls(STARBUCKS_COUNT),
        decide("clarify", "no receipt is from Starbucks", clarify_kind="no_low"),
        calls(("search_text", {"bucket": "receipts", "query": "Starbucks coffee"})),
        decide("enough", "the passages are what there is"),
    ]
    agent, config, model, saver = ask(sample_stack, script, STARBUCKS)
    waiting = agent.get_state(config)
    payload = waiting.interrupts[0].value
    assert set(payload) == {"kind", "question", "reason", "attempts", "options"}
    assert (payload["kind"], payload["reason"], payload["question"]) == (
        "no_low",
        "no receipt is from Starbucks",
        STARBUCKS,
    )
    assert [(a["tool"], a["bucket"], a["status"]) for a in payload["attempts"]] == [
        ("annotations_aggregate", "receipts", "no_results")
    ]
    choices = {o["choice"]: o for o in payload["options"]}
    assert {"broaden", "stop"} <= set(choices) and "passages to read, not a figure" in choices["broaden"]["label"]
    assert thread_graph(saver, config["configurable"]["thread_id"]) == "agent_single_loop", (
        "`ragent resume` finds the agent that began the thread"
    )

    agent.invoke(Command(resume=option_reply(choices["broaden"])), config, context=RULES_COMPOSE)
    state = agent.get_state(config).values
    told = model.shown[2][-1]
    assert isinstance(told, HumanMessage) and "search the text instead" in told.text, "the model is told the choice"
    assert [d.action for d in state["decisions"]] == ["more", "clarify", "more", "enough"]
    assert state["answer"].format == "prose" and state["answer"].value is None, "passages, not a figure of 0"
    assert state["evidence"][-1].call.tool == "search_text" and not agent.get_state(config).next


def test_a_stop_answer_ends_the_run_without_asking_the_model_again(sample_stack):
    script = [calls(STARBUCKS_COUNT), decide("clarify", "no receipt is from Starbucks", clarify_kind="no_low")]
    agent, config, model, _ = ask(sample_stack, script, STARBUCKS)
    agent.invoke(Command(resume={"choice": "stop"}), config, context=RULES_COMPOSE)
    state = agent.get_state(config).values
    assert state["answer"].format == "stopped" and len(model.shown) == 2


def test_without_a_chat_model_the_single_loop_says_it_needs_one():
    def no_engine():
        raise AssertionError("no engine is opened for a run that cannot start")

    agent, _ = agent_on(AgentServices(no_engine))
    with pytest.raises(InvalidInput, match=r"needs a chat model: set RAGENT_CHAT=local .* OPENAI_API_KEY"):
        agent.invoke(
            {"question": "How many contracts are there?"}, {"configurable": {"thread_id": "t"}}, context=AgentContext()
        )


def test_the_server_serves_it_with_the_orchestrators_input_and_output():
    import graph.server as served

    graphs = json.loads((Path(__file__).resolve().parents[1] / "langgraph.json").read_text())["graphs"]
    assert graphs["agent_single_loop"] == "graph.server:agent_single_loop"
    for schema in ("get_input_jsonschema", "get_output_jsonschema"):
        ours, theirs = getattr(served.agent_single_loop, schema)(), getattr(served.agent, schema)()
        assert ours["properties"] == theirs["properties"]


def test_an_evaluation_asks_the_single_loop_when_named(sample_stack):
    """`ragent eval --agent single-loop` scores the single loop's answers, read as the orchestrator's are: the issue's
    measure sets both agents side by side on the same questions."""
    from evals.agent_target import AgentTarget

    script = [calls(DELAWARE_COUNT), decide("enough", "the aggregate counts them")]
    services = AgentServices(sample_stack, chat_model=ScriptedModel(messages=iter(script)))
    target = AgentTarget(services, RULES_COMPOSE, agent="single-loop")
    outputs = target({"question": "How many contracts are governed by Delaware law?"})
    assert outputs["value"] == len(DELAWARE) and [c["tool"] for c in outputs["tool_calls"]] == ["annotations_aggregate"]


def test_each_of_the_models_steps_is_listed_with_what_came_of_it(sample_stack):
    """`--explain` and the evals list the single loop's model calls as the orchestrator's: on the recipes set the
    1.5B model mostly wrote words and called no tool, and the evaluation counted 0.24 calls a question."""
    script = [calls(DELAWARE_COUNT), decide("enough", "the aggregate counts them")]
    agent, config, _, _ = ask(sample_stack, script, "How many contracts are governed by Delaware law?")
    called = agent.get_state(config).values["model_calls"]
    assert [(c.mode, c.outcome) for c in called] == [("loop", "used"), ("loop", "used")]
    agent, config, _, _ = ask(sample_stack, [AIMessage("There are three.")], "How many contracts are governed by NY?")
    (words,) = agent.get_state(config).values["model_calls"]
    assert (words.mode, words.outcome) == ("loop", "invalid") and "stopped calling tools" in words.detail
