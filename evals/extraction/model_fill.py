"""What the chat model adds where the rules leave a contract's fields empty (`ragent extract --model`), on CUAD.

For each of the first `--limit` contracts of a split (in doc id order), with its labels taken off as a user's own
file arrives, the shipped contract fields are found twice: by the rules alone (what ingest stores) and by the rules
with the model filling what they left empty (`retrievers.extraction.extractor.extracted(..., fill=...)`, through
the same `ModelReader` as `ragent extract --model`: one JSON-schema call per document, every value kept only when
its quote is in the text and reads back as the value). Both are scored against the CUAD labels as `cuad_facts`
scores the rules (agreement and effective dates, governing law, parties) plus the expiration date, so the two
columns differ only in the model. Also: the model's calls, the values it filled, and the seconds a contract.

    RAGENT_CHAT=local RAGENT_CHAT_MODEL=qwen2.5-coder-1.5b python -m evals.extraction.model_fill --limit 20

Slow by nature (a 1.5B model on two cores reads a 6,000-character prompt in about a minute), so it is run by hand
and its figures are in docs/benchmarks.md, not in `ragent bench`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from chat.model import chat_model_from_env
from chat.settings import ChatSettings
from core.errors import RagentError
from evals.extraction import cuad_held_out
from evals.extraction.cuad_facts import FIELDS as FACTS
from evals.extraction.cuad_facts import comparable_set
from evals.extraction.tally import Tally, print_table
from retrievers.extraction.extractor import AT_INGEST, PROPERTIES, extracted
from retrievers.extraction.model_reader import ModelReader
from retrievers.extraction.shipped import shipped
from retrievers.loaders import cuad, shared_data_dir

FIELDS = (*FACTS, "expiration_date")
SPLITS = ("tune", "held-out")


def _properties(source) -> dict:
    return next((row.row for row in source.annotations if row.kind == PROPERTIES), {})


def score(split: str, limit: int) -> dict:
    """Per field, P/R/F1 by the rules alone and with the model filling; the model's calls and seconds."""
    chat = ChatSettings.from_env()
    model = chat_model_from_env(chat=chat)
    if model is None:
        raise RagentError("set RAGENT_CHAT=local (the local model) or RAGENT_CHAT=openai to measure the model")
    calls: list[float] = []
    reader = ModelReader(model)

    def timed(body, specs):
        began = time.perf_counter()
        try:
            return reader(body, specs)
        finally:
            calls.append(time.perf_counter() - began)

    documents = sorted(cuad.load(shared_data_dir() / cuad.SHARED_FOLDER), key=lambda s: s.document.doc_id)
    held_out = cuad_held_out([d.document.doc_id for d in documents])
    chosen = [d for d in documents if (d.document.doc_id in held_out) == (split == "held-out")][:limit]
    specs = [s for s in shipped("contracts") if s.found_by in AT_INGEST]
    fill = [s for s in specs if s.name in FIELDS]
    rules, with_model = ({f: Tally() for f in FIELDS} for _ in range(2))
    filled = failed = 0
    for source in chosen:
        gold = _properties(source)
        bare = source.model_copy(update={"annotations": [], "labels_complete": False})
        by_rules = _properties(extracted(bare, specs))
        try:
            both = extracted(bare, specs, AT_INGEST, timed, fill)
        except Exception:  # the model's endpoint timed out or failed: the rules' values stand, as in `ragent extract`
            failed += 1
            both = extracted(bare, specs)
        by_both = _properties(both)
        filled += sum(
            how.found_by == "model" for row in both.annotations for name, how in row.sources.items() if name in FIELDS
        )
        for field in FIELDS:
            wanted = comparable_set(field, gold.get(field))
            rules[field].add(comparable_set(field, by_rules.get(field)), wanted)
            with_model[field].add(comparable_set(field, by_both.get(field)), wanted)
    return {
        "split": split,
        "documents": len(chosen),
        "model": chat.model,
        "model_calls": len(calls),
        "model_calls_failed": failed,
        "values_filled": filled,
        "seconds_per_call": sum(calls) / max(len(calls), 1),
        "rules": {f: t.figures() for f, t in rules.items()},
        "rules_and_model": {f: t.figures() for f, t in with_model.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="held-out")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    figures = score(args.split, args.limit)
    title = f"CUAD {figures['split']}, first {figures['documents']} contracts"
    print_table(f"{title}: rules alone", figures["rules"])
    print_table(f"{title}: rules, then {figures['model']} where they left a field empty", figures["rules_and_model"])
    print(
        f"model calls {figures['model_calls']} ({figures['model_calls_failed']} failed), "
        f"values filled {figures['values_filled']}, "
        f"{figures['seconds_per_call']:.1f} s a call"
    )
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
