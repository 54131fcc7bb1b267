"""Fields found in a document's own text: every extraction scorer on its reporting split, the rules' throughput,
and what extraction adds to ingest time, in one run.

    python -m evals.bench_extraction [--out bench-out]      (also `ragent bench --only extraction`)

- Figures: Kleister-NDA dev, SROIE test, CUAD's held-out 200 (facts and clauses) and the twelve invoice2data samples
  (a smoke figure), each counted as its scorer under `evals/extraction` says, with the target or published anchor
  beside the field it is set for.
- Throughput: every rule the bucket ships (`retrievers.extraction.rules.RULES`) run over each document of the same
  split, timed per document.
- Ingest: the project's `Ingestor` on a temporary data folder (an empty embedding cache, so every chunk is
  embedded, as on a user's first ingest) for INGEST_SAMPLE documents of CUAD's held-out and SROIE's test split with
  their labels taken off, as a user's own files arrive (a labelled dataset's documents are `labels_complete` and
  get nothing extracted). Extraction's seconds are `IngestReport.stage_seconds['extracting']`; what it adds is
  those seconds against the rest of the same ingest.

Writes OUT/extraction.json and OUT/extraction.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from core.models import SourceDocument
from core.settings import Settings
from evals.bench import machine, machine_markdown
from evals.extraction import cuad_clauses, cuad_facts, cuad_held_out, invoices, kleister, sroie
from evals.extraction.tally import Tally
from retrievers.extraction.rules import RULES
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import cuad, kleister_nda, shared_data_dir
from retrievers.loaders import invoices as invoices_loader
from retrievers.loaders import sroie as sroie_loader
from retrievers.loaders.common import snake_case
from retrievers.stack import open_stack

CUAD_TARGETS = {"governing_law": 0.95, "date": 0.85, "clause": 0.80}
"""Minimum F1 on CUAD: governing law, each date field, each yes/no clause (`cuad.YES_NO_CATEGORIES`)."""
CUAD_CLAUSES = {snake_case(category) for category in cuad.YES_NO_CATEGORIES}
HEADLINE_TARGETS = {"kleister": 0.80, "sroie": 0.90}
"""Minimum F1 over all fields."""
ANCHORS = {
    "kleister": {"LayoutLMv1": 0.77, "LayoutLMv2": 0.80},
    "sroie": {"char LSTM": 0.756, "CLOVA OCR": 0.891, "PICK": 0.961, "LayoutLM 2.0": 0.978},
}
"""Published F1 on the same datasets, the anchors the issue names."""
INGEST_ADDED_TARGET = 0.25
"""Extraction may add at most this share to the rest of an ingest's time."""
INGEST_SAMPLE = {"cuad": 40, "sroie": 100}


def _in_split(tag: str) -> Callable[[list[SourceDocument]], list[SourceDocument]]:
    return lambda sources: [s for s in sources if tag in s.document.tags]


def _cuad_held_out(sources: list[SourceDocument]) -> list[SourceDocument]:
    held_out = cuad_held_out([s.document.doc_id for s in sources])
    return [s for s in sources if s.document.doc_id in held_out]


REPORTING_SPLITS = {
    "kleister": (kleister_nda, _in_split(kleister.SPLITS["dev"])),
    "cuad": (cuad, _cuad_held_out),
    "sroie": (sroie_loader, _in_split("test")),
    "invoices": (invoices_loader, list),
}
"""Per dataset: its loader, and which of the loader's documents make its reporting split."""


def reporting_documents(dataset: str) -> list[SourceDocument]:
    loader, chosen = REPORTING_SPLITS[dataset]
    return chosen(list(loader.load(shared_data_dir() / loader.SHARED_FOLDER)))


def _result(title: str, split: str, documents: int, seconds: float, fields: dict[str, dict]) -> dict:
    return {"title": title, "split": split, "documents": documents, "seconds_per_document": seconds, "fields": fields}


def _kleister() -> dict:
    figures = kleister.score("dev")
    fields = {key: figures[key] for key in ("all", *kleister.KEYS)}
    return _result("Kleister-NDA", "dev", figures["documents"], figures["seconds_per_document"], fields)


