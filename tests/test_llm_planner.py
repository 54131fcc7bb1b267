"""LLMPlanner driven by scripted fake chat models (`tests.scripted_model`: no network, no model).

The model answers every planning mode with JSON in its reply's content (`method="json_schema"`): its reading of the
question (`graph.planners.model_reading`) and, for a question answered from text, its route, plan and decision. A
list, count or sum is routed, planned and reviewed by the rules; with the `auto` planner the model only reads what
the rules could not. Every call is in the run's `model_calls`."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graph.answer.written import NO_ANSWER
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.decomposition import Candidate, Constraint, Decomposition
from graph.planners.base import Budget
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.llm_planner import LLMPlanner
from graph.planners.model_schemas import allowed_routes, decision_schema, planned_searches, route_choice
from graph.schemas import Route, ToolCall
from graph.services import AgentServices
from retrievers.loaders import sample
from tests.scripted_model import RecordingModel, ScriptedModel, condition, reading, reply

DELAWARE_QUESTION = "Which contracts are governed by Delaware law?"
DELAWARE = reading("contracts", "list", [condition("governing_law", "=", "Delaware")])
"""The model's reading of DELAWARE_QUESTION."""
GARBAGE = AIMessage(content="I think Delaware?")
LEAD = AIMessage(content="Three contracts are governed by Delaware law [1].")
NOTHING = AIMessage(content=NO_ANSWER)
"""A compose reply that leaves the answer to the rules."""
ENOUGH = {"action": "enough", "reason": "the clauses are found"}
LIABILITY_QUESTION = "Summarize the limitation of liability in contracts governed by Delaware law"


@pytest.fixture(scope="module")
def stack(sample_stack):
    return sample_stack


def run(stack, script: list[AIMessage], question: str = DELAWARE_QUESTION, planner: str = "llm"):
    model = RecordingModel(messages=iter(script))
    with AgentServices(stack, chat_model=model) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": question}, config, context=AgentContext(planner=planner))
        return agent.get_state(config).values, model


def calls(values: dict) -> list[tuple[str, str]]:
    return [(c.mode, c.outcome) for c in values["model_calls"]]


def rows(values: dict) -> set[str]:
    return {r["doc_id"] for r in values["answer"].rows}


DELAWARE_CONTRACTS = {
    s.document.doc_id for s in sample.load() for a in s.annotations if "Delaware" in (a.row.get("governing_law") or [])
}


def test_a_valid_reading_drives_the_structured_answers_rows(stack):
    values, model = run(stack, [DELAWARE, LEAD])
    assert [(c.field, c.op, c.value) for c in values["decomposition"].constraints] == [
        ("governing_law", "=", "Delaware")
    ]
    assert [e.call.arguments["predicates"] for e in values["evidence"]] == [
        {"governing_law": {"op": "=", "value": "Delaware"}}
    ], "the rules plan the structured route from the model's reading"
    assert rows(values) == DELAWARE_CONTRACTS and calls(values) == [("decompose", "used"), ("compose", "used")]
    assert "Question: " + DELAWARE_QUESTION in model.prompts[0] and "- governing_law: text" in model.prompts[0]
    assert values["answer"].composed_by == "model"
    assert values["answer"].text.startswith("Three contracts are governed by Delaware law") and "| doc_id |" in (
        values["answer"].text
    )


def test_invalid_outputs_are_asked_again_once_then_the_rules_take_the_mode(stack):
    unknown_field = reading("contracts", "list", [condition("jurisdiction_of_mars", "=", "x")])
    values, _ = run(stack, [GARBAGE, unknown_field, GARBAGE, GARBAGE])
    assert [(c.field, c.value) for c in values["decomposition"].constraints] == [("governing_law", "Delaware")], (
        "the rule decomposer took over"
    )
    assert rows(values) == DELAWARE_CONTRACTS and values["answer"].composed_by != "model"
    assert calls(values) == [("decompose", "invalid")] * 2 + [("compose", "invalid")] * 2, "every call recorded"
    first, second = values["model_calls"][:2]
    assert "Invalid JSON" in first.detail and "conditions.0.field" in second.detail


