"""What a user reads: the extractive answer without a model, and a chat model's answer only once code has checked
it. Chat models are scripted (langchain-core's fake chat model, which streams its text word by word like a real
one) to behave well and badly; the stalled endpoint is a real socket that never answers."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from chat.settings import ChatSettings
from core.errors import InvalidInput
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.llm_planner import LLMPlanner
from graph.services import AgentServices
from graph.state import current_evidence

VPN = "How do I connect to the VPN when working from home?"
VPN_DOC = "sample-generic-002"
GOOD = (
    "Install the VPN client from the Software Center on a company laptop [1]. "
    "Then enter vpn.example-corp.internal as the server and sign in with your usual account [1]."
)
FABRICATED = "Install the VPN client from the Software Center on a company laptop [9]."
WRONG_NUMBER = "Install the VPN client from the Software Center on 3 company laptops within 48 hours [1]."
IGNORES_EVIDENCE = "Paris is the capital of France and hosts the Louvre museum [1]."
UNCITED = "Sure! Use the VPN client on your laptop and sign in."
MALFORMED = '{"answer": "use the VPN", "citations": ["vpn-guide"]}'


class ComposingModel(GenericFakeChatModel):
    """Writes the scripted answers in order when asked to compose; declines every planning mode (its structured
    output fails), so the rules plan and the run reaches compose on real evidence."""

    def with_structured_output(self, schema, **kwargs):
        def decline(_):
            raise ValueError("this model only writes answers")

        return RunnableLambda(decline)


def script(*drafts: str) -> ComposingModel:
    return ComposingModel(messages=iter([AIMessage(d) for d in drafts]))


def ask(stack, model, question: str = VPN, stream: list | None = None) -> dict:
    with AgentServices(stack, chat_model=model) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        context = AgentContext(planner="llm" if model else "rules")
        for mode, chunk in agent.stream({"question": question}, config, context=context, stream_mode=["messages"]):
            if stream is not None and mode == "messages":
                stream.append(chunk[0])
        return agent.get_state(config).values


def cited_chunks(values: dict) -> set[tuple[str, str]]:
    return {(h.doc_id, h.chunk_id) for e in current_evidence(values) for h in e.envelope.passages()}


# -- without a model ------------------------------------------------------------------------------------------


def test_a_text_question_without_a_model_gets_a_few_cited_sentences_of_the_evidence(sample_stack):
    values = ask(sample_stack, None)
    answer = values["answer"]
    assert answer.format == "prose" and answer.composed_by == "extractive"
    assert 1 <= len(answer.sentences) <= 3 and answer.sentences[0].citations[0].doc_id == VPN_DOC
    passages = " ".join(h.snippet for e in current_evidence(values) for h in e.envelope.passages())
    for sentence in answer.sentences:
        assert sentence.text in passages, "every sentence is quoted from a passage of the run"
        assert {(c.doc_id, c.chunk_id) for c in sentence.citations} <= cited_chunks(values)
    assert answer.text.splitlines()[-1].startswith("Sources: sample-generic-002")
    assert len(answer.text) < 800


def test_a_question_nothing_answers_says_so_without_a_model(sample_stack):
    values = ask(sample_stack, None, "What is the airspeed velocity of an unladen swallow?")
    answer = values.get("answer")
    assert answer is None or answer.sentences == [] or answer.composed_by == "extractive"


# -- with a model: good and bad answers -----------------------------------------------------------------------


def test_a_correct_answer_is_the_models_with_every_sentence_checked_and_cited(sample_stack):
    answer = ask(sample_stack, script(GOOD))["answer"]
    assert answer.composed_by == "model" and answer.notes == []
    assert [s.verdict for s in answer.sentences] == ["supported", "supported"]
    assert answer.text.startswith("Install the VPN client from the Software Center on a company laptop. [sample")
    assert {c.doc_id for c in answer.citations} == {VPN_DOC}


def test_a_fabricated_citation_is_written_again_and_the_second_draft_is_used(sample_stack):
    answer = ask(sample_stack, script(FABRICATED, GOOD))["answer"]
    assert answer.composed_by == "model" and "[9]" not in answer.text
    assert (
        "draft 1 failed the checks" in answer.notes[0]
        and "cites [9], which is not an evidence item" in (answer.notes[0])
    )


@pytest.mark.parametrize(
    ("drafts", "reason"),
    [
        ((WRONG_NUMBER, WRONG_NUMBER), "the number 48 is not in the evidence it cites"),
        ((IGNORES_EVIDENCE, IGNORES_EVIDENCE), "does not hold most of its words"),
        ((UNCITED, UNCITED), "it cites no evidence"),
        ((MALFORMED, MALFORMED), "which is not an evidence item"),
        ((FABRICATED, WRONG_NUMBER), "the number 3 is not in the evidence it cites"),
    ],
    ids=["number-not-in-evidence", "ignores-evidence", "uncited", "malformed-json", "two-different-faults"],
)
def test_an_answer_that_fails_twice_is_never_shown_and_the_extractive_answer_is(sample_stack, drafts, reason):
    streamed: list = []
    answer = ask(sample_stack, script(*drafts), stream=streamed)["answer"]
    assert answer.composed_by == "extractive" and answer.sentences[0].citations[0].doc_id == VPN_DOC
    assert reason in " ".join(answer.notes) and "no draft passed the checks in 2 attempts" in answer.notes[-1]
    assert "48 hours" not in answer.text and "Paris" not in answer.text and "{" not in answer.text
    shown = "".join(m.content for m in streamed if isinstance(m, AIMessageChunk))
    assert "48 hours" not in shown and "Paris" not in shown and "[9]" not in shown, "nothing unchecked streamed"


def test_an_unsupported_sentence_is_dropped_and_kept_in_the_record(sample_stack):
    answer = ask(sample_stack, script(f"{GOOD} {IGNORES_EVIDENCE}"))["answer"]
    assert answer.composed_by == "model" and "Paris" not in answer.text
    verdicts = {s.text: s.verdict for s in answer.sentences}
    assert verdicts["Paris is the capital of France and hosts the Louvre museum."] == "unsupported"
    assert list(verdicts.values()).count("supported") == 2


# -- streaming --------------------------------------------------------------------------------------------------


def test_checked_sentences_stream_as_they_are_written_and_make_the_final_message(sample_stack):
    streamed: list = []
    values = ask(sample_stack, script(f"{GOOD} {IGNORES_EVIDENCE}"), stream=streamed)
    chunks = [m for m in streamed if isinstance(m, AIMessageChunk)]
    assert len(chunks) >= 3, "one chunk per checked sentence, then the sources"
    assert "".join(c.content for c in chunks) == values["answer"].text
    assert {c.id for c in chunks} == {values["messages"][-1].id}, "the final message is the one that streamed"
    assert not any("Paris" in c.content for c in chunks)
    assert not any('"intent"' in str(m.content) for m in streamed), "the planning calls' JSON is not streamed"


# -- a small model: the answer as JSON sentences with their items ------------------------------------------------


class JsonComposingModel(GenericFakeChatModel):
    """Answers compose's JSON schema (`RAGENT_CHAT_COMPOSE=json`) with the scripted replies, as a grammar-constrained
    endpoint does; declines every planning mode. Keeps the schemas it was given."""

    schemas: list = Field(default_factory=list)

    def with_structured_output(self, schema, **kwargs):
        if schema.__name__ != "Draft":
            return ComposingModel.with_structured_output(self, schema)
        self.schemas.append(schema)
        return self | RunnableLambda(
            lambda m: {"raw": m, "parsed": schema.model_validate_json(m.text), "parsing_error": None}
        )


def json_script(*drafts: dict) -> JsonComposingModel:
    return JsonComposingModel(messages=iter([AIMessage(json.dumps(d)) for d in drafts]))


GOOD_JSON = {
    "sentences": [
        {"text": "Install the VPN client from the Software Center on a company laptop.", "items": [1]},
        {"text": "Paris is the capital of France and hosts the Louvre museum.", "items": [1]},
    ],
}


def test_a_small_models_json_answer_cites_only_items_shown_and_is_checked_as_text_is(sample_stack, monkeypatch):
    """The 1.5B local model left most text drafts without their [n] markers; asked for JSON whose item numbers are
    an enum of the items shown, it can only cite items that exist, and what they say is checked as before."""
    monkeypatch.setenv("RAGENT_CHAT_COMPOSE", "json")
    model = json_script(GOOD_JSON)
    answer = ask(sample_stack, model)["answer"]
    assert answer.composed_by == "model" and "Paris" not in answer.text
    assert answer.text.startswith("Install the VPN client from the Software Center on a company laptop. [sample")
    assert [s.verdict for s in answer.sentences] == ["supported", "unsupported"]
    with pytest.raises(ValueError, match="Input should be"):  # only the numbers of the items shown can be written
        model.schemas[0].model_validate({"sentences": [{"text": "It is.", "items": [9]}]})


def test_a_small_model_that_finds_no_answer_leaves_the_extractive_one(sample_stack, monkeypatch):
    monkeypatch.setenv("RAGENT_CHAT_COMPOSE", "json")
    answer = ask(sample_stack, json_script({"sentences": []}))["answer"]
    assert answer.composed_by == "extractive" and answer.sentences[0].citations[0].doc_id == VPN_DOC
    assert "the chat model found no answer in the evidence" in answer.notes[0]


def test_a_small_models_json_reply_that_cannot_be_read_is_asked_again_then_left_to_the_rules(sample_stack, monkeypatch):
    """A reply cut short or not JSON is a draft that could not be read (asked once more), not "no answer"."""
    monkeypatch.setenv("RAGENT_CHAT_COMPOSE", "json")
    cut = JsonComposingModel(messages=iter([AIMessage('{"sentences": [{"text": "Install'), AIMessage("Sure!")]))
    answer = ask(sample_stack, cut)["answer"]
    assert answer.composed_by == "extractive" and answer.sentences[0].citations[0].doc_id == VPN_DOC
    assert [n.split(" (")[0] for n in answer.notes[:2]] == ["draft 1 could not be read", "draft 2 could not be read"]


def test_the_compose_format_is_a_setting_with_a_clear_error():
    assert ChatSettings.from_env({"RAGENT_CHAT": "local"}).compose == "json"
    assert ChatSettings.from_env({"OPENAI_API_KEY": "k"}).compose == "text"
    assert ChatSettings.from_env({"OPENAI_API_KEY": "k", "RAGENT_CHAT_COMPOSE": "JSON"}).compose == "json"
    with pytest.raises(InvalidInput, match="RAGENT_CHAT_COMPOSE must be text or json; it is 'yaml'"):
        ChatSettings.from_env({"RAGENT_CHAT_COMPOSE": "yaml"})


# -- a stalled endpoint ---------------------------------------------------------------------------------------


@pytest.fixture
def stalled_endpoint():
    """A server that accepts connections and never answers: what a hung model endpoint looks like to a client."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_a_stalled_endpoint_costs_one_timeout_and_the_rules_answer(sample_stack, stalled_endpoint):
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="m", api_key="k", base_url=stalled_endpoint, timeout=1.0, max_retries=0)
    values = ask(sample_stack, None)
    with AgentServices(sample_stack) as services:
        catalog = services.catalog("default")
        breaker = ChatBreaker()
        planner = LLMPlanner(AgentContext(planner="llm"), catalog, model, breaker)
        started = time.monotonic()
        answer = planner.compose(values["decomposition"], current_evidence(values), values["graded"])
    assert time.monotonic() - started < 10
    assert answer.composed_by == "extractive" and answer.notes[0].startswith("the chat model failed (")
    assert "TimeoutError" in answer.notes[0]
    assert breaker.is_open, "the next runs go to the rules without waiting on the endpoint again"


