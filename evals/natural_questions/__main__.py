"""`python -m evals.natural_questions`: asks every family of questions in turn, refuses a question asked twice,
writes `evals/questions/natural.jsonl` and prints counts per kind and per dataset, and how long each relative-date
gold stays unchanged (warning below `STABLE_WARN_DAYS`, when the set should be generated again before evaluating).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from evals.natural_questions.contracts import contract_questions
from evals.natural_questions.corpus import ALL_DATASETS, CORPUS, load_corpus
from evals.natural_questions.datasheets_certificates import datasheet_and_certificate_questions
from evals.natural_questions.follow_ups import follow_up_questions
from evals.natural_questions.invoices import invoice_questions
from evals.natural_questions.receipts import receipt_questions
from evals.natural_questions.recorders import ITEMS
from evals.natural_questions.text import text_questions

OUT = Path(__file__).resolve().parents[1] / "questions" / "natural.jsonl"
STABLE_WARN_DAYS = 30


def stable_days(check: Callable[[date], bool], limit: int = 365) -> int:
    today = date.today()
    for offset in range(1, limit + 1):
        if not check(today + timedelta(days=offset)):
            return offset - 1
    return limit


def main() -> None:
    CORPUS.update(load_corpus())
    receipt_questions()
    invoice_questions()
    contract_questions()
    datasheet_and_certificate_questions()
    text_questions()
    follow_up_questions()
    questions = [" / ".join(i.turns) if i.turns else i.question for i in ITEMS]
    repeated = [q for q, n in Counter(questions).items() if n > 1]
    if repeated:
        raise SystemExit(f"questions repeat: {repeated}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as out:
        for number, item in enumerate(ITEMS, start=1):
            line: dict[str, Any] = {
                "id": f"nat-{number:03d}",
                "question": item.question,
                **({"turns": item.turns} if item.turns else {}),
                "kind": item.kind,
                "expected": item.expected,
                "buckets": item.buckets,
                "datasets": ALL_DATASETS,
            }
            if item.context:
                line["context"] = item.context
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"wrote {len(ITEMS)} questions to {OUT}")
    print("per kind:", dict(Counter(i.kind for i in ITEMS)))
    print("follow-ups (two turns) per kind:", dict(Counter(i.kind for i in ITEMS if i.turns)))
    print("per dataset (questions whose gold draws on it):", dict(Counter(s for i in ITEMS for s in i.sources)))
    for number, item in enumerate(ITEMS, start=1):
        if item.relative is not None:
            days = stable_days(item.relative)
            note = "  WARNING: re-run the script before evaluating" if days < STABLE_WARN_DAYS else ""
            print(f"nat-{number:03d} (relative date) gold unchanged for the next {days} days{note}", file=sys.stderr)


if __name__ == "__main__":
    main()
