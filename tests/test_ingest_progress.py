"""What an ingest shows while it runs: documents, chunks, chunks/s and an ETA, as plain lines off a terminal, and the
same counts to the server's stream."""

from __future__ import annotations

import io
import threading
from types import SimpleNamespace

from graph import ingest_graph
from graph.ingest_graph import build_ingest, ingest_events
from retrievers.ingestion import pipeline
from retrievers.ingestion import progress as progress_module
from retrievers.ingestion.progress import IngestDisplay, IngestProgress


def test_the_counts_give_chunks_per_second_and_the_time_left():
    halfway = IngestProgress(documents=50, total=200, chunks=1_500, seconds=100.0)
    assert halfway.chunks_per_s == 15.0 and halfway.eta_s == 300.0
    assert halfway.counts() == {"documents": 50, "total": 200, "chunks": 1500, "chunks_per_s": 15.0, "eta_s": 300}
    assert halfway.line() == "ingest: 50/200 documents, 1,500 chunks, 15.0 chunks/s, about 5m00s left"
    unknown_total = IngestProgress(documents=3, total=None, chunks=9, seconds=0.0)
    assert unknown_total.eta_s is None and unknown_total.line() == "ingest: 3 documents, 9 chunks, 0.0 chunks/s"
    assert IngestProgress(0, 10, 0, 1.0).eta_s is None, "no rate before the first document"


def test_off_a_terminal_the_progress_is_plain_lines_and_every_step_reaches_the_callback(monkeypatch):
    monkeypatch.setattr(progress_module, "PLAIN_EVERY_S", 0.0)
    out, seen = io.StringIO(), []
    display = IngestDisplay(total=4, shown=None, progressed=seen.append, out=out)
    display.advance(2, 30)
    display.advance(2, 25)
    display.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].startswith("ingest: 4/4 documents, 55 chunks, ") and "\r" not in out.getvalue()
    assert [(p.documents, p.chunks) for p in seen] == [(2, 30), (4, 55)]


def test_a_quiet_ingest_prints_nothing_but_still_reports_its_counts():
    out, seen = io.StringIO(), []
    display = IngestDisplay(total=None, shown=False, progressed=seen.append, out=out)
    display.advance(1, 3)
    display.close()
    assert out.getvalue() == "" and seen[0].documents == 1


def test_the_server_streams_ingest_counts_a_few_times_a_second_and_always_the_last():
    events: list[dict] = []
    progressed = ingest_events(3600.0, events.append)
    for done in range(1, 6):
        progressed(IngestProgress(documents=done, total=5, chunks=done * 10, seconds=float(done)))
    assert [e["documents"] for e in events] == [1, 5], "the first, then nothing within the interval, then the last"
    assert events[-1] == {"event": "ingest", "documents": 5, "total": 5, "chunks": 50, "chunks_per_s": 10.0, "eta_s": 0}


def test_an_ingest_through_the_graph_streams_its_counts_from_the_ingest_worker(stack, tmp_path, monkeypatch):
    """The server's ingests run on its ingest worker thread (`graph.ingest_worker`); their `ingest` events written
    there still reach the run's `custom` stream."""
    folder = tmp_path / "inbox" / "notes"
    folder.mkdir(parents=True)
    for name, text in [("canteen.md", "Soup on Mondays."), ("bikes.md", "Bikes in the shed."), ("keys.md", "Ask Ana.")]:
        (folder / name).write_text(f"# {name}\n{text}\n")
    monkeypatch.setenv("RAGENT_INGEST_ROOTS", str(tmp_path / "inbox"))
    monkeypatch.setattr(pipeline, "BATCH_DOCUMENTS", 1)
    monkeypatch.setattr(ingest_graph, "PROGRESS_EVERY_S", 0.0)
    writers: list[str] = []

    def recording(seconds, write):
        progressed = ingest_events(seconds, write)
        return lambda progress: (writers.append(threading.current_thread().name), progressed(progress))

    monkeypatch.setattr(ingest_graph, "ingest_events", recording)
    graph = build_ingest(SimpleNamespace(stack=stack)).compile()

    parts = list(graph.stream({"path": "notes", "bucket": "generic", "limit": 3}, stream_mode=["custom", "values"]))
    events = [part for mode, part in parts if mode == "custom"]
    assert [(e["event"], e["documents"], e["total"]) for e in events] == [("ingest", n, 3) for n in (1, 2, 3)]
    assert events[-1]["chunks"] >= 3 and events[-1]["eta_s"] == 0
    assert writers and all(name.startswith("ragent-ingest") for name in writers), writers
    assert parts[-1][1]["added"] == 3
