"""`ragent eval --questions FILE.jsonl`: answer every question with the agent and score it with LangSmith's
`evaluate`, offline by default, uploading the experiment when LANGSMITH_API_KEY is set.

A question line (the design's format, plus four optional keys):

    {"id": "...", "question": "...", "kind": "list|count|sum|lookup|qa|clarify",
     "expected": {"doc_ids": [...]} | {"value": 12.5} | {"answer": "New York"} | {"clarify": "no_low"|"overload"},
     "buckets": ["contracts"],
     "datasets": ["cuad", "sample"],     # the corpus the expected answer was computed on (ingested if missing)
     "context": {"max_hits": 3},         # runtime settings for this question (AgentContext fields)
     "resume": {"choice": "stop"},       # the scripted reply when the run asks for a clarification
     "turns": ["NDAs with a 2 year term", "only the Delaware ones"]}   # a follow-up: see below

A question with `turns` is a conversation: every turn is asked in order on one thread and only the last (which is
`question`) is scored, on its outputs and its latency; `context` holds for every turn and `resume` answers a
clarification of the last turn only. A turn before the last that stops to ask for a clarification ends the
conversation there: the question is scored as failed for its kind and the record says which turn asked what.

Writes OUT/<name>.json (one record per question: answer, cited doc ids, value, clarify kind, tool calls with
statuses, latency, every score) and OUT/<name>.md (the summary table).
"""

from __future__ import annotations

import inspect
import json
import os
import uuid
from pathlib import Path
from statistics import mean
from typing import Any

from langsmith import Client, evaluate
from langsmith.schemas import Example
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chat.settings import ChatSettings
from core.errors import InvalidInput
from evals.agent_target import AgentTarget
from evals.eval_corpus import check_datasets, eval_home, eval_services, ingest_datasets
from evals.evaluators import CODE_EVALUATORS, model_judges
from evals.metrics import percentile
from graph.agents import DEFAULT_AGENT
from graph.context import DEFAULT_CONTEXT, AgentContext
from graph.services import AgentServices