def test_a_second_attempt_with_the_error_is_used_when_valid(stack):
    unknown_bucket = reading("recipes", "list", [condition("governing_law", "=", "Delaware")])
    values, _ = run(stack, [unknown_bucket, DELAWARE, LEAD])
    assert values["decomposition"].buckets == ["contracts"] and rows(values) == DELAWARE_CONTRACTS
    assert calls(values) == [("decompose", "invalid"), ("decompose", "used"), ("compose", "used")]
    assert "recipes" in values["model_calls"][0].detail


def test_an_invented_condition_is_dropped_and_the_call_says_so(stack):
    """A small model copies values from the fields it is shown: a condition the question never states is dropped."""
    invented = reading(
        "contracts",
        "list",
        [condition("governing_law", "=", "Delaware"), condition("notice_period_days", ">=", 90)],
    )
    values, _ = run(stack, [invented, LEAD])
    assert [c.field for c in values["decomposition"].constraints] == ["governing_law"]
    assert rows(values) == DELAWARE_CONTRACTS and calls(values) == [("decompose", "used"), ("compose", "used")]
    assert values["model_calls"][0].detail == "dropped, as the question states none of them: notice_period_days >= 90.0"


def test_a_date_the_question_never_says_is_dropped(stack):
    """The 1.5B model read "after the deal ends" as expiration_date = 2020-03-01, a date made up."""
    dated = reading(
        "contracts",
        "list",
        [condition("governing_law", "=", "Delaware"), condition("expiration_date", "=", "2020-03-01")],
    )
    values, _ = run(stack, [dated, LEAD])
    assert [c.field for c in values["decomposition"].constraints] == ["governing_law"]
    assert rows(values) == DELAWARE_CONTRACTS
    assert values["model_calls"][0].detail.endswith("states none of them: expiration_date = 2020-03-01")


def test_a_yes_no_clause_the_question_neither_names_nor_describes_is_dropped(stack):
    """A 1.5B model read "can one side walk away ... with notice" as termination for convenience and non-compete
    both, counting the contracts with the two: a yes/no clause is kept only where the question names it by its words
    or it is among the clauses closest in meaning to the question."""
    added = reading(
        "contracts", "list", [condition("governing_law", "=", "Delaware"), condition("audit_rights", "=", True)]
    )
    values, _ = run(stack, [added, LEAD])  # audit rights the furthest in meaning from the question (cosine 0.19)
    assert [c.field for c in values["decomposition"].constraints] == ["governing_law"]
    assert values["model_calls"][0].detail == "dropped, as the question states none of them: audit_rights = True"
    named = "Which contracts governed by Delaware law give audit rights?"
    values, _ = run(stack, [added, LEAD], question=named)
    assert [c.field for c in values["decomposition"].constraints] == ["governing_law", "audit_rights"]


def test_a_call_rejected_as_invalid_request_is_recovered(stack):
    """The model plans the searches of a question for text; a call the tool rejects is replaced by the rules'."""
    bad_plan = {
        "buckets": ["contracts"],
        "strategy": "hybrid",
        "max_tool_calls": 3,
        "calls": [
            {
                "tool": "search_text",
                "arguments": {
                    "bucket": "contracts",
                    "query": "limitation of liability",
                    "filters": {"colour": {"op": "=", "value": "red"}},
                },
            }
        ],
    }
    script = [
        reading("contracts", "text", [condition("governing_law", "=", "Delaware")]),
        reply({"kind": "hybrid", "fallback_order": ["long_text"], "reason": "clauses of Delaware contracts"}),
        reply(bad_plan),
        reply(ENOUGH),
        NOTHING,
    ]
    values, _ = run(stack, script, LIABILITY_QUESTION)
    statuses = [e.envelope.status for e in values["evidence"]]
    assert statuses[0] == "invalid_request" and "unknown field 'colour'" in values["evidence"][0].envelope.hint
    assert "recovering from rejected calls" in values["decisions"][1].reason
    assert statuses[-1] in ("ok", "low_confidence"), "the recovered search ran"
    assert values["decisions"][-1].reason == ENOUGH["reason"]
    recovered = {doc_id for e in values["evidence"][1:] for doc_id in e.envelope.doc_ids()}
    assert recovered and recovered <= DELAWARE_CONTRACTS, "the rules' calls, within the model's reading"
    planning = [("decompose", "used"), ("select_route", "used"), ("plan", "used"), ("review", "used")]
    assert calls(values) == [*planning, ("compose", "invalid")], "the compose call is recorded too"


