"""A thread is a conversation: a follow-up ("which of those...", "and in 2026?") refines the previous turn's result,
an unrelated question starts afresh, and the state speaks LangGraph's chat convention (`messages` in and out).

The agent tests run the compiled graph with a checkpointer on the sample corpus; every expected set is computed
from the corpus's own labels. The unit tests at the end pin `is_follow_up` and `merge` without engines.
"""

from __future__ import annotations

import uuid
from datetime import date

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from core.errors import InvalidInput
from graph.answer.written import NO_ANSWER
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import DEFAULT_CONTEXT, AgentContext
from graph.decomposition import Constraint, Decomposition
from graph.follow_up import is_follow_up, merge
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.llm_planner import LLMPlanner
from graph.planners.rule_decomposer import RuleDecomposer
from graph.planners.rule_planner import RulePlanner
from graph.services import AgentServices
from retrievers.loaders import sample
from tests.fake_catalog import FakeCatalog
from tests.scripted_model import RecordingModel, condition, reading


@pytest.fixture(scope="module")
def agent(sample_services):
    return compile_agent(sample_services, InMemorySaver(serde=SERDE))


class Thread:
    """One conversation: every turn is a run on the same thread."""

    def __init__(self, agent, context: AgentContext = DEFAULT_CONTEXT):
        self.agent, self.context = agent, context
        self.config = {"configurable": {"thread_id": uuid.uuid4().hex}}

    def send(self, run_input: dict) -> dict:
        """The run's output, as a client gets it."""
        return self.agent.invoke(run_input, self.config, context=self.context)

    def ask(self, question: str) -> dict:
        return self.send({"question": question})

    @property
    def values(self) -> dict:
        return self.agent.get_state(self.config).values


def contracts(keep) -> set[str]:
    """The sample contracts whose own annotation rows satisfy `keep` (the reference answer)."""
    return {
        s.document.doc_id
        for s in sample.load()
        if s.document.bucket == "contracts" and any(keep(a.row) for a in s.annotations)
    }


def listed(output: dict) -> set[str]:
    assert output["answer"].format == "table", output["answer"].text
    return {r["doc_id"] for r in output["answer"].rows}


def under(law: str) -> set[str]:
    return contracts(lambda row: law in row.get("governing_law", []))


def short_notice() -> set[str]:
    return contracts(lambda row: any(days < 60 for days in row.get("notice_period_days", [])))


def chat(messages) -> list[tuple[str, str]]:
    return [(m.type, m.text) for m in messages]


@pytest.mark.parametrize(
    "law, flag, words",
    [
        ("Delaware", "termination_for_convenience", "termination for convenience"),
        ("New York", "exclusivity", "exclusivity"),
    ],
)
def test_which_of_those_lists_the_previous_result_narrowed_by_the_new_words(agent, law, flag, words):
    with_flag = contracts(lambda row: row.get(flag) is True)
    both = under(law) & with_flag
    assert both and both < under(law) and both < with_flag, "the sample must tell the three sets apart"
    thread = Thread(agent)
    first = f"Which contracts are under {law} law?"
    assert listed(thread.ask(first)) == under(law)
    narrowed = thread.ask(f"Which of those have {words}?")
    assert listed(narrowed) == both
    assert narrowed["decomposition"].follow_up_of == first, "the reading says it refined the previous turn"


def test_how_many_of_them_counts_the_previous_result(agent):
    thread = Thread(agent)
    thread.ask("Which contracts are under Delaware law?")
    counted = thread.ask("How many of them have termination for convenience?")
    expected = under("Delaware") & contracts(lambda row: row.get("termination_for_convenience") is True)
    assert counted["answer"].format == "figure" and counted["answer"].value == len(expected)


def test_and_in_another_year_replaces_the_period_and_keeps_what_was_asked(agent):
    def expiring(year: str) -> set[str]:
        return contracts(lambda row: (row.get("expiration_date") or "").startswith(year))

    def signed(year: str) -> set[str]:
        return contracts(lambda row: row["agreement_date"].startswith(year))

    listing = Thread(agent)
    assert listed(listing.ask("Which contracts expire in 2025?")) == expiring("2025")
    later = listing.ask("and in 2026?")
    assert expiring("2026") and listed(later) == expiring("2026"), "2026 replaced 2025, on the expiry date again"

    counting = Thread(agent)
    assert counting.ask("How many contracts were signed in 2022?")["answer"].value == len(signed("2022"))
    again = counting.ask("and in 2023?")
    assert len(signed("2023")) != len(signed("2022"))
    assert again["answer"].format == "figure" and again["answer"].value == len(signed("2023")), "still a count"


