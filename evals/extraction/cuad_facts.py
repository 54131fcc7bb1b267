"""The contract-facts rules scored on CUAD: agreement and effective dates, governing law and parties.

Gold is what the CUAD loader puts in each contract's `properties` row (the lawyers' answers, typed); the text is the
loader's document body. Per field, over the documents of the split:
- values are compared per document as sets, after the normalisation below; a prediction where the gold row has
  no value for the field (CUAD left it blank, or gave a partial date such as "[]/[]/2004") is a false positive,
  and a gold value not predicted is a miss; precision, recall and F1 are micro-averaged over values;
- accuracy is the share of documents whose predicted values are exactly the gold ones, "none" and "none" included.
Normalisation: dates are ISO strings and must be equal; places compare case-insensitively, each value read as the
places it names by the places table (`governing_law_places`); party names compare
case-insensitively with punctuation and spacing ignored and "&" read as "and" ("NIKE, Inc." = "Nike Inc"), since
CUAD writes one name several ways; a label left with no name at all ("[ * * * ]", a redacted party) is no label.
`term_days` is an NDA field CUAD does not label, so it is not scored here.
Tune on `tune` (310 contracts), report `held-out` (`evals.extraction.cuad_held_out`, 200).
`python -m evals.extraction.cuad_facts --split held-out`.
"""

from __future__ import annotations

import argparse
import re
import time

from english.places import COUNTRIES, PLACE_NAMES
from evals.extraction import cuad_held_out
from evals.extraction.tally import Tally, print_table
from retrievers.extraction.rules.contract_facts import RULES
from retrievers.loaders import cuad, shared_data_dir

SPLITS = ("tune", "held-out")
FIELDS = ("agreement_date", "effective_date", "governing_law", "parties")


def comparable(field: str, value: object) -> str:
    """A value as it is compared (see the module docstring)."""
    text = str(value)
    if field == "parties":
        return " ".join(re.sub(r"[^\w\s]", " ", text.replace("&", " and ")).lower().split())
    return text.lower() if field == "governing_law" else text


_IN_A_COUNTRY_RE = re.compile(r"^(?P<place>.+?),\s*(?P<country>[^,]+)$")
_AND_RE = re.compile(r"\s+and\s+")


def governing_law_places(value: str) -> list[str]:
    """The places a governing-law value names, by the names the places table gives them, so that one place written
    two ways is one value: "Federal Republic of Germany" is Germany and "British Columbia" is "British Columbia,
    Canada" (the table lists both writings of each); a place followed by the country it lies in names that place
    ("England, United Kingdom" is England); and "England and Wales" names both, as the labels "England; Wales"
    do. A value the table does not know, or a place followed by anything but a country ("Delaware, Illinois"), is
    compared as written."""
    written = " ".join(value.split())
    in_a_country = _IN_A_COUNTRY_RE.match(written)
    if in_a_country and PLACE_NAMES.get(in_a_country["country"].lower()) in COUNTRIES:
        written = in_a_country["place"]
    parts = _AND_RE.split(written)
    if written.lower() not in PLACE_NAMES and all(part.lower() in PLACE_NAMES for part in parts):
        return [PLACE_NAMES[part.lower()] for part in parts]
    return [PLACE_NAMES.get(written.lower(), value)]


def comparable_set(field: str, value: object) -> set[str]:
    """A field's value or values (a list, one value, or none) as the set that is compared."""
    values = value if isinstance(value, list) else [] if value is None else [value]
    if field == "governing_law":
        values = [place for v in values for place in governing_law_places(str(v))]
    return {comparable(field, v) for v in values} - {""}


def score(split: str) -> dict:
    """Per field: accuracy, precision, recall, F1 on `tune` or `held-out`; seconds per contract for all rules."""
    documents = list(cuad.load(shared_data_dir() / cuad.SHARED_FOLDER))
    held_out = cuad_held_out([d.document.doc_id for d in documents])
    chosen = [d for d in documents if (d.document.doc_id in held_out) == (split == "held-out")]
    tallies = {field: Tally() for field in FIELDS}
    seconds = 0.0
    for source in chosen:
        body = source.document.body
        gold = source.annotations[0].row if source.annotations else {}
        began = time.perf_counter()
        found = {field: rule(body) for field, rule in RULES.items()}
        seconds += time.perf_counter() - began
        for field in FIELDS:
            predicted = comparable_set(field, [f.value for f in found[field]])
            tallies[field].add(predicted, comparable_set(field, gold.get(field)))
    return {
        "split": split,
        "documents": len(chosen),
        **{field: tally.figures() for field, tally in tallies.items()},
        "seconds_per_document": seconds / max(len(chosen), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS, default="tune")
    figures = score(parser.parse_args().split)
    rows = {field: figures[field] for field in FIELDS}
    print_table(f"CUAD {figures['split']} ({figures['documents']} contracts)", rows, figures["seconds_per_document"])


if __name__ == "__main__":
    main()
