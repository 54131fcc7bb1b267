"""The before/after figures (docs/benchmarks.md) of the `ragent bench` sections (evals/plots.py).

Each section's report, in the shape its `run` returns (keys as the bench modules write them, values made up),
must draw a PNG; `python -m evals.plots FOLDER` must find the reports where `ragent bench` and the sections run
alone leave them; and a run without matplotlib must still give its Markdown report a line instead of failing.
"""

from __future__ import annotations

import json
import sys

import pytest

from evals import plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _ingest_run(variant: str, precision: str, speed: float) -> dict:
    return {
        "variant": variant,
        "gemm_precision": precision,
        "chunks": 1079,
        "end_to_end_chunks_per_s": speed,
        "ingest_chunks_per_s": speed * 1.02,
        "embedding_chunks_per_s": speed * 1.03,
    }


def _vectors(matching: int, recall: float) -> dict:
    sweep = {
        f"ef={ef}{acorn}": {"p50_ms": ef / 200, "p95_ms": ef / 150 * (4 if acorn else 1), "recall@10": recall + bonus}
        for ef, bonus in ((128, 0.0), (256, 0.02), (512, 0.03), (1024, 0.04))
        for acorn in ("", " acorn")
    }
    return {
        "matching_points": matching,
        "exact": {"p50_ms": 30.0, "p95_ms": 31.0},
        "default": {"p50_ms": 9.3, "p95_ms": 12.6, "recall@10": recall + 0.03},
        "ef_sweep": sweep,
    }


def _calls(calls: int, scale: float) -> dict:
    templates = ("search: company = X and total > T", "aggregate: sum(total) by company, date in a month")
    return {t: {"calls": calls, "p50_ms": scale * (i + 1), "p95_ms": scale * (i + 2)} for i, t in enumerate(templates)}


REPORTS = {
    "ingest": {
        "documents": 20,
        "cores": 2,
        "load_average": {"before": [6.8, 7.7, 7.9], "after": [5.0, 6.9, 7.7]},
        "runs": {
            "before": _ingest_run("minilm-float32", "float32", 5.3),
            "after": _ingest_run("minilm", "bfloat16", 15.6),
        },
    },
    "cold": {
        "load_before": 7.6,
        "cold": {
            "annotations only": {
                "before (9a122d4)": {"median_s": 4.35, "min_s": 3.95, "cpu_median_s": 1.96, "runs": 5},
                "this checkout": {"median_s": 3.02, "min_s": 1.93, "cpu_median_s": 1.34, "runs": 5},
                "this checkout, --server": {"median_s": 1.89, "min_s": 1.79, "cpu_median_s": 0.64, "runs": 5},
            },
            "needs the embedder": {
                "before (9a122d4)": {"median_s": 19.65, "min_s": 17.98, "cpu_median_s": 9.29, "runs": 5},
                "this checkout": {"median_s": 17.49, "min_s": 16.89, "cpu_median_s": 8.74, "runs": 5},
            },
        },
        "load_after": 7.9,
    },
    "server": {
        "questions": ["How many contracts per governing law?"],
        "load_before": 11.0,
        "queues": {
            name: {
                "runs": 30,
                "wait_p50_ms": p50,
                "wait_p95_ms": p50 * 1.5,
                "with_thread_p50_ms": p50 + 4,
                "with_thread_p95_ms": p50 * 1.5 + 4,
            }
            for name, p50 in (("library queue (0.5 s poll)", 1004.6), ("woken queue (ragent serve)", 99.8))
        },
        "load_after": 7.6,
        "p50_speedup": 10.1,
    },
    "annotations_scale": {"documents": 2_000_000, "before": _calls(3, 1000.0), "after": _calls(60, 20.0)},
    "vectors_scale": {
        "chunks": 400_000,
        "hnsw_threshold": 50_000,
        "hnsw_ef": 512,
        "bucket filter": _vectors(66_668, 0.4),
        "no filter": _vectors(200_004, 0.88),
    },
}


def _is_png(path) -> bool:
    return path.is_file() and path.stat().st_size > 10_000 and path.read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.parametrize("section", sorted(plots.SECTIONS))
def test_each_section_draws_its_figure(section, tmp_path):
    pytest.importorskip("matplotlib")
    name = plots.SECTIONS[section][0]
    assert plots.write_plot(section, REPORTS[section], tmp_path) == f"![{section}: before and after]({name}.png)"
    assert _is_png(tmp_path / f"{name}.png")


def test_the_folder_command_redraws_every_section(tmp_path, monkeypatch, capsys):
    """bench.json holds the sections `ragent bench` ran; ingest, annotations_scale and vectors_scale write JSON of
    their own when run alone; server.json is the load test's, another report, and is not read."""
    pytest.importorskip("matplotlib")
    (tmp_path / "bench.json").write_text(json.dumps({s: REPORTS[s] for s in ("cold", "server", "ingest")}))
    for section in ("ingest", "annotations_scale", "vectors_scale"):
        (tmp_path / f"{plots.SECTIONS[section][0]}.json").write_text(json.dumps(REPORTS[section]))
    (tmp_path / "server.json").write_text(json.dumps({"latency_p50_ms": 1406.0, "questions": 100}))
    out = tmp_path / "figures"
    monkeypatch.setattr(sys, "argv", ["evals.plots", str(tmp_path), "--out", str(out)])
    plots.main()
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.png" for name, _, _ in plots.SECTIONS.values())
    assert all(_is_png(p) for p in out.iterdir())
    assert "server: " in capsys.readouterr().out


def test_without_matplotlib_the_report_says_so(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails, as where it is not installed
    line = plots.write_plot("server", REPORTS["server"], tmp_path)
    assert line.startswith("No figure: matplotlib is not installed")
    assert not list(tmp_path.iterdir())
