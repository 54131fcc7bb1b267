"""The eval runner in CI on small slices of the question sets: the sample corpus's questions, the dev set's receipt
questions on real SROIE data, and the natural-phrasing questions that a small real corpus (the sample corpus, SROIE
and the invoices dataset) can answer. Each question is a LangSmith test case (inputs, outputs and scores are logged
when LANGSMITH_TEST_TRACKING is on); a metric that falls below its floor fails the run, naming the questions that
pulled it down.

evals/questions/floors.json declares every slice:

    "natural": {"questions": "natural.jsonl",              # the question file, under evals/questions/
                "datasets": ["invoices", "sample", "sroie"],  # the corpus ingested for it
                "buckets": ["receipts", ...],                 # optional: keep the questions whose buckets all lie here
                "exclude_kinds": ["qa"],                      # optional: leave these kinds out
                "floors": {"list_f1": 0.5, ...}}              # metric -> the lowest mean CI accepts

An item's `buckets` covers every turn of a follow-up (the natural set's generator asks both turns of a conversation
in one bucket), so the bucket filter keeps only conversations that stay within the slice's buckets. Questions are
answered exactly as `ragent eval` answers them: their `context` (max_hits ...), `resume` and `turns` hold. Slices
on real data skip cleanly where ../shared/data lacks a dataset they ingest.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from langsmith import testing

from evals.eval_corpus import ingest_datasets
from evals.question_eval import Question, evaluate_questions, load_questions, metric_means
from graph.services import AgentServices
from retrievers import loaders
from tests.conftest import fresh_database, make_stack, shared_dataset

QUESTIONS = Path(__file__).resolve().parents[1] / "evals" / "questions"
SPECS: dict[str, dict[str, Any]] = json.loads((QUESTIONS / "floors.json").read_text())
SLICES = sorted(SPECS)
SHOWN_IDS = 12
"""How many document ids of a list a failure report shows."""


def slice_questions(name: str) -> list[Question]:
    """The questions of a slice, as its declaration in floors.json selects them."""
    spec = SPECS[name]
    buckets = set(spec["buckets"]) if "buckets" in spec else None
    excluded = set(spec.get("exclude_kinds", []))
    return [
        q
        for q in load_questions(QUESTIONS / spec["questions"])
        if q.kind not in excluded and (buckets is None or (q.buckets and set(q.buckets) <= buckets))
    ]


def _feeding(datasets: set[str], buckets: set[str]) -> set[str]:
    """The datasets among `datasets` that put documents in one of `buckets`."""
    return {d for d in datasets if set(loaders.field_specs(d)) & buckets}


@pytest.mark.parametrize("name", SLICES)
def test_each_slice_is_scored_on_the_corpus_its_gold_was_computed_on(name):
    """A slice's corpus may be smaller than the one its questions' gold was computed on (the natural set's is every
    dataset) only by datasets that add nothing to the buckets asked about: the gold stays right on it."""
    spec, questions = SPECS[name], slice_questions(name)
    assert questions, f"{name}: the declaration selects no question"
    assert spec["floors"], f"{name}: no floors recorded"
    ingested = set(spec["datasets"])
    for q in questions:
        buckets = set(q.buckets)
        assert buckets, f"{name}: {q.id} names no bucket, so any dataset may hold its answer"
        assert _feeding(ingested, buckets) == _feeding(set(q.datasets), buckets), (
            f"{name}: {q.id}'s gold over {sorted(buckets)} was computed on {sorted(_feeding(set(q.datasets), buckets))}"
            f", the slice ingests {sorted(_feeding(ingested, buckets))}"
        )


@pytest.fixture(scope="module")
def corpus(postgres_url, minilm, tmp_path_factory, sample_stack):
    """The stack with a set of datasets ingested, built once per set for the module (the sample corpus alone is the
    session's sample stack); a dataset missing from ../shared/data skips the slice that needs it."""
    built = {}
    with ExitStack() as cleanup:

        def stack_with(datasets: list[str]):
            key = frozenset(datasets)
            if key == {"sample"}:
                return sample_stack
            for dataset in sorted(key):
                if loaders.DATASETS[dataset].SHARED_FOLDER:
                    shared_dataset(loaders.DATASETS[dataset].SHARED_FOLDER)
            if key not in built:
                url = cleanup.enter_context(fresh_database(postgres_url))
                stack = make_stack(url, tmp_path_factory.mktemp("+".join(sorted(key))), minilm)
                cleanup.callback(stack.close)
                ingest_datasets(stack, set(key))
                built[key] = stack
            return built[key]

        yield stack_with


@pytest.fixture(scope="module")
def answered() -> dict[str, list[dict]]:
    return {}


@pytest.fixture
def scored(request, corpus, answered) -> tuple[str, list[dict]]:
    """The slice (the test's parameter) and its records: answered and scored once for the module, on the corpus
    the slice declares."""
    name = request.param
    if name not in answered:
        stack = corpus(SPECS[name]["datasets"])
        with AgentServices(stack) as services:
            answered[name] = evaluate_questions(services, slice_questions(name), name)
    return name, answered[name]


def _got(record: dict) -> dict[str, Any]:
    """What the run answered, in the terms of the question's kind."""
    kind = record["kind"]
    if kind in ("list", "qa"):
        ids = record["cited_doc_ids"] or []
        got: dict[str, Any] = {
            "doc_ids": ids[:SHOWN_IDS] + ([f"... {len(ids)} in all"] if len(ids) > SHOWN_IDS else [])
        }
    elif kind in ("count", "sum"):
        got = {"value": record["value"]}
    elif kind == "lookup":
        got = {"answer": (record["answer_text"] or "")[:200]}
    else:
        got = {}
    if got in ({"value": None}, {"doc_ids": []}) and record["answer_text"]:  # no figure or list: what it said instead
        got["answer"] = record["answer_text"][:200]
    if record["clarify_kind"] is not None or kind == "clarify":
        got["clarify"] = record["clarify_kind"]
    if record.get("failed_turn"):
        got["failed_turn"] = record["failed_turn"]
    return got


def _expected(question: Question) -> dict[str, Any]:
    ids = question.expected.get("doc_ids")
    if ids is not None and len(ids) > SHOWN_IDS:
        return {**question.expected, "doc_ids": [*ids[:SHOWN_IDS], f"... {len(ids)} in all"]}
    return question.expected


def missed(name: str, records: list[dict], metric: str) -> list[str]:
    """One line per question scored below 1 on `metric`, worst first: id, score, question, expected, got."""
    questions = {q.id: q for q in slice_questions(name)}
    scored = sorted(
        (r for r in records if r["scores"].get(metric, 1.0) < 1.0), key=lambda r: (r["scores"][metric], r["id"])
    )
    return [
        f"  {r['id']} ({r['kind']}, {metric}={round(r['scores'][metric], 3)}) "
        f"{' / '.join(questions[r['id']].turns or [r['question']])!r}: "
        f"expected {json.dumps(_expected(questions[r['id']]))}, got {json.dumps(_got(r), default=str)}"
        for r in scored
    ]


@pytest.mark.langsmith
@pytest.mark.parametrize("scored", SLICES, indirect=True)
def test_every_question_is_answered_with_valid_citations(scored):
    _, records = scored
    for record in records:
        testing.log_inputs({"id": record["id"], "question": record["question"], "turns": record.get("turns")})
        testing.log_outputs({k: record[k] for k in ("answer_text", "cited_doc_ids", "value", "clarify_kind")})
        for key, score in record["scores"].items():
            testing.log_feedback(key=key, score=score)
        assert record["error"] is None, f"{record['id']}: {record['error']}"
        assert record["scores"].get("citation_validity", 1.0) == 1.0, f"{record['id']} cites outside its evidence"


@pytest.mark.langsmith
@pytest.mark.parametrize("scored", SLICES, indirect=True)
def test_metrics_stay_at_or_above_their_recorded_floors(scored):
    name, records = scored
    means = metric_means(records)
    print(f"{name}: {len(records)} questions; " + ", ".join(f"{k} {v:.3f} (n={n})" for k, (v, n) in means.items()))
    floors = SPECS[name]["floors"]
    unscored = sorted(set(floors) - set(means))
    assert not unscored, f"{name}: no question of the slice was scored on {unscored}"
    below = {
        metric: (round(means[metric][0], 3), floor) for metric, floor in floors.items() if means[metric][0] < floor
    }
    report = [
        f"{metric}: now {now}, floor {floor}; the questions below 1:\n" + "\n".join(missed(name, records, metric))
        for metric, (now, floor) in below.items()
    ]
    if report:
        print("\n".join(report))
    assert not below, f"{name}: metric (now, floor) below the recorded floor: {below}\n" + "\n".join(report)
