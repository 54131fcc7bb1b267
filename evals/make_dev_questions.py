"""Write the question sets (evals/questions/dev.jsonl over every dataset, sample.jsonl over the sample corpus
alone) with expected answers computed from the labels.

    python -m evals.make_dev_questions

Expected answers come from the datasets' labels read through the project's loaders (the same normalised
values the index holds), so the set is reproducible and changes only if the labels or the normalisation
change. Phrasings vary on purpose; a held-out set phrased differently judges the planner.

A checkout tool: it rewrites the files in the checkout's evals/questions/ (the copies an installed wheel holds are
data to read) and needs the shared datasets (`RAGENT_SHARED_DATA`, or shared/data beside the checkout).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from retrievers.loaders import cuad, invoices, kleister_nda, sample, shared_data_dir, sroie
from retrievers.loaders.beir import load_qrels, load_queries

QUESTIONS = Path(__file__).resolve().parent / "questions"
MAX_LISTED = 50
QA_CLAIMS = 5


def _rows(loader, path: Path | None) -> dict[str, dict[str, Any]]:
    return {s.document.doc_id: s.annotations[0].row if s.annotations else {} for s in loader.load(path)}


def _values(row: dict, field: str) -> list:
    value = row.get(field)
    return value if isinstance(value, list) else [] if value is None else [value]


def law(name: str) -> Callable[[dict], bool]:
    return lambda r: any(name.lower() in v.lower() for v in _values(r, "governing_law"))


def notice(test: Callable[[float], bool]) -> Callable[[dict], bool]:
    return lambda r: any(test(v) for v in _values(r, "notice_period_days"))


def company(name: str) -> Callable[[dict], bool]:
    return lambda r: name in r.get("company", "").lower()


def _distinct_parties(contracts: dict[str, dict], *, cuad_only: bool) -> list[tuple[str, str]]:
    """(doc_id, short party name) for contracts whose first party's first two words name no other contract,
    and which have a governing law and an agreement date to ask about."""
    names = {
        d: " ".join(_values(r, "parties")[0].replace(",", " ").split()[:2])
        for d, r in contracts.items()
        if _values(r, "parties")
    }
    found = []
    for doc_id, name in sorted(names.items()):
        row = contracts[doc_id]
        if (
            cuad_only
            and not doc_id.startswith("cuad_")
            or len(name) < 8
            or not row.get("agreement_date")
            or not row.get("governing_law")
        ):
            continue
        if sum(name.lower() in p.lower() for r in contracts.values() for p in _values(r, "parties")) == 1:
            found.append((doc_id, name))
    return found


class QuestionSet:
    """Questions judged against one corpus: every question records the datasets its expected answer was computed on."""

    def __init__(self, datasets: list[str]):
        self.datasets, self.questions = sorted(datasets), []

    def add(self, qid: str, question: str, kind: str, expected: dict, bucket: str, **extra: Any) -> None:
        self.questions.append(
            {
                "id": qid,
                "question": question,
                "kind": kind,
                "expected": expected,
                "buckets": [bucket],
                "datasets": self.datasets,
                **extra,
            }
        )

    def listing(self, qid: str, question: str, rows: dict, bucket: str, keep: Callable[[dict], bool]) -> None:
        ids = sorted(d for d, r in rows.items() if keep(r))
        kind, expected = (
            ("list", {"doc_ids": ids})
            if 0 < len(ids) <= MAX_LISTED
            else ("clarify", {"clarify": "overload" if ids else "no_low"})
        )
        self.add(qid, question, kind, expected, bucket)

    def figure(self, qid: str, question: str, kind: str, value: float, bucket: str) -> None:
        self.add(qid, question, kind, {"value": round(value, 2)}, bucket)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in self.questions))
        print(f"{len(self.questions)} questions -> {path}")


def _sample_rows() -> dict[str, tuple[str, dict]]:
    return {
        s.document.doc_id: (s.document.bucket, s.annotations[0].row if s.annotations else {}) for s in sample.load()
    }


def receipt_questions(qs: QuestionSet, receipts: dict[str, dict]) -> None:
    """Sums, counts, an average and lists over receipt labels (SROIE and the sample corpus's receipts)."""
    for i, (q, name) in enumerate(
        [
            ("What is the total spent at Gardenia Bakeries?", "gardenia bakeries"),
            ("How much was paid in total at Sanyu Stationery?", "sanyu stationery"),
            ("What is the sum of all receipts from Restoran Wan Sheng?", "restoran wan sheng"),
        ]
    ):
        qs.figure(
            f"sroie-sum-{i}",
            q,
            "sum",
            sum(r.get("total", 0) for r in receipts.values() if company(name)(r)),
            "receipts",
        )
    for i, (q, name) in enumerate(
        [
            ("How many receipts are from Unihakka International?", "unihakka international"),
            ("How many receipts come from 99 Speed Mart?", "99 speed mart"),
        ]
    ):
        qs.figure(f"sroie-count-{i}", q, "count", sum(company(name)(r) for r in receipts.values()), "receipts")
    qs.figure(
        "sroie-count-2",
        "How many receipts are dated 2017?",
        "count",
        sum(r.get("date", "").startswith("2017") for r in receipts.values()),
        "receipts",
    )
    qs.figure(
        "sroie-sum-3",
        "What was spent in total on receipts from March 2018?",
        "sum",
        sum(r.get("total", 0) for r in receipts.values() if r.get("date", "").startswith("2018-03")),
        "receipts",
    )
    qs.listing(
        "sroie-list-0",
        "Which receipts have a total above 1000?",
        receipts,
        "receipts",
        lambda r: r.get("total", 0) > 1000,
    )
    qs.listing(
        "sroie-list-1",
        "Which receipts have a total of more than 100000?",
        receipts,
        "receipts",
        lambda r: r.get("total", 0) > 100000,
    )
    qs.figure(
        "sroie-avg",
        "What is the average total of receipts from Gardenia Bakeries?",
        "sum",
        (lambda t: sum(t) / len(t))(
            [r["total"] for r in receipts.values() if company("gardenia bakeries")(r) and "total" in r]
        ),
        "receipts",
    )


def sample_set() -> QuestionSet:
    """Questions on the sample corpus alone: fast enough for CI, and covering every kind and both clarifications."""
    rows = _sample_rows()

    def in_bucket(bucket: str) -> dict[str, dict]:
        return {d: r for d, (b, r) in rows.items() if b == bucket}

    contracts, invoices_, receipts = in_bucket("contracts"), in_bucket("invoices"), in_bucket("receipts")
    qs = QuestionSet(["sample"])
    qs.listing(
        "sample-notice-0",
        "Which contracts have a notice period under 60 days?",
        contracts,
        "contracts",
        notice(lambda v: v < 60),
    )
    qs.listing("sample-law-0", "Which contracts are governed by Delaware law?", contracts, "contracts", law("Delaware"))
    qs.figure(
        "sample-law-1",
        "How many contracts are governed by New York law?",
        "count",
        sum(law("New York")(r) for r in contracts.values()),
        "contracts",
    )
    qs.listing(
        "sample-cert-0",
        "Which certificates expire before 2025?",
        in_bucket("certificates"),
        "certificates",
        lambda r: r.get("valid_until", "9999") < "2025-01-01",
    )
    qs.listing(
        "sample-sheet-0",
        "Which datasheets are for resistors?",
        in_bucket("datasheets"),
        "datasheets",
        lambda r: r.get("category") == "resistor",
    )
    qs.figure(
        "sample-sheet-1",
        "How many datasheets are RoHS compliant?",
        "count",
        sum(r.get("rohs_compliant") is True for r in in_bucket("datasheets").values()),
        "datasheets",
    )
    qs.figure(
        "sample-invoice-0",
        "What is the total amount of invoices in EUR?",
        "sum",
        sum(r.get("amount", 0) for r in invoices_.values() if r.get("currency") == "EUR"),
        "invoices",
    )
    qs.figure("sample-receipt-0", "How many receipts are there?", "count", len(receipts), "receipts")
    qs.listing(
        "sample-receipt-1",
        "Which receipts have a total of more than 100000?",
        receipts,
        "receipts",
        lambda r: r.get("total", 0) > 100000,
    )
    doc_id, party = _distinct_parties(contracts, cuad_only=False)[0]
    qs.add(
        "sample-lookup-0",
        f"What is the governing law of the agreement with {party}?",
        "lookup",
        {"answer": contracts[doc_id]["governing_law"][0]},
        "contracts",
    )
    qs.add(
        "sample-overload-0",
        "Which contracts have a notice period of at least 30 days?",
        "clarify",
        {"clarify": "overload"},
        "contracts",
        context={"max_hits": 3},
        resume={"choice": "stop"},
    )
    qs.add(
        "sample-qa-0",
        "How do I get onto the VPN when working from home?",
        "qa",
        {"doc_ids": ["sample-generic-002"]},
        "generic",
    )
    return qs


def dev_set(data: Path) -> QuestionSet:
    """Questions over every shared dataset and the sample corpus ingested together."""
    samples = _sample_rows()

    def in_bucket(bucket: str) -> dict[str, dict]:
        return {d: r for d, (b, r) in samples.items() if b == bucket}

    # The questions run against every dataset at once, so an answer covers every source of a bucket.
    contracts = _rows(cuad, data / "cuad") | _rows(kleister_nda, data / "kleister_nda") | in_bucket("contracts")
    # An NDA is a contract of that type, whichever dataset holds it: every Kleister-NDA document (the loader labels
    # each one a Non-Disclosure Agreement) and the sample's mutual NDA.
    ndas = {d: r for d, r in contracts.items() if "non-disclosure" in r.get("contract_type", "").lower()}
    receipts = _rows(sroie, data / "sroie") | in_bucket("receipts")
    invoice_rows = _rows(invoices, data / "invoice2data_samples") | in_bucket("invoices")
    qs = QuestionSet(["cuad", "hotpotqa", "invoices", "kleister_nda", "sample", "scifact", "sroie"])
    listing, figure = qs.listing, qs.figure

    for i, (q, name) in enumerate(
        [
            ("Which contracts are governed by Delaware law?", "Delaware"),
            ("List the agreements subject to the laws of Texas", "Texas"),
            ("Which contracts fall under Florida law?", "Florida"),
            ("contracts governed by the law of Pennsylvania", "Pennsylvania"),
            ("Show me the agreements that are governed by Chinese law", "China"),
            ("Which contracts are subject to English law?", "England"),
            ("List the contracts governed by New York law", "New York"),
        ]
    ):
        listing(f"cuad-law-{i}", q, contracts, "contracts", law(name))
    for i, (q, name) in enumerate(
        [
            ("How many contracts are governed by New York law?", "New York"),
            ("Count the agreements governed by California law", "California"),
            ("How many contracts are subject to the laws of Israel?", "Israel"),
        ]
    ):
        figure(f"cuad-count-law-{i}", q, "count", sum(law(name)(r) for r in contracts.values()), "contracts")
    listing(
        "cuad-notice-0",
        "Which contracts have a notice period shorter than 60 days?",
        contracts,
        "contracts",
        notice(lambda v: v < 60),
    )
    listing(
        "cuad-notice-1",
        "agreements that require at least 180 days' notice to stop a renewal",
        contracts,
        "contracts",
        notice(lambda v: v >= 180),
    )
    listing(
        "cuad-notice-2",
        "contracts where the notice period is more than 2000 days",
        contracts,
        "contracts",
        notice(lambda v: v > 2000),
    )
    figure(
        "cuad-notice-3",
        "How many contracts have a notice period of 30 days?",
        "count",
        sum(notice(lambda v: v == 30)(r) for r in contracts.values()),
        "contracts",
    )
    for i, (q, ctype, flag) in enumerate(
        [
            ("How many license agreements include a non-compete clause?", "License Agreement", "non_compete"),
            ("How many distributor agreements grant exclusivity?", "Distributor Agreement", "exclusivity"),
            ("Count the service agreements with a cap on liability", "Service Agreement", "cap_on_liability"),
        ]
    ):
        figure(
            f"cuad-flag-count-{i}",
            q,
            "count",
            sum(r.get("contract_type") == ctype and r.get(flag) is True for r in contracts.values()),
            "contracts",
        )
    for i, (q, ctype, flag) in enumerate(
        [
            ("Which sponsorship agreements have a non-compete?", "Sponsorship Agreement", "non_compete"),
            ("Which franchise agreements contain audit rights?", "Franchise Agreement", "audit_rights"),
            ("List the hosting agreements without a cap on liability", "Hosting Agreement", "cap_on_liability"),
        ]
    ):
        want = flag != "cap_on_liability"
        listing(
            f"cuad-flag-list-{i}",
            q,
            contracts,
            "contracts",
            lambda r, c=ctype, f=flag, w=want: r.get("contract_type") == c and r.get(f) is w,
        )
    figure(
        "cuad-escrow",
        "How many contracts provide for source code escrow?",
        "count",
        sum(r.get("source_code_escrow") is True for r in contracts.values()),
        "contracts",
    )
    listing(
        "cuad-signed",
        "Which contracts were signed before 1997?",
        contracts,
        "contracts",
        lambda r: r.get("agreement_date", "9999") < "1997-01-01",
    )

    figure(
        "nda-count-0",
        "How many NDAs fall under Delaware jurisdiction?",
        "count",
        sum(law("Delaware")(r) for r in ndas.values()),
        "contracts",
    )
    figure(
        "nda-count-1",
        "How many non-disclosure agreements are under Massachusetts jurisdiction?",
        "count",
        sum(law("Massachusetts")(r) for r in ndas.values()),
        "contracts",
    )
    listing("nda-list-0", "Which NDAs are under Oregon jurisdiction?", ndas, "contracts", law("Oregon"))
    listing(
        "nda-term-0",
        "NDAs with a term longer than three years",
        ndas,
        "contracts",
        lambda r: r.get("term_days", 0) > 1095,
    )
    listing(
        "nda-term-1",
        "Which confidentiality agreements last at least five years?",
        ndas,
        "contracts",
        lambda r: r.get("term_days", 0) >= 1825,
    )
    figure(
        "nda-term-2",
        "How many NDAs have a term of two years?",
        "count",
        sum(r.get("term_days") == 730 for r in ndas.values()),
        "contracts",
    )
    figure(
        "nda-term-3",
        "How many NDAs have a term of less than one year?",
        "count",
        sum(0 < r.get("term_days", 0) < 365 for r in ndas.values()),
        "contracts",
    )

    for i, (doc_id, party) in enumerate(_distinct_parties(contracts, cuad_only=True)[:6]):
        field, template = [
            ("governing_law", "What is the governing law of the agreement with {}?"),
            ("agreement_date", "When was the contract with {} signed?"),
            ("governing_law", "Which law governs the contract with {}?"),
        ][i % 3]
        value = contracts[doc_id][field]
        qs.add(
            f"cuad-lookup-{i}",
            template.format(party),
            "lookup",
            {"answer": value[0] if isinstance(value, list) else value},
            "contracts",
        )
    receipt_questions(qs, receipts)

    figure(
        "invoice-sum-0",
        "What is the total amount of invoices in EUR?",
        "sum",
        sum(r.get("amount", 0) for r in invoice_rows.values() if r.get("currency") == "EUR"),
        "invoices",
    )
    listing(
        "sample-list-0",
        "Which certificates expire before 2025?",
        in_bucket("certificates"),
        "certificates",
        lambda r: r.get("valid_until", "9999") < "2025-01-01",
    )
    listing(
        "sample-list-1",
        "Which datasheets are for resistors?",
        in_bucket("datasheets"),
        "datasheets",
        lambda r: r.get("category") == "resistor",
    )
    figure(
        "sample-count-0",
        "How many datasheets are RoHS compliant?",
        "count",
        sum(r.get("rohs_compliant") is True for r in in_bucket("datasheets").values()),
        "datasheets",
    )
    qrels = load_qrels(data / "scifact", "train")
    claims = load_queries(data / "scifact", set(qrels))
    for i, qid in enumerate(sorted(qrels, key=int)[:QA_CLAIMS]):
        qs.add(f"scifact-qa-{i}", claims[qid], "qa", {"doc_ids": sorted(qrels[qid])}, "generic")
    qs.add(
        "sample-qa-0",
        "How do I get onto the VPN when working from home?",
        "qa",
        {"doc_ids": ["sample-generic-002"]},
        "generic",
    )
    return qs


def sroie_set(data: Path) -> QuestionSet:
    """The receipt questions of the dev set on SROIE and the sample corpus alone: a real-data slice CI can ingest."""
    qs = QuestionSet(["sample", "sroie"])
    receipt_questions(
        qs, _rows(sroie, data / "sroie") | {d: r for d, (b, r) in _sample_rows().items() if b == "receipts"}
    )
    return qs


def main() -> None:
    data = shared_data_dir()
    dev_set(data).write(QUESTIONS / "dev.jsonl")
    sroie_set(data).write(QUESTIONS / "sroie.jsonl")
    sample_set().write(QUESTIONS / "sample.jsonl")


if __name__ == "__main__":
    main()
