"""Text answers on real questions: does the composed answer hold the answer, how long is it, and does it cite
the right documents?

    python -m evals.bench_answers [--home bench-out/all] [--split dev|test] [--out bench-out]
        [--datasets hotpotqa scifact] [--limit N] [--written]

Readings of the same run, on the same evidence: `extractive` is the answer the agent gives without a chat model
(at most three cited sentences, `graph.answer.extractive`); `passages` is what it gave before (the five best
relevant passages, one per document, 400 characters each); with `--written` and a chat model in the environment
(`RAGENT_CHAT=local`, or an endpoint), `written` is the answer the model writes from that evidence and code checks
(`graph.answer.written`, as the LLM planner composes; the extractive answer where the draft fails the checks), with
the model's calls, tokens and seconds. All come from one agent run per question (RulePlanner, default settings), so
they differ only in how the answer is composed.

- HotpotQA (the split's qrels; the yes/no questions left out, as their answer is not a string to find):
  `answer found` is the share of questions whose gold answer string, normalised as SQuAD does (lower case, no
  punctuation or articles), occurs in the answer's sentences: the text without the citation brackets and the
  "Sources:" line, which names page titles and would otherwise count a title as a found answer. `chars` is the
  length of the whole answer text as the user reads it. `cited from gold` is the share of cited sentences (or
  passages) that come from one of the question's two gold paragraphs; `both gold cited`, of questions citing both.
- SciFact (train for dev, test for test): `relevant cited` is the share of claims whose answer cites a relevant
  abstract.
- `compose p95 ms`: the extractive compose alone, timed again in process on the run's evidence.

Writes OUT/answers-<split>.json and .md. Tune on dev; test is for reported figures only.
"""

from __future__ import annotations

import argparse
import json
import re
import string
import time
import uuid
from pathlib import Path
from statistics import mean
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from core.errors import InvalidInput
from evals.eval_corpus import eval_services
from evals.metrics import percentile
from graph.answer.computed import best_passages
from graph.answer.extractive import extractive_answer
from graph.answer.written import AnswerWriter
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.markdown import escape
from graph.schemas import Answer
from graph.state import current_evidence
from retrievers.loaders import shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries

PASSAGES = 5
DATASETS = ("hotpotqa", "scifact")
SCIFACT_SPLITS = {"dev": "train", "test": "test"}
"""SciFact has no dev split: its train claims are the ones to tune on."""
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\s\[[^\[\]]+\]")