def _cuad_facts() -> dict:
    figures = cuad_facts.score("held-out")
    fields = {name: figures[name] for name in cuad_facts.FIELDS}
    return _result("CUAD facts", "held-out", figures["documents"], figures["seconds_per_document"], fields)


def _cuad_clauses() -> dict:
    tallies, seconds = cuad_clauses.score("held_out")
    fields = {name: t.figures() for name, t in tallies.items()}
    return _result("CUAD clauses", "held-out", len(cuad_clauses.split_contracts("held_out")), seconds, fields)


def _with_ceiling(tally: Tally) -> dict:
    return {**tally.figures(), "ceiling": round(tally.ceiling, 4)}


def _sroie() -> dict:
    scored = sroie.score("test")
    fields = {name: _with_ceiling(t) for name, t in [*scored.fields.items(), ("all", scored.overall())]}
    return _result("SROIE", "test", scored.receipts, scored.seconds_per_receipt, fields)


def _invoices() -> dict:
    tallies, _, seconds = invoices.score()
    fields = {name: t.figures() for name, t in [*tallies.items(), ("all", sum(tallies.values(), Tally()))]}
    return _result("invoice2data samples (smoke)", "all 12", next(iter(tallies.values())).documents, seconds, fields)


SCORERS = {
    "kleister": _kleister,
    "sroie": _sroie,
    "cuad_facts": _cuad_facts,
    "cuad_clauses": _cuad_clauses,
    "invoices": _invoices,
}


def target(dataset: str, field: str) -> float | None:
    """The minimum F1 set for `field` of `dataset`'s table, None where none is set."""
    if dataset in HEADLINE_TARGETS:
        return HEADLINE_TARGETS[dataset] if field == "all" else None
    if not dataset.startswith("cuad"):
        return None
    if field == "governing_law":
        return CUAD_TARGETS["governing_law"]
    if field in CUAD_CLAUSES:
        return CUAD_TARGETS["clause"]
    is_date = any(spec.name == field and spec.type == "date" for spec in cuad.FIELDS)
    return CUAD_TARGETS["date"] if is_date else None


def throughput(bucket: str, bodies: list[str]) -> dict:
    """Every rule of `bucket` over each body: documents per second, and the mean and slowest document."""
    rules = list(RULES[bucket].values())
    seconds = []
    for body in bodies:
        began = time.perf_counter()
        for rule in rules:
            rule(body)
        seconds.append(time.perf_counter() - began)
    total = sum(seconds)
    return {
        "bucket": bucket,
        "rules": len(rules),
        "documents": len(bodies),
        "documents_per_second": len(bodies) / total if total else 0.0,
        "mean_ms": 1000 * total / len(bodies) if bodies else 0.0,
        "max_ms": 1000 * max(seconds, default=0.0),
    }


def unlabelled(source: SourceDocument) -> SourceDocument:
    """The document as a user's own file of the same text arrives: no labels, so every field is looked for."""
    return SourceDocument(document=source.document)


def ingest_share(samples: dict[str, list[SourceDocument]]) -> dict:
    """Ingest each sample into a fresh temporary data folder and embedding cache (one ingest per sample, the
    embedder loaded before); extraction's seconds per document against the whole ingest's."""
    measured = {}
    with tempfile.TemporaryDirectory(prefix="ragent-bench-extraction-") as folder:
        home = Path(folder)
        settings = replace(Settings.from_env(), home=home, cache_dir=home / "cache", postgres_idle_stop_s=0)
        stack = open_stack(settings)
        try:
            stack.embedder.embed_documents(["the model is loaded before the clock starts"])
            for dataset, sources in samples.items():
                report = Ingestor(stack).ingest([unlabelled(s) for s in sources], progress=False)
                extracting = report.stage_seconds["extracting"]
                measured[dataset] = {
                    "bucket": sources[0].document.bucket,
                    "documents": report.documents,
                    "chunks": report.chunks,
                    "values_extracted": report.values_extracted,
                    "documents_extracted": report.documents_extracted,
                    "ingest_seconds_per_document": report.seconds / report.documents,
                    "extraction_seconds_per_document": extracting / report.documents,
                    "added": extracting / (report.seconds - extracting),
                    "target": INGEST_ADDED_TARGET,
                }
        finally:
            stack.close()
    return measured


