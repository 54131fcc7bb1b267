"""The eval runner in CI on two small slices of the question sets: the sample corpus's questions, and the dev
set's receipt questions on real SROIE data. Each question is a LangSmith test case (inputs, outputs and scores
are logged when LANGSMITH_TEST_TRACKING is on); a metric that falls below its floor recorded in
evals/questions/floors.json fails the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langsmith import testing

from evals.eval_corpus import ingest_datasets
from evals.question_eval import evaluate_questions, load_questions, metric_means
from graph.services import AgentServices
from tests.conftest import fresh_database, make_stack, shared_dataset

QUESTIONS = Path(__file__).resolve().parents[1] / "evals" / "questions"
FLOORS = json.loads((QUESTIONS / "floors.json").read_text())
SLICES = sorted(FLOORS)


@pytest.fixture(scope="module")
def sroie_stack(postgres_url, minilm, tmp_path_factory):
    shared_dataset("sroie")
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("sroie-slice"), minilm)
        ingest_datasets(stack, {"sample", "sroie"})
        yield stack
        stack.close()


@pytest.fixture(scope="module")
def records(request, sample_stack) -> dict[str, list[dict]]:
    """Every slice answered and scored once, each on the corpus its questions name."""
    answered = {}
    for name in SLICES:
        stack = sample_stack if name == "sample" else request.getfixturevalue(f"{name}_stack")
        with AgentServices(stack) as services:
            answered[name] = evaluate_questions(services, load_questions(QUESTIONS / f"{name}.jsonl"), name)
    return answered


@pytest.mark.langsmith
@pytest.mark.parametrize("name", SLICES)
def test_every_question_is_answered_with_valid_citations(records, name):
    for record in records[name]:
        testing.log_inputs({"id": record["id"], "question": record["question"]})
        testing.log_outputs({k: record[k] for k in ("answer_text", "cited_doc_ids", "value", "clarify_kind")})
        for key, score in record["scores"].items():
            testing.log_feedback(key=key, score=score)
        assert record["error"] is None, f"{record['id']}: {record['error']}"
        assert record["scores"].get("citation_validity", 1.0) == 1.0, f"{record['id']} cites outside its evidence"


@pytest.mark.langsmith
@pytest.mark.parametrize("name", SLICES)
def test_metrics_stay_at_or_above_their_recorded_floors(records, name):
    means = metric_means(records[name])
    below = {
        metric: (round(means[metric][0], 3), floor)
        for metric, floor in FLOORS[name].items()
        if means[metric][0] < floor
    }
    assert not below, f"{name}: metric (now, floor) below the recorded floor: {below}"