KINDS = ("list", "count", "sum", "lookup", "qa", "clarify")
EXPECTED_KEY = {
    "list": "doc_ids",
    "qa": "doc_ids",
    "count": "value",
    "sum": "value",
    "lookup": "answer",
    "clarify": "clarify",
}


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    kind: str
    expected: dict[str, Any]
    buckets: list[str] = Field(default_factory=list)
    datasets: list[str] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)
    resume: dict[str, Any] | None = None
    turns: list[str] | None = None

    def check(self) -> None:
        if self.turns is not None:
            if len(self.turns) < 2 or not all(turn.strip() for turn in self.turns):
                raise ValueError("turns must hold two or more non-empty questions")
            if self.turns[-1] != self.question:
                raise ValueError("the last of turns must be the question (the turn that is scored)")
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if EXPECTED_KEY[self.kind] not in self.expected:
            raise ValueError(f"a {self.kind} question needs expected.{EXPECTED_KEY[self.kind]}")
        try:
            AgentContext(**self.context)
        except ValidationError as error:
            first = error.errors()[0]
            raise ValueError(f"context.{'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def load_questions(path: Path) -> list[Question]:
    """Every line checked before anything runs; the first bad line stops the run with its number and reason."""
    if not path.is_file():
        raise InvalidInput(f"question file {path} does not exist")
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            question = Question.model_validate_json(line)
            question.check()
        except ValidationError as error:
            first = error.errors()[0]
            raise InvalidInput(
                f"{path}:{number}: {'.'.join(map(str, first['loc'])) or 'line'}: {first['msg']}"
            ) from None
        except ValueError as error:
            raise InvalidInput(f"{path}:{number}: {error}") from None
        questions.append(question)
    if not questions:
        raise InvalidInput(f"{path} holds no questions")
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise InvalidInput(f"{path}: question ids repeat: {sorted({i for i in ids if ids.count(i) > 1})[:5]}")
    return questions


def examples(questions: list[Question]) -> list[Example]:
    dataset = uuid.uuid5(uuid.NAMESPACE_URL, "ragent-eval")
    return [
        Example(
            id=uuid.uuid5(dataset, q.id),
            dataset_id=dataset,
            inputs={
                "question": q.question,
                "context": q.context,
                "resume": q.resume,
                **({"turns": q.turns} if q.turns else {}),
            },
            outputs={"kind": q.kind, "expected": q.expected},
            metadata={"question_id": q.id},
        )
        for q in questions
    ]


def uploaded_dataset(client: Client, name: str, items: list[Example]) -> str:
    """The LangSmith dataset `name`, created with the examples the first time (later runs reuse it as it is)."""
    if not client.has_dataset(dataset_name=name):
        dataset = client.create_dataset(name, description="ragent question set")
        client.create_examples(
            dataset_id=dataset.id,
            inputs=[e.inputs for e in items],
            outputs=[e.outputs for e in items],
            metadata=[e.metadata for e in items],
        )
    return name


def langsmith_evaluate(target, items: list[Example], evaluators: list, name: str):
    """LangSmith's `evaluate`, one example at a time (latencies are not shared); offline on the local examples
    unless LANGSMITH_API_KEY is set, in which case the examples become a LangSmith dataset and the experiment is
    uploaded."""
    upload = bool(os.environ.get("LANGSMITH_API_KEY"))
    client = Client() if upload else Client(auto_batch_tracing=False)
    return evaluate(
        target,
        data=uploaded_dataset(client, f"ragent-{name}", items) if upload else items,
        evaluators=evaluators,
        experiment_prefix=f"ragent-{name}",
        upload_results=upload,
        client=client,
        max_concurrency=0,
    )


def conversation_judge(judge):
    """A judge that reads the question reads the whole conversation of a follow-up: "and in dollars?" alone says
    nothing of what is asked. Judges of other signatures, and questions without turns, are left as they are."""
    if list(inspect.signature(judge).parameters) != ["inputs", "outputs", "reference_outputs"]:
        return judge

    def judged(inputs: dict, outputs: dict, reference_outputs: dict) -> dict:
        if inputs.get("turns"):
            turns = "\n".join(f"(turn {n}) {turn}" for n, turn in enumerate(inputs["turns"], start=1))
            inputs = {**inputs, "question": f"a conversation, the last turn being the one answered:\n{turns}"}
        return judge(inputs, outputs, reference_outputs)

    judged.__name__ = judge.__name__
    return judged


def evaluate_questions(
    services: AgentServices,
    questions: list[Question],
    name: str,
    *,
    context: AgentContext = DEFAULT_CONTEXT,
    agent: str = DEFAULT_AGENT,
) -> list[dict[str, Any]]:
    """Answer and score every question with the agent (`agent`: `graph.agents.AGENTS`) on `services`; one record
    per question."""
    local = ChatSettings.from_env().kind == "local"
    judges, skipped = model_judges(None if local else services.chat_model, local=local)
    if skipped:
        print(skipped, flush=True)
    judges = [conversation_judge(judge) for judge in judges]
    target = AgentTarget(services, context, agent)
    results = langsmith_evaluate(target, examples(questions), [*CODE_EVALUATORS, *judges], name)
    by_id = {q.id: q for q in questions}
    records = []
    for row in results:
        question = by_id[row["example"].metadata["question_id"]]
        outputs = row["run"].outputs or {}
        scores = {r.key: r.score for r in row["evaluation_results"]["results"] if r.score is not None}
        records.append(
            {
                "id": question.id,
                "kind": question.kind,
                "question": question.question,
                **{
                    k: outputs.get(k)
                    for k in (
                        "answer_text",
                        "format",
                        "value",
                        "cited_doc_ids",
                        "clarify_kind",
                        "tool_calls",
                        "latency_ms",
                        "model_calls",
                    )
                },
                **(
                    {"turns": outputs.get("turns"), "failed_turn": outputs.get("failed_turn")} if question.turns else {}
                ),
                "error": row["run"].error,
                "scores": scores,
            }
        )
    return records


def metric_means(records: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """Each quality score averaged over the questions it applies to, with how many that was."""
    keys = list(dict.fromkeys(k for r in records for k in r["scores"] if k not in ("tool_calls", "latency_ms")))
    return {
        key: (mean(values), len(values))
        for key in keys
        if (values := [r["scores"][key] for r in records if key in r["scores"]])
    }


FIGURE_KINDS = ("count", "sum", "list")
"""Questions whose answer is a figure or a list of documents: passages in their place are a silent fallback."""


def looks_right_and_is_not(record: dict[str, Any]) -> bool:
    """A figure or a list that disagrees with the gold and asks nothing: the worst answer, one a user trusts."""
    if record["clarify_kind"] or record["format"] == "prose" or record["error"]:
        return False
    scores = record["scores"]
    return scores.get("value_exact", 1) < 1 or scores.get("list_f1", 1) < 1


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    summary: dict[str, Any] = {"questions": len(records), "errors": sum(1 for r in records if r["error"])}
    for key, (value, count) in metric_means(records).items():
        summary[f"{key} (n={count})"] = round(value, 3)
    latencies = [r["latency_ms"] for r in records if r["latency_ms"] is not None]
    figures = [r for r in records if r.get("kind") in FIGURE_KINDS]
    if figures:
        summary[f"count, sum and list answered with passages (of {len(figures)})"] = sum(
            1 for r in figures if r["format"] == "prose"
        )
        summary[f"count, sum and list answered by a clarification (of {len(figures)})"] = sum(
            1 for r in figures if r["clarify_kind"]
        )
        summary[f"count, sum and list wrong and asking nothing (of {len(figures)})"] = sum(
            1 for r in figures if looks_right_and_is_not(r)
        )
    summary["tool calls per question"] = round(mean(len(r["tool_calls"] or []) for r in records), 2)
    calls = [r.get("model_calls") or [] for r in records]
    if any(calls):
        summary["model calls per question"] = round(mean(map(len, calls)), 2)
        summary["model calls at most, one question"] = max(map(len, calls))
        for key, name in (
            ("prompt_tokens", "prompt tokens"),
            ("output_tokens", "output tokens"),
            ("seconds", "model s"),
        ):
            summary[f"{name} per question"] = round(mean(sum(c.get(key) or 0 for c in q) for q in calls), 1)
    summary["latency p50 ms"] = round(percentile(latencies, 50), 1)
    summary["latency p95 ms"] = round(percentile(latencies, 95), 1)
    if any("turns" in r for r in records):
        summary["follow-ups"] = sum(1 for r in records if "turns" in r)
        summary["follow-ups stopped before the last turn"] = sum(1 for r in records if r.get("failed_turn"))
    return summary


def write_report(out: Path, name: str, summary: dict[str, Any], records: list[dict[str, Any]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps({"summary": summary, "records": records}, indent=2, default=str))
    (out / f"{name}.md").write_text(markdown(summary))


def markdown(summary: dict[str, Any]) -> str:
    return "| metric | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in summary.items())


def run_question_file(
    path: Path,
    *,
    home: Path | None,
    out: Path,
    limit: int | None = None,
    context: AgentContext = DEFAULT_CONTEXT,
    agent: str = DEFAULT_AGENT,
) -> dict[str, Any]:
    """Ingest what the questions need (unless a home is given), answer and score them, write the report."""
    questions = load_questions(path)[:limit]
    datasets = {d for q in questions for d in q.datasets}
    if home is None and not datasets:
        raise InvalidInput(
            f'{path}: the questions name no datasets; add "datasets" to them or pass --home with the corpus ingested'
        )
    check_datasets(datasets)
    with eval_services(home or eval_home(datasets)) as services:
        if home is None:
            ingest_datasets(services.stack, datasets)
        records = evaluate_questions(services, questions, path.stem, context=context, agent=agent)
    summary = summarise(records)
    write_report(out, f"eval-{path.stem}", summary, records)
    return summary
