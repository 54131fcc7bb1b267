"""`python -m evals.behaviour_snapshot OUT.jsonl SET.jsonl...`: what the agent does with every question of the given
sets on the data folder `RAGENT_HOME`, one record per question; `--compare BEFORE.jsonl AFTER.jsonl` lists the
questions whose record changed (`--ignore FIELD`, repeated: fields not to compare, e.g. one the code before did not
record).

A refactoring that must not change behaviour is checked with it: snapshot on the code before, snapshot on the code
after, on the same data folder, and compare. A record holds what a user sees (the answer's text, figure, format,
cited documents, the clarification asked for) and how the agent got there (the decomposition, the tool calls and
their statuses), not the latency. Every set's format is read: `ragent eval`'s (`question`, `turns`, `context`,
`resume`) and the blind sets' (`question`, `scope`). Nothing is scored; the sets' own scorers do that.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from evals.agent_target import AgentTarget
from graph.services import AgentServices

SHOWN = ("answer_text", "format", "value", "cited_doc_ids", "clarify_kind", "tool_calls", "failed_turn")
TIMINGS = {"catalog_reads": {"__all__": {"ms"}}}
"""What a record leaves out of the decomposition: how long each read of the index took is no behaviour."""


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
        "decomposition": decomposition.model_dump(mode="json", exclude=TIMINGS) if decomposition else None,
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


def compare(before: Path, after: Path, ignored: tuple[str, ...] = ()) -> int:
    """Print every question whose record differs, and in which fields (`decomposition.intent`); the number of
    differing questions. `ignored` fields (dotted, as printed) are not compared: a field the code before did not
    record, say."""

    def read(path: Path) -> dict:
        records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        return {(r["set"], r["id"]): r for r in records}

    def fields(record: dict | None) -> dict:
        flat = {k: v for k, v in (record or {}).items() if k != "decomposition"}
        flat |= {f"decomposition.{k}": v for k, v in ((record or {}).get("decomposition") or {}).items()}
        return {k: v for k, v in flat.items() if k not in ignored}

    old, new = read(before), read(after)
    differing = {
        key: sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        for key in old.keys() | new.keys()
        if (a := fields(old.get(key))) != (b := fields(new.get(key)))
    }
    for key, names in sorted(differing.items()):
        print(f"{key[0]} {key[1]}: {', '.join(names)}")
    print(f"{len(old.keys() & new.keys()) - len(differing)} of {len(old.keys() | new.keys())} records identical")
    return len(differing)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.behaviour_snapshot", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="where to write the records")
    parser.add_argument("sets", nargs="*", type=Path, help="question sets (JSONL)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two snapshots")
    parser.add_argument("--ignore", action="append", default=[], metavar="FIELD", help="a field not to compare")
    args = parser.parse_args(argv)
    if args.compare:
        return 1 if compare(*args.compare, tuple(args.ignore)) else 0
    if not (args.out and args.sets):
        parser.error("give OUT and at least one question set, or --compare BEFORE AFTER")
    snapshot(args.out, args.sets)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
