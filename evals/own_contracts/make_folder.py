"""A user's own folder of contracts, for the end-to-end evaluation of fields found in the text: 40 CUAD contracts
of the held-out 200 (`evals.extraction.cuad_held_out`) as plain-text files named as CUAD names them, with no labels.

    python -m evals.own_contracts.make_folder OUT_DIR

Then, in a data folder of its own (the questions were written blind from the contracts' CUAD labels, see
`questions.md` beside this file):

    ragent ingest OUT_DIR --bucket contracts
    ragent eval --questions evals/questions/own_contracts.jsonl --home "$RAGENT_HOME" --planner rules
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from retrievers.loaders import dataset_path

CONTRACT_IDS = (
    "cuad_029",
    "cuad_034",
    "cuad_049",
    "cuad_050",
    "cuad_058",
    "cuad_062",
    "cuad_066",
    "cuad_069",
    "cuad_072",
    "cuad_087",
    "cuad_088",
    "cuad_107",
    "cuad_116",
    "cuad_128",
    "cuad_138",
    "cuad_144",
    "cuad_150",
    "cuad_153",
    "cuad_155",
    "cuad_168",
    "cuad_184",
    "cuad_201",
    "cuad_214",
    "cuad_236",
    "cuad_252",
    "cuad_259",
    "cuad_262",
    "cuad_286",
    "cuad_300",
    "cuad_329",
    "cuad_332",
    "cuad_338",
    "cuad_367",
    "cuad_368",
    "cuad_393",
    "cuad_409",
    "cuad_417",
    "cuad_432",
    "cuad_448",
    "cuad_471",
)


def make_folder(out: Path) -> list[Path]:
    """Copy the 40 contracts' texts into `out` under their CUAD file names; returns the files written."""
    cuad = dataset_path("cuad")
    records = {r["contract_id"]: r for r in map(json.loads, (cuad / "derived_contracts.jsonl").open())}
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for contract_id in CONTRACT_IDS:
        source = cuad / records[contract_id]["txt_file"]
        written.append(Path(shutil.copyfile(source, out / source.name)))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write the contracts into")
    print(f"{len(make_folder(parser.parse_args(argv).out))} contracts written")


if __name__ == "__main__":
    main()