def test_an_unrelated_second_question_on_the_thread_is_not_merged(agent):
    thread = Thread(agent)
    thread.ask("Which contracts are under Delaware law?")
    assert short_notice() and not short_notice() & under("Delaware"), "a merge would answer nothing"
    second = thread.ask("Which contracts have a notice period under 60 days?")
    assert listed(second) == short_notice() and second["decomposition"].follow_up_of is None


def test_a_chat_input_is_answered_in_the_chat(agent):
    thread = Thread(agent)
    first = "Which contracts are under Delaware law?"
    output = thread.send({"messages": [{"role": "user", "content": first}]})
    assert listed(output) == under("Delaware") and thread.values["question"] == first
    assert chat(output["messages"]) == [("human", first), ("ai", output["answer"].text)]
    follow_up = "Which of those have termination for convenience?"
    output = thread.send({"messages": [{"role": "user", "content": follow_up}]})
    assert listed(output) == under("Delaware") & contracts(lambda row: row.get("termination_for_convenience"))
    assert [m.type for m in output["messages"]] == ["human", "ai", "human", "ai"]
    assert isinstance(output["messages"][-1], AIMessage) and output["messages"][-1].text == output["answer"].text


def test_a_question_input_still_works_and_joins_the_chat(agent):
    thread = Thread(agent)
    question = "Which contracts are under Delaware law?"
    output = thread.ask(question)
    assert listed(output) == under("Delaware")
    assert chat(output["messages"]) == [("human", question), ("ai", output["answer"].text)]
    mixed = thread.send({"messages": [HumanMessage("Which of those have termination for convenience?")]})
    assert len(mixed["messages"]) == 4 and mixed["decomposition"].follow_up_of == question


def test_a_question_left_open_is_not_answered_again_by_the_next_run(agent):
    thread = Thread(agent)
    open_question = "Which receipts have a total of more than 100000?"
    assert "__interrupt__" in thread.ask(open_question), "the run stops to ask (no_low)"
    assert chat(thread.values["messages"]) == [("human", open_question)]
    answered = thread.ask("Which contracts have a notice period under 60 days?")
    assert listed(answered) == short_notice()
    assert [m.type for m in answered["messages"]] == ["human", "human", "ai"]


@pytest.mark.parametrize(
    "run_input", [{}, {"messages": [{"role": "assistant", "content": "How can I help?"}]}, {"question": "  "}]
)
def test_a_run_with_no_question_is_refused_with_a_clear_error(agent, run_input):
    with pytest.raises(InvalidInput, match="the question must be non-empty text"):
        Thread(agent).send(run_input)


DELAWARE_QUESTION = "Which contracts are under Delaware law?"
DELAWARE = reading("contracts", "list", [condition("governing_law", "=", "Delaware")])
TFC_QUESTION = "Which of those have termination for convenience?"
TFC = reading("contracts", "list", [condition("termination_for_convenience", "=", True)])
"""The model's reading of the second turn: only what its words say; the merge keeps the first turn's condition."""
GARBAGE = AIMessage(content="no idea")
NOTHING = AIMessage(content=NO_ANSWER)
"""A compose reply that leaves the answer to the rules."""


def test_the_llm_planners_reading_of_a_follow_up_is_merged_and_the_rules_merge_when_it_fails(sample_stack):
    script = [DELAWARE, NOTHING, TFC, NOTHING, GARBAGE, GARBAGE, NOTHING]  # each turn: its reading, then compose
    model = RecordingModel(messages=iter(script))
    with AgentServices(sample_stack, chat_model=model) as services:
        thread = Thread(compile_agent(services, InMemorySaver(serde=SERDE)), AgentContext(planner="llm"))
        thread.ask(DELAWARE_QUESTION)
        asked = len(model.prompts)
        second = thread.ask(TFC_QUESTION)
        assert (
            model.prompts[asked].endswith(f"Question: {TFC_QUESTION}")
            and DELAWARE_QUESTION not in (model.prompts[asked])
        ), "the model reads the new question alone"
        assert second["decomposition"].follow_up_of == DELAWARE_QUESTION, "set from the previous reading"
        assert [(c.mode, c.outcome) for c in second["model_calls"]] == [("decompose", "used"), ("compose", "invalid")]
        expected = under("Delaware") & contracts(lambda row: row.get("termination_for_convenience"))
        assert listed(second) == expected

        third = thread.ask("How many of them were signed in 2025?")
        assert third["decomposition"].follow_up_of == TFC_QUESTION, "the rules took over and merged"
        assert [(c.mode, c.outcome) for c in third["model_calls"]] == [("decompose", "invalid")] * 2 + [
            ("compose", "invalid")
        ]
        signed = contracts(lambda row: row["agreement_date"].startswith("2025"))
        assert 0 < len(expected & signed) < len(expected) and third["answer"].value == len(expected & signed)


