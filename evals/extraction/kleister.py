"""Kleister-NDA scored as the challenge scores it: F1 over `key=value` pairs, upper-cased (GEval's `F1(UC)`).

The gold pairs are the dataset's own `expected.tsv` lines (spaces and colons already written as `_`). The contract
rules' values are written the same way before they are compared:
- `effective_date`: the rules' effective date, else the agreement's date (Kleister's effective date is the date the
  agreement binds, which an NDA that names no other is dated with);
- `jurisdiction`: `governing_law` as it comes;
- `party`: each name as Kleister normalised its labels: the legal name only (no "d/b/a Covidien", which CUAD's labels
  keep), no commas, "&" as "and", company suffixes in one form ("Incorporated" -> "Inc.", "Limited" -> "Ltd.",
  "L.P." -> "LP", "L.L.C." -> "LLC");
- `term`: the length in the unit the contract wrote it in (`{number}_{unit}`: "18_months", "1_year"), read again from
  the cited sentence, since `term_days` counts 12 months and one year alike.
The headline is micro F1 over all pairs of the split (GEval's MultiLabel-F1); per key the same over that key's pairs.
Tune on `train` (254 documents), report `dev` (83). `python -m evals.extraction.kleister --split dev`.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from english.numbers import WORD_NUMBER, parse_number
from evals.extraction.tally import Tally, print_table
from retrievers.extraction.found import Found
from retrievers.extraction.rules.contract_facts import RULES
from retrievers.loaders import shared_data_dir
from retrievers.loaders.common import read_jsonl
from retrievers.loaders.normalize import parse_duration

SPLITS = {"train": "train", "dev": "dev-0"}
KEYS = ("effective_date", "jurisdiction", "party", "term")

_SUFFIXES = (
    (re.compile(r"\bIncorporated$|\bInc$", re.IGNORECASE), "Inc."),
    (re.compile(r"\bLimited$|\bLtd$", re.IGNORECASE), "Ltd."),
    (re.compile(r"\bL\.P\.?$"), "LP"),
    (re.compile(r"\bL\.L\.C\.?$"), "LLC"),
    (re.compile(r"\bCorp$"), "Corp."),
)
# A trade name after the legal name ("Tyco Healthcare Group LP d/b/a Covidien"), which Kleister's labels leave out.
_TRADE_NAME_RE = re.compile(r",?\s+(?:d/b/a|f/k/a|dba|doing business as|formerly known as)\b.*$", re.IGNORECASE)
_DURATION_RE = re.compile(
    rf"(?<![\w.])(?P<number>\d+(?:\.\d+)?|{WORD_NUMBER})(?:\s*\(\s*\d+(?:\.\d+)?\s*\))?[\s-]*(?P<unit>day|week|month|year)s?\b",
    re.IGNORECASE,
)


def kleister_value(value: str) -> str:
    """A value as `expected.tsv` writes it, upper-cased as the metric compares it."""
    return re.sub(r"[ :]", "_", re.sub(r"\s+", " ", value).strip()).upper()


def kleister_party(name: str) -> str:
    """A party name as Kleister's labels write it (see the module docstring)."""
    name = _TRADE_NAME_RE.sub("", name)
    name = re.sub(r"\s+", " ", name.replace(",", " ").replace("&", " and ")).strip()
    for suffix, written in _SUFFIXES:
        name = suffix.sub(written, name)
    return name


def kleister_term(body: str, found: Found) -> str | None:
    """The term as the contract wrote its unit ("18 months"), from the sentence it was read from."""
    for match in _DURATION_RE.finditer(body, found.start, found.end):
        if parse_duration(match[0]) == found.value:
            number = parse_number(match["number"])
            if number is None:
                continue
            count = f"{number:g}"
            return f"{count} {match['unit'].lower()}{'' if count == '1' else 's'}"
    return None


def predicted_pairs(body: str) -> list[str]:
    """The `key=value` pairs the contract rules give for one NDA, in Kleister's form."""
    dates = RULES["effective_date"](body) or RULES["agreement_date"](body)
    pairs = [f"effective_date={found.value}" for found in dates[:1]]
    pairs += [f"jurisdiction={found.value}" for found in RULES["governing_law"](body)]
    pairs += [f"party={kleister_party(found.value)}" for found in RULES["parties"](body)]
    terms = (kleister_term(body, found) for found in RULES["term_days"](body))
    pairs += [f"term={term}" for term in terms if term]
    return [kleister_value(pair) for pair in pairs]


def _documents(split: str) -> list[tuple[str, list[str]]]:
    """Each labelled NDA of the split: its text and its gold pairs (upper-cased), in `expected.tsv` order."""
    folder: Path = shared_data_dir() / "kleister_nda"
    texts = [r["text"] for r in read_jsonl(folder / "derived_nda.jsonl") if r["split"] == SPLITS[split]]
    expected = (folder / SPLITS[split] / "expected.tsv").read_text(encoding="utf-8").splitlines()
    return [(text, line.upper().split()) for text, line in zip(texts, expected, strict=True)]


def score(split: str) -> dict:
    """F1 (upper-cased) over all pairs, and per key, on `train` or `dev`; seconds per document for the rules."""
    overall, per_key = Tally(), {key: Tally() for key in KEYS}
    seconds = 0.0
    documents = _documents(split)
    for text, gold in documents:
        began = time.perf_counter()
        predicted = predicted_pairs(text)
        seconds += time.perf_counter() - began
        overall.add(predicted, gold)
        for key in KEYS:
            prefix = f"{key.upper()}="
            per_key[key].add([p for p in predicted if p.startswith(prefix)], [g for g in gold if g.startswith(prefix)])
    return {
        "split": split,
        "documents": len(documents),
        "all": overall.figures(),
        **{key: tally.figures() for key, tally in per_key.items()},
        "seconds_per_document": seconds / max(len(documents), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="train")
    figures = score(parser.parse_args().split)
    rows = {key: figures[key] for key in ("all", *KEYS)}
    print_table(
        f"Kleister-NDA {figures['split']} ({figures['documents']} documents)", rows, figures["seconds_per_document"]
    )


if __name__ == "__main__":
    main()