# -- a figure ---------------------------------------------------------------------------------------------------

PER_LAW = "How many contracts per governing law?"


def test_a_figure_keeps_the_computed_table_after_the_models_checked_words(sample_stack):
    answer = ask(sample_stack, script("There are 10 contracts, 3 of them under Delaware law [1]."), PER_LAW)["answer"]
    assert answer.format == "figure" and answer.value == 10 and answer.composed_by == "model"
    lead, computed = answer.text.split("\n\n", 1)
    assert lead.startswith("There are 10 contracts, 3 of them under Delaware law.") and "| Delaware | 3 |" in computed


def test_a_figure_the_model_gets_wrong_is_the_computed_one_alone(sample_stack):
    wrong = "There are 12 contracts, most of them under Delaware law [1]."
    answer = ask(sample_stack, script(wrong, wrong), PER_LAW)["answer"]
    assert answer.composed_by == "rules" and answer.value == 10 and "12" not in answer.text
    assert "the number 12 is not in the evidence it cites" in answer.notes[0]


@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        ("How many receipts are there?", "**8**: count over 8 documents of bucket receipts."),
        (
            "Total of receipts from Lakeside Taxi",
            "**54.75**: sum(total) over 1 documents of bucket receipts where company = Lakeside Taxi Co.",
        ),
        (
            "How many receipts have a total of at least 10 and at most 50?",
            "**2**: count over 2 documents of bucket receipts where total between 10 and 50.",
        ),
        (
            "How many contracts are not under New York law?",
            # every sample contract has a law recorded: nothing is left out, so nothing is said (test_honest_coverage)
            "**8**: count over 8 documents of bucket contracts where governing_law != New York.",
        ),
        (
            "How many receipts have a total of more than 23.14 and less than 100?",
            "**4**: count over 4 documents of bucket receipts where total > 23.14 and < 100.",
        ),
    ],
)
def test_a_computed_figure_is_one_sentence_that_names_only_the_constraints_it_has(sample_stack, question, first_line):
    """No "where no constraint", and no second full stop after a value that ends with one."""
    answer = ask(sample_stack, None, question)["answer"]
    assert answer.text.splitlines()[0] == first_line


def test_an_answer_that_retells_the_evidence_is_cut_after_six_sentences(sample_stack):
    sentence = "Install the VPN client from the Software Center on a company laptop [1]. "
    answer = ask(sample_stack, script(sentence * 9))["answer"]
    assert answer.composed_by == "model" and answer.text.count("Install the VPN client") == 6
    assert [s.problems for s in answer.sentences[6:]] == [["the answer is longer than 6 sentences"]] * 3