# -- is_follow_up and merge, without engines ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Which of those have audit rights?",
        "How many of them are exclusive?",
        "Among them, which expire in 2025?",
        "Are any of these governed by Delaware law?",
        "Only the Delaware ones",
        "and in 2018?",
        "And which are under New York law?",
        "What about New York?",
        "Same for invoices?",
        "What's their average total?",  # a set's recipes question: it averaged every recipe, not the Thai ones
        "and their total?",
    ],
)
def test_words_that_point_back_make_a_follow_up(question):
    assert is_follow_up(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which contracts are under Delaware law?",
        "Which contracts let either party terminate them for convenience?",
        "How many receipts are from Andromeda?",
        "What is the total of invoices in EUR?",
        "Who is the author of Themes of Anderson?",
        "Which contracts let a party end them before their term runs out?",
    ],
)
def test_a_question_that_stands_alone_is_not_a_follow_up(question):
    assert not is_follow_up(question)


def _c(field: str, op: str, value, bucket: str = "contracts") -> Constraint:
    return Constraint(bucket=bucket, field=field, op=op, value=value)


DELAWARE_2022 = Decomposition(
    question="How many contracts governed by Delaware law were signed in 2022?",
    intent="count",
    buckets=["contracts"],
    constraints=[
        _c("governing_law", "=", "Delaware"),
        _c("agreement_date", "between", ["2022-01-01", "2022-12-31"]),
    ],
    aggregate="count",
    group_by=["contract_type"],
)


def test_a_new_constraint_replaces_the_one_on_its_field_and_the_others_stay():
    current = Decomposition(
        question="and under New York law?",
        intent="list",
        buckets=["contracts"],
        constraints=[_c("governing_law", "=", "New York")],
    )
    merged = merge(DELAWARE_2022, current)
    assert [(c.field, c.value) for c in merged.constraints] == [
        ("agreement_date", ["2022-01-01", "2022-12-31"]),
        ("governing_law", "New York"),
    ]
    assert (merged.intent, merged.aggregate, merged.group_by) == ("count", "count", ["contract_type"]), (
        "no intent stated: the previous count, per contract type, stays"
    )
    assert merged.question == "and under New York law?" and merged.follow_up_of == DELAWARE_2022.question


def test_a_bare_period_takes_the_previous_date_field():
    current = Decomposition(
        question="and in 2023?",
        intent="list",
        buckets=["contracts"],
        constraints=[_c("effective_date", "between", ["2023-01-01", "2023-12-31"])],
    )
    merged = merge(DELAWARE_2022, current)
    assert [(c.field, c.value) for c in merged.constraints] == [
        ("governing_law", "Delaware"),
        ("agreement_date", ["2023-01-01", "2023-12-31"]),
    ]
    named = current.model_copy(update={"question": "and those effective in 2023?"})
    assert [c.field for c in merge(DELAWARE_2022, named).constraints] == [
        "governing_law",
        "agreement_date",
        "effective_date",
    ], "a date field the words name is a new constraint"


def test_a_stated_intent_wins_and_its_figure_follows():
    listing = Decomposition(
        question="Which of those have audit rights?",
        intent="list",
        buckets=["contracts"],
        constraints=[_c("audit_rights", "=", True)],
        topic_terms=["only"],
        show_fields=["parties"],
    )
    merged = merge(DELAWARE_2022, listing)
    assert (merged.intent, merged.aggregate, merged.group_by) == ("list", None, [])
    assert merged.show_fields == ["parties"] and merged.topic_terms == []
    assert [c.field for c in merged.constraints] == ["governing_law", "agreement_date", "audit_rights"]


def test_the_previous_constraints_stay_in_their_buckets():
    invoices = Decomposition(
        question="Same for invoices in EUR?",
        intent="list",
        buckets=["invoices"],
        constraints=[_c("currency", "=", "EUR", bucket="invoices")],
    )
    merged = merge(DELAWARE_2022, invoices)
    assert merged.buckets == ["invoices"] and [(c.bucket, c.field) for c in merged.constraints] == [
        ("invoices", "currency")
    ]
    assert merged.intent == "count" and merged.group_by == [], "still a count, not per a field of contracts"


# -- the readings of a conversation's turns, over a fake catalog of the sample corpus (no engine) --------------------

FAKE = FakeCatalog.sample()
PLANNER = RulePlanner(AgentContext(), FAKE, RuleDecomposer(FAKE, today=date(2025, 6, 15)))