def test_planner_llm_without_a_model_is_a_clear_error(stack, monkeypatch):
    from core.errors import InvalidInput

    for name in ("RAGENT_CHAT", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with (
        AgentServices.from_env() as services,
        pytest.raises(InvalidInput, match="needs a chat model: set RAGENT_CHAT=local"),
    ):
        services.planner(AgentContext(planner="llm"))
    with AgentServices(stack) as services:
        assert type(services.planner(AgentContext(planner="auto"))).__name__ == "RulePlanner"


# -- planner auto: the rules, and the model only where they run out ----------------------------------------------


def test_auto_makes_no_model_call_for_a_question_the_rules_read_whole(stack):
    values, model = run(stack, [], "How many Delaware contracts?", planner="auto")
    assert values["answer"].format == "figure" and values["answer"].value == len(DELAWARE_CONTRACTS)
    assert values["model_calls"] == [] and model.prompts == []


@pytest.mark.parametrize(
    ("question", "said", "why"),
    [
        (
            "How many contracts under Delaware law do we really hold?",
            reading("contracts", "count"),
            "its reading did not hold (Delaware); the rules' was kept",
        ),
        (
            "How many contracts have a notice period under 60 days?",
            reading("contracts", "count", [condition("notice_period_days", "<=", 60)]),
            "its reading dropped or changed a condition the rules read; theirs was kept",
        ),
    ],
    ids=["dropped", "changed"],
)
def test_auto_keeps_the_rules_reading_when_the_models_loses_one_of_their_conditions(stack, question, said, why):
    """Where the rules leave words, the model may add to their reading, never take from it."""
    ruled, _ = run(stack, [], question, planner="rules")
    values, model = run(stack, [said], question, planner="auto")
    assert len(model.prompts) == 1, "the rules left words: the model was asked"
    assert values["decomposition"].constraints == ruled["decomposition"].constraints
    assert values["answer"].value == ruled["answer"].value
    assert [(c.mode, c.outcome, c.detail) for c in values["model_calls"]] == [("decompose", "invalid", why)]


# -- route selection (a question answered from text) ----------------------------------------------------------


def route_with(stack, script: list[AIMessage], d: Decomposition, tried: list[str]):
    with AgentServices(stack) as services:
        model = ScriptedModel(messages=iter(script))
        planner = LLMPlanner(AgentContext(planner="llm", max_hits=7), services.catalog("default"), model, ChatBreaker())
        return planner.route(d, tried), planner


TEXT_QUESTION = Decomposition(question="How do I get onto the VPN from home?", intent="qa", buckets=["generic"])
COUNT_QUESTION = Decomposition(question="How many contracts are there?", intent="count", buckets=["contracts"])


NARROWED_TEXT_QUESTION = Decomposition(
    question="What do the Delaware contracts say about audits?",
    intent="qa",
    buckets=["contracts"],
    constraints=[Constraint(bucket="contracts", field="governing_law", op="=", value="Delaware")],
)


def test_the_models_route_is_taken_with_the_runs_cutoffs(stack):
    choice = {"kind": "long_text", "fallback_order": [], "reason": "the answer is in the contracts' text"}
    route, planner = route_with(stack, [reply(choice)], NARROWED_TEXT_QUESTION, [])
    assert (route.kind, route.fallback_order, route.max_hits) == ("long_text", [], 7) and planner.fallbacks == []
    assert [(c.mode, c.outcome) for c in planner.calls] == [("select_route", "used")]


def test_a_structured_questions_route_is_the_rules_without_a_model_call(stack):
    route, planner = route_with(stack, [], COUNT_QUESTION, [])
    assert route.kind == "structured" and planner.calls == []


def test_a_text_question_with_one_route_open_takes_it_without_a_model_call(stack):
    """No constraint to narrow by and not a lookup: only long_text is open, so there is nothing to ask a model."""
    route, planner = route_with(stack, [], TEXT_QUESTION, [])
    assert (route.kind, route.fallback_order) == ("long_text", []) and planner.calls == []


def test_the_route_schema_offers_only_the_routes_the_reading_leaves_open():
    """The schema the endpoint turns into a grammar: a small model cannot write a route the checks would refuse."""
    assert allowed_routes(TEXT_QUESTION, []) == ["long_text"]
    assert allowed_routes(NARROWED_TEXT_QUESTION, []) == ["hybrid", "long_text"]
    assert allowed_routes(NARROWED_TEXT_QUESTION.model_copy(update={"intent": "lookup"}), ["hybrid"]) == [
        "structured",
        "long_text",
    ]
    schema = route_choice(["hybrid", "long_text"]).model_json_schema()
    assert json.dumps(schema).count('"structured"') == 0


@pytest.mark.parametrize(
    "choice",
    [{"kind": "structured", "fallback_order": ["long_text"]}, {"kind": "hybrid", "fallback_order": ["hybrid"]}],
    ids=["structured-for-text", "a-route-twice"],
)
def test_a_route_outside_the_choices_or_twice_is_asked_again_then_left_to_the_rules(stack, choice):
    bad = reply({**choice, "reason": "a guess"})
    route, planner = route_with(stack, [bad, bad], NARROWED_TEXT_QUESTION, [])
    assert route == planner.rules.route(NARROWED_TEXT_QUESTION, [])
    assert planner.fallbacks == ["select_route: no usable answer after 2 attempts"]
    assert [(c.mode, c.outcome) for c in planner.calls] == [("select_route", "invalid")] * 2


WALK_AWAY = "In how many contracts can one side walk away whenever it likes, as long as it gives some notice?"
CONVENIENCE = {
    s.document.doc_id for s in sample.load() for a in s.annotations if a.row.get("termination_for_convenience") is True
}


def test_auto_offers_a_clause_the_question_describes_without_naming_rather_than_counting_it(stack):
    """A clause said in everyday words is a guess when several could be meant: asked about 30 clauses described
    blind, the 1.5B model's counts over such guesses were wrong more often than right. The run asks instead, the
    model's clause offered first, and the clause chosen is counted."""
    guess = reading("contracts", "count", [condition("termination_for_convenience", "=", True)])
    model = RecordingModel(messages=iter([guess]))
    with AgentServices(stack, chat_model=model) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": WALK_AWAY}, config, context=AgentContext(planner="auto"))
        state = agent.get_state(config)
        assert len(model.prompts) == 1, "the rules could not read it: the model was asked"
        assert state.values.get("answer") is None and state.interrupts, "no count over a guess: the run asks"
        first = state.interrupts[0].value["options"][0]
        assert (first["field"], first["value"]) == ("termination_for_convenience", True)
        assert "by notice alone" in first["label"], "the clause offered with what it means"
        assert "offered first, not counted" in state.values["model_calls"][0].detail
        chosen = {k: v for k, v in first.items() if k != "label"}
        agent.invoke(Command(resume=chosen), config, context=AgentContext(planner="auto"))
        answer = agent.get_state(config).values["answer"]
    assert CONVENIENCE and answer.format == "figure" and answer.value == len(CONVENIENCE)


def test_a_yes_no_field_described_alone_is_taken_and_one_among_others_is_offered():
    """A bucket of recipes: "veggie" names no field, yet `vegetarian` is the one yes/no field it can describe, and
    the model's reading of it is taken. Among several it might describe, the model's choice is a guess."""
    from graph.planners.model_reading import as_model_reading, reading_schema
    from retrievers.postgres.field_catalog import CatalogField

    fields = {
        name: CatalogField(kind="recipe", name=name, type="boolean", multi=False, doc_count=9, distinct_count=2,
                           examples=[True, False])
        for name in ("vegetarian", "spicy")
    }  # fmt: skip
    schema = reading_schema(["recipes"], list(fields.values()))
    said = {"field": "vegetarian", "op": "=", "value": "yes"}
    chosen = schema.model_validate({"bucket": "recipes", "asks": "count", "conditions": [said]})
    veggie, spicy = Candidate(field="vegetarian", value=True), Candidate(field="spicy", value=True)
    alone = as_model_reading("how many veggie dishes", chosen, fields, frozenset(), [veggie])
    assert [(c.field, c.value) for c in alone.reading.constraints] == [("vegetarian", "yes")] and not alone.guessed
    among = as_model_reading("how many veggie dishes", chosen, fields, frozenset(), [veggie, spicy])
    assert among.reading.constraints == [] and among.guessed == [veggie] and not among.dropped


def test_auto_keeps_a_list_the_rules_read_when_the_model_reads_a_count(stack):
    """Blind folder A with the 1.5B model: "which contracts give one side the right to audit ..." came back as a
    count. "Which ..." is never a count, nor "how many ..." a list: where the rules read one, it stays."""
    question = "Which Delaware contracts would you say matter most?"
    counted = reading("contracts", "count", [condition("governing_law", "=", "Delaware")])
    values, model = run(stack, [counted], question, planner="auto")
    assert len(model.prompts) == 1, "the rules left words: the model was asked"
    assert values["decomposition"].intent == "list" and values["answer"].format != "figure"
    assert rows(values) == DELAWARE_CONTRACTS and values["model_calls"][0].outcome == "used"


def test_auto_asks_as_the_rules_do_where_the_model_would_search_the_text_for_a_list(stack):
    """Blind folder D with the 1.5B model: "which of my contracts put software source code into escrow?", which
    the rules ask back about, was answered with passages that do not answer it: a list or figure the rules could
    not read is not turned into a search of the text."""
    values, model = run(stack, [reading("contracts", "text")], WALK_AWAY, planner="auto")
    assert len(model.prompts) == 1 and values.get("answer") is None, "the run asks, as the rules do"
    assert values["model_calls"][0].outcome == "invalid"
    assert "searched the text for a list or figure the rules read" in values["model_calls"][0].detail


def test_auto_keeps_a_list_the_rules_read_when_the_model_would_search_the_text(stack):
    """Blind set F with the 1.5B model: "Do any of my deals put software source code into escrow? Which ones?",
    a list the rules read whole but for a few words, came back as passages from any contract: a list or figure the
    rules read is not turned into a search of the text, whatever conditions the model kept."""
    question = "Which Delaware contracts would you say matter most?"
    searched = reading("contracts", "text", [condition("governing_law", "=", "Delaware")])
    values, model = run(stack, [searched], question, planner="auto")
    assert len(model.prompts) == 1 and values["decomposition"].intent == "list"
    assert rows(values) == DELAWARE_CONTRACTS and values["model_calls"][0].outcome == "invalid"


def test_a_planned_search_the_tool_would_not_take_is_refused_by_the_schema_and_a_whole_one_kept(stack):
    """Qwen2.5-Coder 1.5B planned `{"tool": "search_text", "arguments": {"keyword": ...}}`: no bucket, no query. The
    plan's schema is each text tool's own arguments, the bucket among the question's, so the grammar an endpoint
    makes of it admits no such call; a client that does not enforce it gets the refusal and asks again."""
    loose = {"max_tool_calls": 2, "calls": [{"tool": "search_text", "arguments": {"keyword": "audit rights"}}]}
    whole = {
        "max_tool_calls": 2,
        "calls": [{"tool": "fused_search", "arguments": {"bucket": "contracts", "query": "audit rights"}}],
    }
    with AgentServices(stack) as services:
        planner = LLMPlanner(
            AgentContext(planner="llm"),
            services.catalog("default"),
            ScriptedModel(messages=iter([reply(loose), reply(whole)])),
            ChatBreaker(),
        )
        route = Route(kind="long_text", fallback_order=[], min_hits=1, max_hits=20)
        plan = planner.plan(NARROWED_TEXT_QUESTION, route, Budget(cap=4))
    assert plan.calls == [ToolCall(tool="fused_search", arguments={"bucket": "contracts", "query": "audit rights"})]
    assert (plan.strategy, plan.max_tool_calls) == ("long_text", 2)
    assert [(c.mode, c.outcome) for c in planner.calls] == [("plan", "invalid"), ("plan", "used")]
    schema = json.dumps(planned_searches(["contracts", "receipts"]).model_json_schema())
    assert set(re.findall(r'"const": "(\w+)"', schema)) == {"search_text", "search_semantic", "fused_search"}
    assert set(re.findall(r'"enum": (\[[^]]*\])', schema)) >= {'["contracts", "receipts"]'}


def test_the_review_schema_offers_only_the_actions_the_run_can_take():
    """The 1.5B answered "more" with no calls left and no calls given, refused each time after the fact."""

    def actions(**run) -> list[str]:
        schema = decision_schema(["contracts"], **run).model_json_schema()
        return schema["properties"]["action"]["enum"]

    assert actions(calls_left=2, fallbacks=["long_text"]) == ["enough", "more", "clarify", "fallback"]
    assert actions(calls_left=0, fallbacks=[]) == ["enough", "clarify"]
