"""`python -m evals.behaviour_snapshot OUT.jsonl SET.jsonl...`: what the agent does with every question of the given
sets on the data folder `RAGENT_HOME`, one record per question; `--compare BEFORE.jsonl AFTER.jsonl` lists the
questions whose record changed.

A refactoring that must not change behaviour is checked with it: snapshot on the code before, snapshot on the code
after, on the same data folder, and compare. A record holds what a user sees (the answer's text, figure, format,
cited documents, the clarification asked for) and how the agent got there (the decomposition, the tool calls and
their statuses), not the latency. Every set's format is read: `ragent eval`'s (`question`, `turns`, `context`,
`resume`) and the blind sets' (`question`, `scope`). Nothing is scored; the sets' own scorers do that.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from evals.agent_target import AgentTarget
from graph.services import AgentServices

SHOWN = ("answer_text", "format", "value", "cited_doc_ids", "clarify_kind", "tool_calls", "failed_turn")


def record(target: AgentTarget, question: dict) -> dict:
    """What the agent did with `question`, in its own scope (the blind sets name one) or the default; the
    decomposition of a single question (a conversation's record holds what its last turn answered)."""
    scope = {"scope": question["scope"]} if "scope" in question else {}
    context = replace(target.context, **question.get("context", {}), **scope)
    decomposition = None
    if question.get("turns"):
        outputs = target.conversation(question["turns"], context, question.get("resume"))
    else:
        values, clarified, latency = target.run(question["question"], context, question.get("resume"))
        outputs, decomposition = target.outputs(values, clarified, latency), values.get("decomposition")
    return {
        "id": question["id"],
        "question": question["question"],
        **{key: outputs.get(key) for key in SHOWN},
        "decomposition": decomposition.model_dump(mode="json") if decomposition else None,
    }


def snapshot(out: Path, sets: list[Path]) -> None:
    with AgentServices.from_env() as services, out.open("w", encoding="utf-8") as written:
        target = AgentTarget(services)
        for path in sets:
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    question = json.loads(line)
                    written.write(json.dumps({"set": path.stem, **record(target, question)}, default=str) + "\n")
                    print(path.stem, question["id"], flush=True)


def compare(before: Path, after: Path) -> int:
    """Print every question whose record differs; the number of differing questions."""

    def read(path: Path) -> dict:
        records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        return {(r["set"], r["id"]): r for r in records}

    old, new = read(before), read(after)
    changed = [key for key in old.keys() | new.keys() if old.get(key) != new.get(key)]
    for key in sorted(changed):
        fields = sorted(
            k
            for k in (old.get(key) or {}).keys() | (new.get(key) or {}).keys()
            if (old.get(key) or {}).get(k) != (new.get(key) or {}).get(k)
        )
        print(f"{key[0]} {key[1]}: {', '.join(fields)}")
    print(f"{len(old.keys() & new.keys()) - len(changed)} of {len(old.keys() | new.keys())} records identical")
    return len(changed)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--compare"]:
        return 1 if compare(Path(argv[1]), Path(argv[2])) else 0
    snapshot(Path(argv[0]), [Path(p) for p in argv[1:]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
