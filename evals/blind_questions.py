"""`python -m evals.blind_questions QUESTIONS.jsonl OUT.jsonl`: a behaviour score for questions whose right outcome
is either an answer or a refusal to answer, on the user's own data folder (`RAGENT_HOME`), each question in its own
scope.

`ragent eval` scores figures, lists and clarification kinds against labels, on a corpus it ingests for the set.
This scores what an outside probe checks first: did the run answer (a figure, a table, cited passages) or did it
ask or decline (a clarification, or an answer that cites nothing), and is that what the question calls for (a
question about a currency the rows cannot hold, a topic no document covers, a secret, must not get a figure or a
nearby passage). Where the expected answer holds numbers or document ids, an answer is also checked against them.

A question line: {"id", "question", "scope", "family", "expected": "answer" | "ask_or_decline",
"expected_answer": str | null}. Writes one JSON record per question and prints the right-behaviour count per family.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from evals.agent_target import AgentTarget
from evals.evaluators import VALUE_TOLERANCE
from graph.context import AgentContext
from graph.services import AgentServices

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_DOC_ID = re.compile(r"\b[a-z]+_\d+\b|\bX\d{8,}\b")


def outcome(outputs: dict) -> str:
    """clarify (the run asks), decline (an answer that gives no figure, no row and cites nothing) or answer."""
    if outputs["clarify_kind"]:
        return "clarify"
    if outputs["value"] is None and not outputs["citations"] and outputs["format"] != "table":
        return "decline"
    return "answer"


def matches(expected_answer: str | None, outputs: dict) -> bool | None:
    """Whether an answer holds what the expected answer says: its document ids (a list), else one of its numbers
    as the answer's value (alternatives such as "141 (144 if ...)" each count) or its first number among those a
    table or sentence shows, else its text. None when the expected answer says nothing checkable."""
    if not expected_answer:
        return None
    ids = set(_DOC_ID.findall(expected_answer))
    if len(ids) > 1:
        return ids == set(outputs["cited_doc_ids"])
    numbers = [float(n.replace(",", "")) for n in _NUMBER.findall(expected_answer)]
    if outputs["value"] is not None and numbers:
        return any(abs(outputs["value"] - n) <= VALUE_TOLERANCE * max(abs(n), 1.0) for n in numbers)
    if numbers:  # a table or a sentence: the expected figure is among the numbers it shows
        shown = {float(n.replace(",", "")) for n in _NUMBER.findall(outputs["answer_text"])}
        return numbers[0] in shown
    text = " ".join(outputs["answer_text"].split()).lower()
    head = expected_answer.split(" (")[0].split(",")[0].lower()
    return head in text


def score(questions: list[dict], services: AgentServices) -> list[dict]:
    target = AgentTarget(services)
    records = []
    for q in questions:
        values, clarified, latency = target.run(q["question"], AgentContext(scope=q["scope"]), None)
        outputs = target.outputs(values, clarified, latency)
        decision = values["decisions"][-1] if values.get("decisions") else None
        got = outcome(outputs)
        expected = q["expected"]
        right = got == "answer" if expected == "answer" else got in ("clarify", "decline")
        match = matches(q.get("expected_answer"), outputs) if expected == "answer" and got == "answer" else None
        if match is False:
            right = False
        d = values["decomposition"]
        records.append(
            {
                **q,
                "outcome": got,
                "right": right,
                "match": match,
                "value": outputs["value"],
                "clarify_reason": decision.reason if clarified and decision else None,
                "answer": outputs["answer_text"][:600],
                "intent": d.intent,
                "buckets": d.buckets,
                "constraints": [c.model_dump(mode="json") for c in d.constraints],
                "unmapped": [u.text for u in d.unmapped],
                "tools": [f"{t['tool']}:{t['status']}:{t['total_hits']}" for t in outputs["tool_calls"]],
            }
        )
        print(f"{q['id']} {q['family']:<24} {got:<8} {'RIGHT' if right else 'WRONG'} {q['question']}", flush=True)
    return records


def summary(records: list[dict]) -> str:
    families: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        families[r["family"]].append(r)
    lines = ["| family | right | of |", "|---|---|---|"]
    lines += [f"| {f} | {sum(r['right'] for r in rs)} | {len(rs)} |" for f, rs in families.items()]
    lines.append(f"| all | {sum(r['right'] for r in records)} | {len(records)} |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    questions = [json.loads(line) for line in Path(argv[0]).read_text().splitlines() if line.strip()]
    with AgentServices.from_env() as services:
        records = score(questions, services)
    Path(argv[1]).write_text("".join(json.dumps(r) + "\n" for r in records))
    print(summary(records))


if __name__ == "__main__":
    main(sys.argv[1:])