def _turns(*questions: str) -> list[Decomposition]:
    readings: list[Decomposition] = []
    for question in questions:
        readings.append(PLANNER.decompose(question, readings[-1] if readings else None))
    return readings


def _said(d: Decomposition) -> list[tuple[str, str, object]]:
    return [(c.field, c.op, c.value) for c in d.constraints]


@pytest.mark.parametrize(
    "law, flag, words",
    [
        ("Delaware", "termination_for_convenience", "termination for convenience"),
        ("New York", "exclusivity", "exclusivity"),
    ],
)
def test_reading_which_of_those_narrows_the_previous_reading_by_the_new_words(law, flag, words):
    first = f"Which contracts are under {law} law?"
    _, narrowed = _turns(first, f"Which of those have {words}?")
    assert narrowed.follow_up_of == first, "the reading says it refined the previous turn"
    assert (narrowed.intent, _said(narrowed)) == ("list", [("governing_law", "=", law), (flag, "=", True)])


def test_reading_how_many_of_them_counts_the_previous_reading():
    _, counted = _turns("Which contracts are under Delaware law?", "How many of them have termination for convenience?")
    assert (counted.intent, counted.aggregate) == ("count", "count")
    assert _said(counted) == [("governing_law", "=", "Delaware"), ("termination_for_convenience", "=", True)]


def test_a_turn_within_the_previous_result_keeps_its_condition_on_the_same_field():
    """ "Which of them are also governed by Delaware law?" after New York asks within the New York contracts (before:
    the Delaware condition replaced New York's, and the answer listed the Delaware contracts as if they were among
    them)."""
    first, also = _turns(
        "How many contracts are under New York law?", "Which of them are also governed by Delaware law?"
    )
    assert _said(also) == _said(first) == [("governing_law", "=", "New York")], "never the Delaware contracts alone"
    assert [u.text for u in also.unmapped] == ["Delaware"] and "New York" in str(also.unmapped[0].why)
    _, either = _turns("Which contracts are under New York or Delaware law?", "Which of those are under Delaware law?")
    assert _said(either) == [("governing_law", "=", "Delaware")], "the value both allow"
    _, both_years = _turns("Which contracts expire between 2024 and 2026?", "Which of those expire in 2025?")
    assert _said(both_years) == [("expiration_date", "between", ["2025-01-01", "2025-12-31"])], "the range both allow"
    _, no_year = _turns("Which contracts expire in 2024?", "Which of those expire in 2025?")
    assert _said(no_year) == [("expiration_date", "between", ["2024-01-01", "2024-12-31"])] and no_year.unmapped


def test_reading_and_in_another_year_replaces_the_period_and_keeps_what_was_asked():
    _, later = _turns("Which contracts expire in 2025?", "and in 2026?")
    assert (later.intent, _said(later)) == ("list", [("expiration_date", "between", ["2026-01-01", "2026-12-31"])])
    _, again = _turns("How many contracts were signed in 2022?", "and in 2023?")
    assert (again.intent, again.aggregate) == ("count", "count"), "still a count"
    assert _said(again) == [("agreement_date", "between", ["2023-01-01", "2023-12-31"])]


def test_reading_an_unrelated_second_question_is_not_merged():
    _, second = _turns("Which contracts are under Delaware law?", "Which contracts have a notice period under 60 days?")
    assert second.follow_up_of is None and _said(second) == [("notice_period_days", "<", 60)]


def test_the_llm_planners_reading_of_a_follow_up_is_merged_and_the_rules_merge_when_it_fails_over_a_fake_catalog():
    model = RecordingModel(messages=iter([DELAWARE, TFC, GARBAGE, GARBAGE]))
    planner = LLMPlanner(AgentContext(planner="llm"), FAKE, model, ChatBreaker(), PLANNER.decomposer)
    first = planner.decompose(DELAWARE_QUESTION)
    second = planner.decompose(TFC_QUESTION, first)
    assert "Previous decomposition" not in model.prompts[1] and DELAWARE_QUESTION not in model.prompts[1]
    assert second.follow_up_of == DELAWARE_QUESTION, "set from the previous reading"
    assert _said(second) == [("governing_law", "=", "Delaware"), ("termination_for_convenience", "=", True)]
    third = planner.decompose("How many of them were signed in 2025?", second)
    assert third.follow_up_of == TFC_QUESTION, "the rules took over and merged"
    assert (third.intent, third.aggregate) == ("count", "count")
    assert [c.field for c in third.constraints] == ["governing_law", "termination_for_convenience", "agreement_date"]
    assert [(c.mode, c.outcome) for c in planner.calls] == [("decompose", "used")] * 2 + [("decompose", "invalid")] * 2
