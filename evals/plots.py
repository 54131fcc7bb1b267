"""Figures for the `ragent bench` sections that compare a before with an after, for docs/benchmarks.md: each section's
report (the dict its JSON holds) drawn as one PNG, before and after side by side, with the issue's target drawn
where it gives one, so that a reader sees the change and the distance to the target without reading the tables.

    python -m evals.plots FOLDER [--out DIR]

redraws every figure from the reports in FOLDER (the sections of bench.json, and the JSON a section writes when it
runs alone: ingest.json, annotation_scale.json, vector_scale.json; the newer wins) into DIR (default FOLDER), so a
section measured again can be redrawn, or a figure's look changed, without measuring. Each section's `run` draws its
own figure next to its report. matplotlib comes with the `bench` extra and is imported only to draw, with the Agg
backend (no display needed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import textwrap
from collections.abc import Callable
from pathlib import Path

TARGET_COLOR = "darkred"
TARGET_STYLE = {"colors": TARGET_COLOR, "linestyles": "--", "linewidth": 2, "zorder": 2.5}
LABEL_BOX = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _save(figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    _pyplot().close(figure)


def _bars(
    path: Path,
    *,
    title: str,
    xlabel: str,
    groups: list[str],
    series: dict[str, list[float | None]],
    targets: list[float | None],
    target_label: str,
    log: bool = False,
) -> None:
    """The shape most sections share: one horizontal band per measure (horizontal, so long names stay readable),
    one bar per series in it, before on top, each bar labelled with its value, and the measure's target (None for
    none) as a dashed line across its band."""
    plt = _pyplot()
    height = 0.8 / len(series)
    figure, axes = plt.subplots(figsize=(10, 1.8 + 0.32 * len(groups) * (len(series) + 0.5)), layout="constrained")
    handles = []
    for i, (name, values) in enumerate(series.items()):
        kept = [(g + (i - (len(series) - 1) / 2) * height, v) for g, v in enumerate(values) if v is not None]
        bars = axes.barh([y for y, _ in kept], [v for _, v in kept], height=height, label=name)
        axes.bar_label(bars, fmt=_number, padding=3, fontsize=8, bbox=LABEL_BOX)
        handles.append(bars)
    banded = [(g, t) for g, t in enumerate(targets) if t is not None]
    if banded:
        targets_x, bands = [t for _, t in banded], [g for g, _ in banded]
        handles.append(
            axes.vlines(
                targets_x, [g - 0.45 for g in bands], [g + 0.45 for g in bands], label=target_label, **TARGET_STYLE
            )
        )
    axes.set_yticks(range(len(groups)), [textwrap.fill(g, 34) for g in groups], fontsize=9)
    axes.invert_yaxis()
    axes.set_xscale("log" if log else "linear")
    axes.margins(x=0.12)
    axes.set_xlabel(xlabel)
    axes.set_title(title, fontsize=11)
    axes.grid(True, axis="x", which="both", alpha=0.3)
    figure.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 3), fontsize=8, frameon=False)
    _save(figure, path)


def _load(before: float, after: float) -> str:
    return f"load average {before:.1f} before, {after:.1f} after"


INGEST_MEASURES = {
    "process start to end of ingest": "end_to_end_chunks_per_s",
    "ingest, model loaded": "ingest_chunks_per_s",
    "embedding stage": "embedding_chunks_per_s",
}


def plot_ingest(report: dict, path: Path) -> None:
    runs = report["runs"]
    load = report["load_average"]
    _bars(
        path,
        title=f"Ingest: {runs['before']['chunks']:,} CUAD chunks ({report['documents']} contracts), MiniLM "
        f"float32 in PyTorch before, this checkout's variants after\n({report['cores']} cores, "
        f"{_load(load['before'][0], load['after'][0])})",
        xlabel="chunks/s (higher is better)",
        groups=list(INGEST_MEASURES),
        series={
            f"{label}: {run['variant']} ({run['gemm_precision']})": [run[key] for key in INGEST_MEASURES.values()]
            for label, run in runs.items()
        },
        targets=[2.5 * runs["before"][key] for key in INGEST_MEASURES.values()],
        target_label="target: 2.5x before",
    )


COLD_TARGETS_S = {"annotations only": 1.0, "needs the embedder": 2.5}


def plot_cold(report: dict, path: Path) -> None:
    cold = report["cold"]
    names = list(dict.fromkeys(name for by_code in cold.values() for name in by_code))
    runs = next(iter(cold.values()))[names[0]]["runs"]
    _bars(
        path,
        title=f"`ragent ask` from the shell, a new process each run\n"
        f"({_load(report['load_before'], report['load_after'])})",
        xlabel=f"wall seconds, median of {runs} runs (lower is better)",
        groups=list(cold),
        series={
            name: [by_code[name]["median_s"] if name in by_code else None for by_code in cold.values()]
            for name in names
        },
        targets=[COLD_TARGETS_S.get(kind) for kind in cold],
        target_label="target: 1.0 s annotations only, 2.5 s needing the embedder",
    )


SERVER_TARGET_P50_MS = 150
SERVER_MEASURES = {
    "runs.wait p50": "wait_p50_ms",
    "runs.wait p95": "wait_p95_ms",
    "with thread creation p50": "with_thread_p50_ms",
    "with thread creation p95": "with_thread_p95_ms",
}


def plot_server(report: dict, path: Path) -> None:
    queues = report["queues"]
    _bars(
        path,
        title=f"One structured question at a time through `ragent serve`, "
        f"{next(iter(queues.values()))['runs']} runs per queue\n({_load(report['load_before'], report['load_after'])})",
        xlabel="ms from request to answer (lower is better)",
        groups=list(SERVER_MEASURES),
        series={
            f"{when}: {name}": [queue[key] for key in SERVER_MEASURES.values()]
            for when, (name, queue) in zip(("before", "after"), queues.items(), strict=True)
        },
        targets=[SERVER_TARGET_P50_MS if key.endswith("p50_ms") else None for key in SERVER_MEASURES.values()],
        target_label=f"target: p50 {SERVER_TARGET_P50_MS} ms",
    )


ANNOTATION_TARGETS_MS = {"search": 50, "aggregate": 250}


def plot_annotation_scale(report: dict, path: Path) -> None:
    templates = list(report["before"])
    calls = {when: next(iter(report[when].values()))["calls"] for when in ("before", "after")}
    _bars(
        path,
        title=f"annotations_search and annotations_aggregate over {report['documents']:,} documents, "
        "end to end through the tool runner",
        xlabel="p95 ms per call, log scale (lower is better)",
        groups=templates,
        series={
            f"before: no field indexes ({calls['before']} calls each)": [
                report["before"][t]["p95_ms"] for t in templates
            ],
            f"after: field indexes ({calls['after']} calls each)": [report["after"][t]["p95_ms"] for t in templates],
        },
        targets=[ANNOTATION_TARGETS_MS.get(t.split(":")[0]) for t in templates],
        target_label="target: p95 50 ms a search, 250 ms an aggregate",
        log=True,
    )


VECTOR_TARGET_RECALL = 0.95
VECTOR_TARGET_P95_MS = 30
VECTOR_FILTERS = ("bucket filter", "no filter")


def plot_vector_scale(report: dict, path: Path) -> None:
    """Recall against time is the trade an ef buys, so each filter gets a panel with the ef sweep as a line (with
    and without ACORN when the report has both), exact search (before, recall 1 by definition) and the default
    search (after) as points, and the targets as lines: the corner above and left of both is where to be."""
    plt = _pyplot()
    figure, panels = plt.subplots(1, len(VECTOR_FILTERS), figsize=(12, 5.5), sharey=True, layout="constrained")
    for axes, label in zip(panels, VECTOR_FILTERS, strict=True):
        measured = report[label]
        labelled: list[tuple[float, float]] = []  # where an ef is written already: a coinciding sweep's is not
        for acorn, name in ((False, "HNSW, ef sweep"), (True, "HNSW + ACORN, ef sweep")):
            sweep = {key.split()[0]: v for key, v in measured["ef_sweep"].items() if key.endswith(" acorn") == acorn}
            if not sweep:
                continue
            axes.plot([v["p95_ms"] for v in sweep.values()], [v["recall@10"] for v in sweep.values()], "o-", label=name)
            for ef, v in sweep.items():
                at = (math.log10(v["p95_ms"]), v["recall@10"])
                if all(abs(at[0] - x) > 0.05 or abs(at[1] - y) > 0.01 for x, y in labelled):
                    labelled.append(at)
                    axes.annotate(
                        ef, (v["p95_ms"], v["recall@10"]), textcoords="offset points", xytext=(4, -10), fontsize=7
                    )
        axes.plot(measured["exact"]["p95_ms"], 1.0, "ks", markersize=8, label="exact search (before)")
        default = measured["default"]
        after = f"default search, ef {report['hnsw_ef']} (after)"
        axes.plot(default["p95_ms"], default["recall@10"], "*", color="tab:green", markersize=14, label=after)
        axes.axhline(
            VECTOR_TARGET_RECALL, color=TARGET_COLOR, linestyle="--", label=f"target: recall@10 {VECTOR_TARGET_RECALL}"
        )
        axes.axvline(
            VECTOR_TARGET_P95_MS, color=TARGET_COLOR, linestyle=":", label=f"target: p95 {VECTOR_TARGET_P95_MS} ms"
        )
        axes.set_xscale("log")
        axes.set_xlabel("p95 ms per query, log scale")
        axes.set_title(f"{label}: {measured['matching_points']:,} points searched", fontsize=10)
        axes.grid(True, which="both", alpha=0.3)
    panels[0].set_ylabel("recall@10 against exact search's top 10")
    figure.legend(*panels[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    figure.suptitle(
        f"Vector search at {report['chunks']:,} chunks: exact search (before) against HNSW (after), "
        f"graph built past {report['hnsw_threshold']:,} points",
        fontsize=11,
    )
    _save(figure, path)


SECTIONS: dict[str, tuple[str, Callable[[dict, Path], None], bool]] = {
    # section: (the file name of its figure, and of its JSON when it runs alone; the function drawing it; whether
    # that JSON is this section's report: server.json is the load test's, another report)
    "ingest": ("ingest", plot_ingest, True),
    "cold": ("cold", plot_cold, False),
    "server": ("server", plot_server, False),
    "annotations_scale": ("annotation_scale", plot_annotation_scale, True),
    "vectors_scale": ("vector_scale", plot_vector_scale, True),
}


def write_plot(section: str, report: dict, out: Path) -> str:
    """Draw the section's figure as OUT/<name>.png and give the line its Markdown report ends with: the image, or
    why there is none. Measurements can take half an hour, so neither a missing plotting library nor a figure that
    fails loses them: `python -m evals.plots OUT` draws it again from the JSON."""
    name, plot, _ = SECTIONS[section]
    if importlib.util.find_spec("matplotlib") is None:
        return "No figure: matplotlib is not installed (it comes with the `bench` extra: `pip install -e '.[bench]'`)."
    try:
        plot(report, out / f"{name}.png")
    except Exception as error:  # see the docstring: the report is written all the same
        return f"No figure: {type(error).__name__}: {error}."
    return f"![{section}: before and after]({name}.png)"


def reports_in(folder: Path) -> dict[str, dict]:
    """Each section's report in FOLDER, from bench.json or the section's own JSON, whichever was written last."""
    found: dict[str, tuple[float, dict]] = {}
    bench = folder / "bench.json"
    if bench.is_file():
        for section, report in json.loads(bench.read_text()).items():
            if section in SECTIONS:
                found[section] = (bench.stat().st_mtime, report)
    for section, (name, _, own_json) in SECTIONS.items():
        path = folder / f"{name}.json"
        if own_json and path.is_file() and path.stat().st_mtime >= found.get(section, (0.0,))[0]:
            found[section] = (path.stat().st_mtime, json.loads(path.read_text()))
    return {section: report for section, (_, report) in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a `ragent bench` output folder")
    parser.add_argument("--out", type=Path, help="where to write the PNGs (default: FOLDER)")
    args = parser.parse_args()
    reports = reports_in(args.folder)
    if not reports:
        raise SystemExit(f"no report of {', '.join(SECTIONS)} in {args.folder}")
    for section, report in reports.items():
        name, plot, _ = SECTIONS[section]
        plot(report, (args.out or args.folder) / f"{name}.png")
        print(f"{section}: {(args.out or args.folder) / f'{name}.png'}")


if __name__ == "__main__":
    main()