def normalised(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_sentences(text: str) -> str:
    """The text a user reads as the answer: without citation brackets and without the closing sources line."""
    body = text.split("\n\nSources:")[0]
    return _CITATION.sub("", body)


def holds_answer(text: str, answers: list[str]) -> bool:
    body = f" {normalised(answer_sentences(text))} "
    return any(f" {normalised(a)} " in body for a in answers if normalised(a))


def passages_text(evidence, relevant) -> tuple[str, list[str]]:
    """The answer as the agent composed it before extractive answers: the best passages, one per document."""
    passages = best_passages(evidence, relevant, PASSAGES)
    if not passages:
        return "I found no passage that answers this.", []
    lines = [f"- {escape(' '.join(g.text.split()))} [{escape(g.doc_id)}]" for g in passages]
    return "From the documents:\n" + "\n".join(lines), [g.doc_id for g in passages]


def _one(agent, question: str, writer: AnswerWriter | None) -> dict[str, Any]:
    """One agent run and the readings of its answer: text, cited documents (one per sentence or passage)."""
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    agent.invoke({"question": question}, config, context=AgentContext(planner="rules"))
    values = agent.get_state(config).values
    evidence = current_evidence(values)
    relevant = [g for g in values.get("graded", []) if g.relevant]
    answer = values.get("answer")
    if answer is None:  # the run asked the user instead (too little found): neither reading has an answer
        empty = {"text": "", "cited": []}
        readings = ("extractive", "passages", "written") if writer else ("extractive", "passages")
        return {"format": "clarify", **dict.fromkeys(readings, empty), "compose_ms": None, "model_calls": []}
    started = time.perf_counter()
    extractive_answer(values["decomposition"], evidence, relevant)
    compose_ms = (time.perf_counter() - started) * 1000
    passages, passage_docs = passages_text(evidence, relevant)
    record = {
        "format": answer.format,
        "extractive": _reading(answer),
        "passages": {"text": passages, "cited": passage_docs},
        "compose_ms": round(compose_ms, 2),
    }
    if writer:
        writer.calls.clear()
        written = writer.write(values["decomposition"], answer, evidence, relevant)
        record |= {"written": _reading(written or answer), "model_calls": [c.model_dump() for c in writer.calls]}
    return record


def _reading(answer: Answer) -> dict[str, Any]:
    """An answer's text and the document each of its sentences cites first."""
    cited = [s.citations[0].doc_id for s in answer.sentences if s.citations] if answer.format == "prose" else []
    return {"text": answer.text, "cited": cited}


def _hotpot_answers(data: Path) -> dict[str, list[str]]:
    return {r["_id"]: r["answers"] for r in map(json.loads, (data / "answers.jsonl").read_text().splitlines())}


def run(
    home: Path,
    split: str = "test",
    limit: int | None = None,
    datasets: tuple[str, ...] = DATASETS,
    written: bool = False,
) -> dict[str, Any]:
    hotpot, scifact = shared_data_dir() / "hotpotqa", shared_data_dir() / "scifact"
    answers = _hotpot_answers(hotpot)
    sets = {
        "hotpotqa": (qrels := load_qrels(hotpot, split), load_queries(hotpot, set(qrels))),
        "scifact": (qrels := load_qrels(scifact, SCIFACT_SPLITS[split]), load_queries(scifact, set(qrels))),
    }
    sets = {name: sets[name] for name in datasets}
    records: list[dict[str, Any]] = []
    with eval_services(home) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        if written and services.chat_model is None:
            raise InvalidInput("--written needs a chat model: set RAGENT_CHAT=local, or OPENAI_API_KEY")
        as_json = services.compose_format == "json"
        writer = AnswerWriter(services.chat_model, services.breaker, as_json=as_json) if written else None
        for dataset, (qrels, queries) in sets.items():
            chosen = [
                (qid, q)
                for qid, q in queries.items()
                if dataset != "hotpotqa" or normalised(answers[qid][0]) not in ("yes", "no")
            ][:limit]
            for qid, question in chosen:
                record = {"dataset": dataset, "id": qid, "question": question, "gold": sorted(qrels[qid])}
                record |= {"answers": answers[qid]} if dataset == "hotpotqa" else {}
                record |= _one(agent, question, writer)
                records.append(record)
                print(f"{dataset} {qid}: {record['format']}, {len(record['extractive']['text'])} chars", flush=True)
    return {"split": split, "summary": summary(records), "records": records}


def _figures(records: list[dict[str, Any]], key: str) -> dict[str, float]:
    hotpot = [r for r in records if r["dataset"] == "hotpotqa"]
    scifact = [r for r in records if r["dataset"] == "scifact"]
    cited = [doc in r["gold"] for r in hotpot for doc in r[key]["cited"]]
    figures = {
        "hotpotqa answer found": mean(holds_answer(r[key]["text"], r["answers"]) for r in hotpot) if hotpot else None,
        "hotpotqa chars": mean(len(r[key]["text"]) for r in hotpot) if hotpot else None,
        "hotpotqa cited from gold": mean(cited) if cited else None,
        "hotpotqa both gold cited": mean(set(r["gold"]) <= set(r[key]["cited"]) for r in hotpot) if hotpot else None,
        "scifact relevant cited": mean(bool(set(r["gold"]) & set(r[key]["cited"])) for r in scifact)
        if scifact
        else None,
        "scifact chars": mean(len(r[key]["text"]) for r in scifact) if scifact else None,
    }
    return {k: round(v, 3) for k, v in figures.items() if v is not None}


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    compose = [r["compose_ms"] for r in records if r["compose_ms"] is not None]
    written = any("written" in r for r in records)
    return {
        "questions": {d: sum(r["dataset"] == d for r in records) for d in ("hotpotqa", "scifact")},
        "clarified": {
            d: sum(r["dataset"] == d and r["format"] == "clarify" for r in records) for d in ("hotpotqa", "scifact")
        },
        "passages (before)": _figures(records, "passages"),
        "extractive": _figures(records, "extractive")
        | {"compose p50 ms": round(percentile(compose, 50), 1), "compose p95 ms": round(percentile(compose, 95), 1)},
    } | ({"written": _figures(records, "written") | _model_cost(records)} if written else {})


def _model_cost(records: list[dict[str, Any]]) -> dict[str, float]:
    """What the written answers cost a question, and how many are the extractive one because the model's draft
    failed the checks (or said the evidence holds no answer)."""
    calls = [r["model_calls"] for r in records if r["format"] != "clarify"]
    kept = sum(r["written"]["text"] == r["extractive"]["text"] for r in records if r["format"] != "clarify")
    return {
        "model calls": round(mean(map(len, calls)), 2) if calls else 0,
        "prompt tokens": round(mean(sum(c["prompt_tokens"] or 0 for c in q) for q in calls)) if calls else 0,
        "output tokens": round(mean(sum(c["output_tokens"] or 0 for c in q) for q in calls)) if calls else 0,
        "model s": round(mean(sum(c["seconds"] for c in q) for q in calls), 1) if calls else 0,
        "extractive kept": kept,
    }


def markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    readings = [k for k in s if k not in ("questions", "clarified")]
    figures = list(dict.fromkeys(f for k in readings for f in s[k]))
    counts = ", ".join(f"{n} {d} ({s['clarified'][d]} asked to clarify)" for d, n in s["questions"].items() if n)
    lines = [
        f"Text answers on the {report['split']} split ({counts}; HotpotQA without yes/no answers)",
        "",
        "| answer | " + " | ".join(figures) + " |",
        "|---|" + "---|" * len(figures),
    ]
    lines += [f"| {k} | " + " | ".join(str(s[k].get(f, "")) for f in figures) + " |" for k in readings]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="RAGENT_HOME of a stack with HotpotQA and SciFact")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--limit", type=int, default=None, help="At most this many questions per dataset")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--written", action="store_true", help="also the chat model's written answer (see above)")
    args = parser.parse_args(argv)
    report = run(args.home, args.split, args.limit, tuple(args.datasets), args.written)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"answers-{args.split}.json").write_text(json.dumps(report, indent=2, default=str))
    (args.out / f"answers-{args.split}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
