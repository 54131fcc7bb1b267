"""The eval runner as a user meets it: question files checked line by line, evaluators that score what they say,
model judges that run with a model and are skipped without one, and `ragent eval --beir` on a small BEIR folder."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage
from langgraph.types import Command
from pydantic import BaseModel

from evals import question_eval
from evals.agent_target import AgentTarget, _added
from evals.beir_eval import run_beir
from evals.evaluators import citation_validity, model_judges, number_groundedness, numbers_in, value_exact
from evals.question_eval import Question, evaluate_questions
from tests.scripted_model import ScriptedModel
from tests.test_cli import _one_line_error, ragent

GOOD = {
    "id": "q1",
    "question": "How many contracts?",
    "kind": "count",
    "expected": {"value": 3},
    "datasets": ["sample"],
}


@pytest.mark.parametrize(
    "line, reason",
    [
        ("{not json", "Invalid JSON"),
        (json.dumps({**GOOD, "kind": "poem"}), "kind 'poem' is not one of"),
        (json.dumps({**GOOD, "expected": {"doc_ids": []}}), "a count question needs expected.value"),
        (json.dumps({**GOOD, "context": {"export_dir": "/etc"}}), "context.export_dir: Unexpected keyword argument"),
        (json.dumps({**GOOD, "colour": "red"}), "colour: Extra inputs are not permitted"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "question"}), "question: Field required"),
        (json.dumps({**GOOD, "turns": ["How many NDAs?", "and contracts?"]}), "the last of turns must be the question"),
        (json.dumps({**GOOD, "turns": ["How many contracts?"]}), "turns must hold two or more non-empty questions"),
    ],
)
def test_a_bad_question_line_stops_the_run_with_its_line_number(tmp_path, line, reason):
    questions = tmp_path / "set.jsonl"
    questions.write_text(json.dumps(GOOD) + "\n" + line + "\n")
    error = _one_line_error(ragent("eval", "--questions", str(questions), home=tmp_path))
    assert "set.jsonl:2:" in error and reason in error


def test_repeated_ids_and_unknown_datasets_are_refused(tmp_path):
    questions = tmp_path / "set.jsonl"
    questions.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n")
    assert "question ids repeat: ['q1']" in _one_line_error(
        ragent("eval", "--questions", str(questions), home=tmp_path)
    )
    questions.write_text(json.dumps({**GOOD, "datasets": ["imdb"]}) + "\n")
    assert "unknown dataset(s) ['imdb']" in _one_line_error(
        ragent("eval", "--questions", str(questions), home=tmp_path)
    )


def test_a_given_home_is_evaluated_as_it_is_not_filled_with_the_named_datasets(tmp_path):
    """`--home` names a folder already holding the corpus; the datasets a question names are what its expected
    answer was computed on, not something to add to that folder."""
    questions = tmp_path / "set.jsonl"
    questions.write_text(json.dumps(GOOD) + "\n")
    home = tmp_path / "given"
    evaluated = ragent(
        "eval", "--questions", str(questions), "--home", str(home), "--out", str(tmp_path / "out"), home=tmp_path
    )
    assert evaluated.returncode == 0, evaluated.stderr
    stats = ragent("stats", "--json", home=home)
    assert stats.returncode == 0 and json.loads(stats.stdout)["store"]["documents"] == 0, stats.stdout


def test_numbers_are_read_on_their_own_not_inside_ids_and_dates():
    assert numbers_in("sample-contract-006 signed 2018-03-01 for 1,234.50 EUR, 3 rows.") == {1234.5, 3.0}


def test_number_groundedness_is_the_share_of_stated_numbers_found_in_the_evidence():
    outputs = {"answer_text": "Total 55.00 over 2 receipts, about 99 each", "evidence_numbers": [2.0, 55.0]}
    assert number_groundedness(outputs, {"kind": "sum"})["score"] == pytest.approx(2 / 3)


def test_a_citation_outside_the_evidence_is_invalid():
    outputs = {
        "citations": [
            {"doc_id": "a", "annotation_id": None, "chunk_id": "a#1"},
            {"doc_id": "b", "annotation_id": None, "chunk_id": None},
        ],
        "evidence_keys": [["a", None, "a#1"]],
    }
    assert citation_validity(outputs, {"kind": "qa"})["score"] == 0.0
    assert citation_validity({**outputs, "citations": outputs["citations"][:1]}, {"kind": "qa"})["score"] == 1.0


def test_values_are_exact_within_half_a_percent():
    reference = {"kind": "sum", "expected": {"value": 1000.0}}
    assert value_exact({"value": 1004.9}, reference)["score"] == 1.0
    assert value_exact({"value": 1005.1}, reference)["score"] == 0.0
    assert value_exact({"value": None}, reference)["score"] == 0.0
    assert value_exact({"value": 3}, {"kind": "list", "expected": {"doc_ids": []}})["score"] is None


def test_model_judges_are_skipped_without_a_model_and_score_with_one():
    judges, reason = model_judges(None)
    assert judges == [] and "skipped: no chat model configured" in reason
    verdict = AIMessage(
        content="", tool_calls=[{"name": "Verdict", "args": {"score": 0.5, "reasoning": "half"}, "id": "call_1"}]
    )
    judges, reason = model_judges(ScriptedModel(messages=iter([verdict, verdict])))
    correctness, faithfulness = judges
    outputs = {"answer_text": "New York", "clarify_kind": None, "evidence_text": "governed by the laws of New York"}
    assert reason is None
    assert correctness({"question": "Which law?"}, outputs, {"kind": "lookup", "expected": {"answer": "New York"}}) == {
        "key": "judged_correctness",
        "score": 0.5,
        "comment": "half",
    }
    assert faithfulness(outputs)["score"] == 0.5


class Cited(BaseModel):
    doc_id: str
    annotation_id: str | None = None
    chunk_id: str | None = None


class ScriptedAgent:
    """Stands in for the compiled graph: one state per thread id, every invoke recorded in order. "which of those
    ..." keeps the documents of the thread's previous answer that have audit rights (nothing without one); a
    question starting with "everything" stops to ask for a clarification (overload)."""

    AUDIT_RIGHTS = {"c1", "c3"}

    def __init__(self):
        self.asked: list[tuple[str, str]] = []
        self.threads: dict[str, dict] = {}

    def invoke(self, inputs, config, context=None):
        thread = config["configurable"]["thread_id"]
        state = self.threads.setdefault(thread, {"values": {"answer": None, "evidence": []}, "interrupts": ()})
        if isinstance(inputs, Command):
            self.asked.append((thread, f"resume {inputs.resume}"))
            state["interrupts"] = ()
            return
        question = inputs["question"]
        self.asked.append((thread, question))
        if question.startswith("everything"):
            state["interrupts"] = (SimpleNamespace(value={"kind": "overload"}),)
            return
        if question.startswith("which of those"):
            before = state["values"]["answer"]
            cited = [c.doc_id for c in before.citations if c.doc_id in self.AUDIT_RIGHTS] if before else []
        else:
            cited = ["c1", "c2", "c3"]
        answer = SimpleNamespace(
            text=", ".join(cited), format="list", value=None, citations=[Cited(doc_id=d) for d in cited]
        )
        state["values"] = {**state["values"], "question": question, "answer": answer}

    def get_state(self, config):
        state = self.threads[config["configurable"]["thread_id"]]
        return SimpleNamespace(values=dict(state["values"]), interrupts=state["interrupts"])


class ScriptedTarget(AgentTarget):
    def __init__(self, services, context=question_eval.DEFAULT_CONTEXT, agent=question_eval.DEFAULT_AGENT):
        self.agent, self.context = services.agent, context


def test_a_follow_up_runs_its_turns_in_order_on_one_thread_and_is_scored_on_the_last(monkeypatch):
    monkeypatch.setattr(question_eval, "AgentTarget", ScriptedTarget)
    agent = ScriptedAgent()
    first, follow_up = "Which contracts are under New York law?", "which of those have audit rights?"
    expected = {"doc_ids": ["c1", "c3"]}
    questions = [
        Question(id="two", question=follow_up, turns=[first, follow_up], kind="list", expected=expected),
        Question(id="alone", question=follow_up, kind="list", expected=expected),
        Question(
            id="stopped",
            question=follow_up,
            turns=["everything under new york law", follow_up],
            kind="list",
            expected=expected,
            resume={"choice": "stop"},  # answers a clarification of the last turn only
        ),
    ]
    records = {r["id"]: r for r in evaluate_questions(SimpleNamespace(chat_model=None, agent=agent), questions, "t")}

    # The follow-up's two turns went, in order, to one thread of their own; the last turn's answer is scored.
    threads = [thread for thread, _ in agent.asked]
    assert [q for _, q in agent.asked[:2]] == [first, follow_up] and threads[0] == threads[1]
    assert len(set(threads)) == 3
    two = records["two"]
    assert two["cited_doc_ids"] == ["c1", "c3"] and two["scores"]["list_f1"] == 1.0 and two["failed_turn"] is None
    assert [t["question"] for t in two["turns"]] == [first, follow_up]
    assert two["latency_ms"] == two["turns"][-1]["latency_ms"]

    # The same words asked alone, on a fresh thread, have nothing to refine; nor does the record speak of turns.
    assert records["alone"]["scores"]["list_f1"] == 0.0 and "turns" not in records["alone"]

    # A first turn that asks for a clarification ends the conversation: scored as failed, recorded, no crash.
    stopped = records["stopped"]
    assert stopped["failed_turn"] == {"turn": 1, "of": 2, "clarify_kind": "overload"} and stopped["error"] is None
    assert stopped["scores"]["list_f1"] == 0.0 and stopped["clarify_kind"] is None and stopped["latency_ms"] is None
    assert [q for t, q in agent.asked if t == threads[-1]] == ["everything under new york law"]
    summary = question_eval.summarise(list(records.values()))
    assert summary["follow-ups"] == 2 and summary["follow-ups stopped before the last turn"] == 1


def test_a_judge_reads_the_whole_conversation_of_a_follow_up():
    read = []

    def correctness(inputs, outputs, reference_outputs):
        read.append(inputs["question"])
        return {"key": "judged_correctness", "score": 1.0}

    def faithfulness(outputs):
        return {"key": "judged_faithfulness", "score": 1.0}

    judge = question_eval.conversation_judge(correctness)
    judge({"question": "and in dollars?", "turns": ["how many euro invoices", "and in dollars?"]}, {}, {})
    judge({"question": "how many invoices?"}, {}, {})
    assert "(turn 1) how many euro invoices\n(turn 2) and in dollars?" in read[0] and read[1] == "how many invoices?"
    assert question_eval.conversation_judge(faithfulness) is faithfulness


def test_a_turn_counts_the_tool_calls_it_added_to_the_thread():
    assert _added([1, 2], [1, 2, 3]) == [3]  # the thread keeps the earlier turn's evidence
    assert _added([1, 2], [4]) == [4]  # the turn started its evidence afresh
    assert _added([], [5]) == [5]


def test_beir_eval_scores_every_search_mode_and_the_agent(tmp_path, monkeypatch, database_url):
    beir = tmp_path / "tiny"
    (beir / "qrels").mkdir(parents=True)
    topics = {
        "d1": ("Solar panels", "Photovoltaic cells turn sunlight into electricity on rooftops."),
        "d2": ("Sourdough", "A sourdough starter ferments flour and water with wild yeast."),
        "d3": ("Glaciers", "Glaciers retreat as summer melt exceeds winter snowfall."),
        "d4": ("Chess openings", "The Sicilian Defence answers 1.e4 with c5."),
    }
    (beir / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": d, "title": t, "text": x}) + "\n" for d, (t, x) in topics.items())
    )
    queries = {
        "q1": "how do solar cells make electricity",
        "q2": "wild yeast bread starter",
        "q3": "why are glaciers shrinking",
    }
    (beir / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n")
    monkeypatch.setenv("RAGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DATABASE_URL", database_url)
    summary = run_beir(beir, split="test", out=tmp_path / "out")
    for mode in ("keyword", "semantic", "fused", "agent"):
        assert summary[f"{mode} ndcg@10 (n=3)"] == 1.0 and summary[f"{mode} recall@100 (n=3)"] == 1.0
    records = json.loads((tmp_path / "out" / "eval-beir-tiny-test.json").read_text())["records"]
    assert [r["top10"]["agent"][0] for r in records] == ["d1", "d2", "d3"] and all(r["tool_calls"] for r in records)
    assert "| agent ndcg@10 (n=3) | 1.0 |" in (tmp_path / "out" / "eval-beir-tiny-test.md").read_text()