def run(out: Path) -> dict:
    """Score, time and measure; write OUT/extraction.json and OUT/extraction.md; return the report."""
    out.mkdir(parents=True, exist_ok=True)
    datasets = {}
    for name, scorer in SCORERS.items():
        result = scorer()
        for field, figures in result["fields"].items():
            figures["target"] = target(name, field)
        datasets[name] = {**result, "anchors": ANCHORS.get(name, {})}
    documents = {name: reporting_documents(name) for name in REPORTING_SPLITS}
    report = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "datasets": datasets,
        "throughput": {
            name: throughput(sources[0].document.bucket, [s.document.body for s in sources])
            for name, sources in documents.items()
        },
        "ingest": ingest_share({name: documents[name][:size] for name, size in INGEST_SAMPLE.items()}),
    }
    (out / "extraction.json").write_text(json.dumps(report, indent=2))
    (out / "extraction.md").write_text(markdown(report))
    return report


def _figure(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _dataset_table(result: dict) -> list[str]:
    """One row per field: precision, recall, F1, accuracy, the counts, the ceiling where the scorer has one, and
    the target with whether the F1 reaches it."""
    ceiling = any("ceiling" in figures for figures in result["fields"].values())
    lines = [
        f"### {result['title']}, {result['split']} ({result['documents']} documents, rules "
        f"{1000 * result['seconds_per_document']:.1f} ms per document)",
        "",
        "| field | P | R | F1 | accuracy | predicted | labelled |" + (" ceiling |" if ceiling else "") + " target |",
        "|---|---|---|---|---|---|---|" + ("---|" if ceiling else "") + "---|",
    ]
    for field, f in result["fields"].items():
        goal = f.get("target")
        verdict = "" if goal is None else f">= {goal:.2f} {'met' if f['f1'] >= goal else 'missed'}"
        lines.append(
            f"| {field} | {f['precision']:.3f} | {f['recall']:.3f} | {f['f1']:.3f} | {f['accuracy']:.3f} | "
            f"{f['predicted']} | {f['labelled']} |"
            + (f" {_figure(f.get('ceiling'))} |" if ceiling else "")
            + f" {verdict} |"
        )
    if result.get("anchors"):
        anchors = ", ".join(f"{system} {f1:.3f}" for system, f1 in result["anchors"].items())
        lines += ["", f"Published F1 for comparison: {anchors}."]
    return lines


def markdown(report: dict) -> str:
    """The report as Markdown: the machine and date, a table per dataset, the throughput and the ingest share."""
    lines = [f"Run on {report['date']}. {machine_markdown(report['machine'])}", ""]
    for result in report["datasets"].values():
        lines += [*_dataset_table(result), ""]
    lines += [
        "### Rules' throughput (every rule of the bucket, per document of the reporting split)",
        "",
        "| dataset | bucket | rules | documents | documents/s | mean ms | slowest ms |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {t['bucket']} | {t['rules']} | {t['documents']} | {t['documents_per_second']:.0f} | "
            f"{t['mean_ms']:.2f} | {t['max_ms']:.1f} |"
            for name, t in report["throughput"].items()
        ),
        "",
        "### What extraction adds to ingest (labels taken off, empty embedding cache)",
        "",
        "| sample | bucket | documents | chunks | values found | ingest s/doc | extraction s/doc | added | target |",
        "|---|---|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {i['bucket']} | {i['documents']} | {i['chunks']} | {i['values_extracted']} | "
            f"{i['ingest_seconds_per_document']:.3f} | {i['extraction_seconds_per_document']:.4f} | "
            f"{i['added']:.1%} | <= {i['target']:.0%} {'met' if i['added'] <= i['target'] else 'missed'} |"
            for name, i in report["ingest"].items()
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    print(markdown(run(parser.parse_args().out)))


if __name__ == "__main__":
    main()
