"""The answer verifier on labelled sentences: how many planted faults it catches, how many correct sentences it flags.

    python -m evals.bench_verifier [--cases evals/questions/verifier.jsonl] [--out bench-out]

`evals/questions/verifier.jsonl` holds answer sentences written against real passages (HotpotQA, SciFact, CUAD,
Kleister NDAs) by a session that never read the verifier's code: correct ones (quoted or paraphrased, with and
without numbers) and ones with a planted fault: a fabricated citation, a number the cited evidence does not hold,
or a claim the cited evidence does not support. Each sentence is checked as the compose step checks a chat model's
draft (`graph.answer.verify.check_draft`); a case is flagged when any of its sentences is unsupported, and a
fault is caught as `fatal` (the draft is written again) when it is a fabricated citation or a wrong number.
Writes OUT/verifier.json and .md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from graph.answer.verify import EvidenceItem, check_draft
from graph.schemas import Citation

CASES = Path(__file__).resolve().parent / "questions" / "verifier.jsonl"
FATAL_FAULTS = ("fabricated_citation", "number_not_in_evidence")


def check_case(case: dict[str, Any]) -> dict[str, Any]:
    items = [
        EvidenceItem(e["number"], e["doc_id"], e["text"], (Citation(doc_id=e["doc_id"]),)) for e in case["evidence"]
    ]
    checked = check_draft(case["sentence"], items, case["question"])
    return {
        "id": case["id"],
        "fault": case["fault"],
        "flagged": any(c.sentence.verdict == "unsupported" for c in checked),
        "fatal": any(c.fatal for c in checked),
        "problems": [p for c in checked for p in c.sentence.problems],
    }


def run(cases_path: Path = CASES) -> dict[str, Any]:
    records = [check_case(json.loads(line)) for line in cases_path.read_text().splitlines() if line.strip()]
    faults = sorted({r["fault"] for r in records} - {"correct"})
    correct = [r for r in records if r["fault"] == "correct"]
    flagged = [r for r in records if r["flagged"]]
    summary = {
        "cases": len(records),
        "correct flagged (false alarms)": round(sum(r["flagged"] for r in correct) / len(correct), 3),
        "precision of flags": round(sum(r["fault"] != "correct" for r in flagged) / len(flagged), 3)
        if flagged
        else None,
        **{
            f"{fault} caught": round(
                sum(r["flagged"] for r in records if r["fault"] == fault) / sum(r["fault"] == fault for r in records),
                3,
            )
            for fault in faults
        },
        **{
            f"{fault} caught as fatal": round(
                sum(r["fatal"] for r in records if r["fault"] == fault) / sum(r["fault"] == fault for r in records), 3
            )
            for fault in FATAL_FAULTS
            if fault in faults
        },
    }
    return {"summary": summary, "records": records}


def markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    lines = ["| figure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in s.items())]
    missed = [r for r in report["records"] if r["flagged"] == (r["fault"] == "correct")]
    if missed:
        lines += [
            "",
            "Misjudged:",
            *(f"- {r['id']} ({r['fault']}): {'; '.join(r['problems']) or 'passed'}" for r in missed),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args(argv)
    report = run(args.cases)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "verifier.json").write_text(json.dumps(report, indent=2))
    (args.out / "verifier.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
