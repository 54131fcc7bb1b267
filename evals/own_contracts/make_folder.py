"""A user's own folder of contracts, for the end-to-end evaluation of fields found in the text: 40 CUAD contracts
of the held-out 200 (`evals.extraction.cuad_held_out`) as plain-text files named as CUAD names them, with no labels.
Five folders of 40 different contracts each, with a question set each, written blind by a different helper session:
`a` (`evals/questions/own_contracts.jsonl`, `questions.md`), `b` (`own_contracts_b.jsonl`, `questions_b.md`),
written after the rules had been tuned against `a`'s answers, and `c` (`own_contracts_c.jsonl`, `questions_c.md`),
written in the eighth session before its changes were scored on it, and `d` (`own_contracts_d.jsonl`,
`questions_d.md`), written in the ninth session before its changes were scored on it, and `e`
(`own_contracts_e.jsonl`, `questions_e.md`), written in the tenth session, most of it about one contract each; and a
sixth set over folders `a` and `c` (`own_contracts_fa.jsonl`, `own_contracts_fc.jsonl`, `questions_f.md`), written
in the thirteenth session before its changes were scored, each half asked in its folder's data folder; a seventh
over folders `b` and `d` (`own_contracts_gb.jsonl`, `_gd.jsonl`, `questions_g.md`) and an eighth over folders `c` and
`e` (`own_contracts_hc.jsonl`, `_he.jsonl`, `questions_h.md`), each written before its session's changes were scored.

    python -m evals.own_contracts.make_folder OUT_DIR [--folder b|c|d|e]

Then, in a data folder of its own:

    ragent ingest OUT_DIR --bucket contracts
    ragent eval --questions evals/questions/own_contracts.jsonl --home "$RAGENT_HOME" --planner rules
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from retrievers.loaders import dataset_path

FOLDER_A = (
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
FOLDER_B = (
    "cuad_000",
    "cuad_005",
    "cuad_011",
    "cuad_052",
    "cuad_061",
    "cuad_078",
    "cuad_085",
    "cuad_094",
    "cuad_098",
    "cuad_114",
    "cuad_140",
    "cuad_162",
    "cuad_169",
    "cuad_176",
    "cuad_187",
    "cuad_195",
    "cuad_203",
    "cuad_209",
    "cuad_216",
    "cuad_234",
    "cuad_237",
    "cuad_244",
    "cuad_265",
    "cuad_266",
    "cuad_291",
    "cuad_295",
    "cuad_311",
    "cuad_313",
    "cuad_322",
    "cuad_331",
    "cuad_350",
    "cuad_353",
    "cuad_405",
    "cuad_427",
    "cuad_445",
    "cuad_450",
    "cuad_459",
    "cuad_462",
    "cuad_492",
    "cuad_503",
)
"""40 other contracts of the held-out 200, drawn at random (seed 20261127) from those `FOLDER_A` does not hold."""
FOLDER_C = (
    "cuad_007",
    "cuad_015",
    "cuad_018",
    "cuad_042",
    "cuad_070",
    "cuad_076",
    "cuad_079",
    "cuad_106",
    "cuad_115",
    "cuad_145",
    "cuad_163",
    "cuad_211",
    "cuad_213",
    "cuad_218",
    "cuad_219",
    "cuad_232",
    "cuad_235",
    "cuad_243",
    "cuad_245",
    "cuad_257",
    "cuad_273",
    "cuad_275",
    "cuad_289",
    "cuad_308",
    "cuad_330",
    "cuad_341",
    "cuad_347",
    "cuad_357",
    "cuad_359",
    "cuad_361",
    "cuad_373",
    "cuad_376",
    "cuad_401",
    "cuad_413",
    "cuad_419",
    "cuad_438",
    "cuad_473",
    "cuad_480",
    "cuad_486",
    "cuad_496",
)
"""40 more of the held-out 200, drawn at random (seed 20261128) from those neither `FOLDER_A` nor `FOLDER_B` holds;
their set (`own_contracts_c.jsonl`, `questions_c.md`) was written blind after the seventh session, with at least
half of its counts and lists on yes/no clauses."""
FOLDER_D = (
    "cuad_004",
    "cuad_008",
    "cuad_010",
    "cuad_012",
    "cuad_022",
    "cuad_024",
    "cuad_089",
    "cuad_090",
    "cuad_113",
    "cuad_125",
    "cuad_146",
    "cuad_166",
    "cuad_171",
    "cuad_186",
    "cuad_192",
    "cuad_207",
    "cuad_215",
    "cuad_250",
    "cuad_254",
    "cuad_256",
    "cuad_258",
    "cuad_274",
    "cuad_292",
    "cuad_315",
    "cuad_326",
    "cuad_328",
    "cuad_333",
    "cuad_364",
    "cuad_369",
    "cuad_370",
    "cuad_374",
    "cuad_390",
    "cuad_408",
    "cuad_431",
    "cuad_433",
    "cuad_468",
    "cuad_477",
    "cuad_483",
    "cuad_484",
    "cuad_499",
)
"""40 more of the held-out 200, drawn at random (seed 20261129) from those no earlier folder holds; their set
(`own_contracts_d.jsonl`, `questions_d.md`) was written blind in the ninth session, before its changes were scored
on it."""
FOLDER_E = (
    "cuad_017",
    "cuad_039",
    "cuad_075",
    "cuad_080",
    "cuad_103",
    "cuad_104",
    "cuad_111",
    "cuad_119",
    "cuad_120",
    "cuad_134",
    "cuad_152",
    "cuad_158",
    "cuad_159",
    "cuad_183",
    "cuad_198",
    "cuad_220",
    "cuad_223",
    "cuad_240",
    "cuad_248",
    "cuad_269",
    "cuad_277",
    "cuad_281",
    "cuad_287",
    "cuad_304",
    "cuad_312",
    "cuad_321",
    "cuad_354",
    "cuad_416",
    "cuad_434",
    "cuad_440",
    "cuad_451",
    "cuad_458",
    "cuad_463",
    "cuad_476",
    "cuad_478",
    "cuad_482",
    "cuad_497",
    "cuad_502",
    "cuad_506",
    "cuad_508",
)
"""40 more of the held-out 200, drawn at random (seed 20261130) from those no earlier folder holds; their set
(`own_contracts_e.jsonl`, `questions_e.md`) was written blind in the tenth session, before its changes were scored
on it, with most of its questions about one contract each."""
FOLDERS = {"a": FOLDER_A, "b": FOLDER_B, "c": FOLDER_C, "d": FOLDER_D, "e": FOLDER_E}


def make_folder(out: Path, folder: str = "a") -> list[Path]:
    """Copy the 40 contracts of `folder` into `out` under their CUAD file names; returns the files written."""
    cuad = dataset_path("cuad")
    records = {r["contract_id"]: r for r in map(json.loads, (cuad / "derived_contracts.jsonl").open())}
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for contract_id in FOLDERS[folder]:
        source = cuad / records[contract_id]["txt_file"]
        written.append(Path(shutil.copyfile(source, out / source.name)))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write the contracts into")
    parser.add_argument("--folder", choices=sorted(FOLDERS), default="a", help="which 40 contracts (default: a)")
    args = parser.parse_args(argv)
    print(f"{len(make_folder(args.out, args.folder))} contracts written")


if __name__ == "__main__":
    main()
