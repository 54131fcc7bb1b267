"""A question's latency on a `ragent serve` while another scope's ingest runs through the server (issue 34, item 9).

Three phases on one server: questions alone; questions while the `ingest` graph takes CUAD contracts (real work);
questions while it is sent a single-line `.txt` of 10.6 MB of words beside a memo (the probe's was 12 MB). Questions
are asked one after another for as long as the ingest runs (up to its wait); the first of each phase is reported
apart (the probe saw 19.6 s for it), and p95 beside p50. The server's resident memory is sampled throughout.
`--flat-inbox` puts the files where a server before each scope had its own inbox looked.

    python -m evals.bench_ingest_beside_questions [--contracts 25] [--hostile-wait 120] [--flat-inbox]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from core.models import SourceDocument
from evals.served_agent import ServedAgent
from retrievers import loaders
from retrievers.postgres.embedded.server import stop_embedded_postgres

QUESTIONS = ("How many contracts per governing law?", "Which contracts can be terminated for convenience?")
INGEST_SCOPE = "bench"
WORDS = "the party shall pay within days notice term agreement license fee breach court law of and to a"


def _one_line(chars: int) -> str:
    """Words and no line break, at most `chars` characters (about 0.88 of them as the words run out: 10,555,087 of
    12,000,000); a run of one letter would be a single unknown token to the embedder's tokenizer."""
    words = random.Random(34).choices(WORDS.split(), k=chars // 6)
    return " ".join(words)[:chars]


def _rss_mb(pid: int) -> float:
    """The resident memory of `ragent serve`'s children (the LangGraph server), in MB."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total = 0
    for child in children:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


class Sampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stopped = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.5):
            self.peak = max(self.peak, _rss_mb(self.pid))


def _ask(client, n: int, until: threading.Thread | None = None, deadline: float = 0.0) -> list[float]:
    """`n` questions one after another, and more while `until` runs (up to `deadline`)."""
    seconds: list[float] = []
    for i in itertools.count():
        if i >= n and (until is None or not until.is_alive() or time.monotonic() > deadline):
            return seconds
        thread = client.threads.create()["thread_id"]
        started = time.monotonic()
        client.runs.wait(thread, "agent", input={"question": QUESTIONS[i % len(QUESTIONS)]})
        seconds.append(time.monotonic() - started)


def _summary(seconds: list[float]) -> dict:
    rest = seconds[1:] or seconds
    return {
        "first_s": round(seconds[0], 2),
        "p50_s": round(statistics.median(rest), 2),
        "p95_s": round(sorted(rest)[round(0.95 * (len(rest) - 1))], 2),
        "max_s": round(max(rest), 2),
        "n": len(seconds),
    }


def _ingest_in_background(client, folder: str) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def run() -> None:
        started = time.monotonic()
        try:
            report = client.runs.wait(
                None,  # a thread is made in the run's scope
                "ingest",
                input={"path": folder, "bucket": "generic", "scope": INGEST_SCOPE},
                raise_error=False,
            )
            outcome["report"] = {k: report.get(k) for k in ("added", "chunks", "skipped", "__error__")}
        except Exception as error:  # noqa: BLE001 - a benchmark records what happened
            outcome["error"] = repr(error)
        outcome["seconds"] = round(time.monotonic() - started, 1)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, outcome


def _phase(served, client, folder: str, questions: int, wait_s: float) -> dict:
    sampler = Sampler(served.process.pid)
    sampler.start()
    before = _rss_mb(served.process.pid)
    worker, outcome = _ingest_in_background(client, folder)
    time.sleep(3)  # the ingest has started reading
    asked = _summary(_ask(client, questions, worker, time.monotonic() + wait_s))
    worker.join(timeout=1)
    sampler.stopped.set()
    return {
        "questions": asked,
        "ingest": outcome if not worker.is_alive() else {"unfinished_after_s": wait_s},
        "rss_mb": {"before": round(before), "peak": round(max(sampler.peak, before))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=25)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--hostile-wait", type=float, default=120)
    parser.add_argument("--flat-inbox", action="store_true", help="files in <home>/inbox, as before item 3")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-beside-"))
    inbox = home / "inbox" if args.flat_inbox else home / "inbox" / INGEST_SCOPE
    contracts = inbox / "contracts"
    contracts.mkdir(parents=True)
    cuad = loaders.DATASETS["cuad"].load(loaders.dataset_path("cuad"), limit=args.contracts)
    chars = 0
    for n, item in enumerate(i for i in cuad if isinstance(i, SourceDocument)):
        (contracts / f"contract-{n:03}.txt").write_text(item.document.body)
        chars += len(item.document.body)
    (inbox / "drop").mkdir()
    (inbox / "drop" / "blob.txt").write_text(_one_line(12_000_000))
    (inbox / "drop" / "memo.txt").write_text("The fire drill is on Thursday at ten.\n")
    results: dict = {"contracts": args.contracts, "contract_chars": chars}
    with ServedAgent(home, {"RAGENT_CACHE_DIR": str(home / "cache")}) as served:  # no vector cached before
        client = served.client(timeout=3600)
        _ask(client, 2)  # the query encoder and engines warm
        results["alone"] = _summary(_ask(client, args.questions))
        results["beside_contracts"] = _phase(served, client, "contracts", args.questions, 3600)
        results["beside_12mb_line"] = _phase(served, client, "drop", args.questions, args.hostile_wait)
        served.kill()  # an ingest still running would keep a SIGTERM waiting
    stop_embedded_postgres(home / "postgres")  # its owner was killed, so nothing else stops it
    shutil.rmtree(home)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
