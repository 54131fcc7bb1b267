"""LangSmith evaluators for the question format of the design (`evals/questions/*.jsonl`).

Each evaluator takes the target's `outputs` and the example's `reference_outputs` ({"kind", "expected"}) and
returns {"key", "score"}; an evaluator that does not apply to a question's kind returns no score (None), so that
averages are taken over the questions it judges. The model-judged evaluators exist only when a chat model is
configured; `model_judges` says why they are skipped otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

VALUE_TOLERANCE = 0.005
"""Counts and sums must be within 0.5% of the labelled value (rounding in the labels, not in the agent)."""

NUMBER = re.compile(r"(?<![\w.-])-?\d[\d,]*(?:\.\d+)?(?![\w-]|\.\d)")
"""A number standing on its own: not part of an id (`sample-contract-006`), a date (`2018-03-01`) or a word."""

Evaluator = Callable[[dict, dict], dict]


def numbers_in(text: str) -> set[float]:
    return {round(float(m.group().replace(",", "")), 2) for m in NUMBER.finditer(text)}


def _result(key: str, score: float | None, comment: str | None = None) -> dict:
    return {"key": key, "score": score, **({"comment": comment} if comment else {})}


def _set_scores(predicted: set[str], expected: set[str]) -> tuple[float, float, float]:
    if not predicted or not expected:
        same = float(predicted == expected)
        return same, same, same
    hits = len(predicted & expected)
    precision, recall = hits / len(predicted), hits / len(expected)
    return precision, recall, (2 * hits / (len(predicted) + len(expected)))


def _list_scores(outputs: dict, reference: dict) -> tuple[float, float, float] | None:
    if reference["kind"] != "list":
        return None
    return _set_scores(set(outputs["cited_doc_ids"]), set(reference["expected"]["doc_ids"]))


def list_precision(outputs: dict, reference_outputs: dict) -> dict:
    scores = _list_scores(outputs, reference_outputs)
    return _result("list_precision", scores and scores[0])


def list_recall(outputs: dict, reference_outputs: dict) -> dict:
    scores = _list_scores(outputs, reference_outputs)
    return _result("list_recall", scores and scores[1])


def list_f1(outputs: dict, reference_outputs: dict) -> dict:
    scores = _list_scores(outputs, reference_outputs)
    return _result("list_f1", scores and scores[2])


def value_exact(outputs: dict, reference_outputs: dict) -> dict:
    if reference_outputs["kind"] not in ("count", "sum"):
        return _result("value_exact", None)
    expected, value = reference_outputs["expected"]["value"], outputs["value"]
    close = value is not None and abs(value - expected) <= max(0.01, VALUE_TOLERANCE * abs(expected))
    return _result("value_exact", float(close), None if close else f"expected {expected}, got {value}")


def _normalised(text: Any) -> str:
    return " ".join(str(text).lower().split())


def lookup_match(outputs: dict, reference_outputs: dict) -> dict:
    """The labelled value appears in the answer, case and spacing ignored."""
    if reference_outputs["kind"] != "lookup":
        return _result("lookup_match", None)
    return _result(
        "lookup_match",
        float(_normalised(reference_outputs["expected"]["answer"]) in _normalised(outputs["answer_text"])),
    )


def clarify_kind(outputs: dict, reference_outputs: dict) -> dict:
    if reference_outputs["kind"] != "clarify":
        return _result("clarify_kind", None)
    expected = reference_outputs["expected"]["clarify"]
    return _result(
        "clarify_kind",
        float(outputs["clarify_kind"] == expected),
        f"expected {expected}, got {outputs['clarify_kind']}",
    )


def qa_cited(outputs: dict, reference_outputs: dict) -> dict:
    """A qa answer cites every judged-relevant document among its passages."""
    if reference_outputs["kind"] != "qa":
        return _result("qa_cited", None)
    return _result("qa_cited", float(set(reference_outputs["expected"]["doc_ids"]) <= set(outputs["cited_doc_ids"])))


def citation_validity(outputs: dict, reference_outputs: dict) -> dict:
    """Every citation is a hit of the run: its document, and its annotation row or chunk when it names one."""
    citations = outputs["citations"]
    if not citations:
        return _result("citation_validity", None)
    found = {tuple(key) for key in outputs["evidence_keys"]}
    docs = {d for d, _, _ in found}
    rows = {a for _, a, _ in found if a}
    chunks = {c for _, _, c in found if c}
    bad = [
        c
        for c in citations
        if c["doc_id"] not in docs
        or (c["annotation_id"] and c["annotation_id"] not in rows)
        or (c["chunk_id"] and c["chunk_id"] not in chunks)
    ]
    return _result("citation_validity", float(not bad), f"not in the evidence: {bad[:3]}" if bad else None)


def number_groundedness(outputs: dict, reference_outputs: dict) -> dict:
    """The share of the numbers in the answer that appear in the evidence: the hits, rows and aggregate results,
    and the arguments of the calls that returned them (a constraint's bound, "term_days < 365", is one)."""
    stated = numbers_in(outputs["answer_text"])
    if not stated:
        return _result("number_groundedness", None)
    missing = stated - set(outputs["evidence_numbers"])
    return _result(
        "number_groundedness",
        1 - len(missing) / len(stated),
        f"not in the evidence: {sorted(missing)[:5]}" if missing else None,
    )


def tool_calls(outputs: dict, reference_outputs: dict) -> dict:
    return _result("tool_calls", float(len(outputs["tool_calls"])))


def latency_ms(outputs: dict, reference_outputs: dict) -> dict:
    return _result("latency_ms", outputs["latency_ms"])


CODE_EVALUATORS: list[Evaluator] = [
    list_precision,
    list_recall,
    list_f1,
    value_exact,
    lookup_match,
    clarify_kind,
    qa_cited,
    citation_validity,
    number_groundedness,
    tool_calls,
    latency_ms,
]


class Verdict(BaseModel):
    score: float = Field(ge=0, le=1, description="1 when fully correct (or fully supported), 0 when not at all")
    reasoning: str = Field(description="One or two sentences")


CORRECTNESS = """You grade an answer to a question over a document corpus against the expected result.
Question: {question}
Expected (from the labels): {expected}
Answer: {answer}
Score 1 when the answer gives the expected result (the same documents, value or fact), 0 when it does not, and in
between for a partial answer."""

FAITHFULNESS = """You check whether an answer is supported by the evidence it was composed from.
Answer: {answer}
Evidence (passages and rows the agent retrieved): {evidence}
Score 1 when every claim of the answer is supported by the evidence, 0 when none is."""


def model_judges(model: BaseChatModel | None, *, local: bool = False) -> tuple[list[Evaluator], str | None]:
    """Model-judged correctness and faithfulness, or none and the reason they are skipped. The local model is never
    a judge: a 0.5B or 1.5B model grading its own answers measures nothing."""
    if local:
        return [], "model-judged correctness and faithfulness skipped: the local model under test is no judge"
    if model is None:
        return (
            [],
            "model-judged correctness and faithfulness skipped: no chat model configured "
            "(set OPENAI_API_KEY, and OPENAI_BASE_URL for a compatible endpoint)",
        )
    judge = model.with_structured_output(Verdict)

    def verdict(key: str, prompt: str) -> dict:
        try:
            answer = judge.invoke(prompt)
            answer = answer if isinstance(answer, Verdict) else Verdict.model_validate(answer)
        except Exception as error:  # a judge that fails scores nothing and says why; the run goes on
            return _result(key, None, f"judge failed: {type(error).__name__}: {error}")
        return _result(key, answer.score, answer.reasoning)

    def correctness(inputs: dict, outputs: dict, reference_outputs: dict) -> dict:
        return verdict(
            "judged_correctness",
            CORRECTNESS.format(
                question=inputs["question"],
                expected=json.dumps(reference_outputs["expected"]),
                answer=outputs["answer_text"] or f"(asked for clarification: {outputs['clarify_kind']})",
            ),
        )

    def faithfulness(outputs: dict) -> dict:
        if not outputs["answer_text"]:
            return _result("judged_faithfulness", None)
        return verdict(
            "judged_faithfulness", FAITHFULNESS.format(answer=outputs["answer_text"], evidence=outputs["evidence_text"])
        )

    return [correctness, faithfulness], None
