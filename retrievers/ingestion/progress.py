"""What an ingest shows while it runs: documents done (of how many, where known), chunks, chunks/s and an ETA.

On a terminal a tqdm bar (documents, with chunks/s beside it); elsewhere (a log, CI, a pipe) a plain line every
PLAIN_EVERY_S, since a bar redrawn with carriage returns is noise in a file; and the same counts to a callback, which
the server's ingest graph streams to its clients. An ingest of a large bucket runs for hours on two cores: the ETA is
what tells a user whether to wait.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from tqdm import tqdm

PLAIN_EVERY_S = 10.0


@dataclass(frozen=True)
class IngestProgress:
    documents: int
    total: int | None
    chunks: int
    seconds: float

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the documents' rate so far; None without a total or before the first document."""
        if not self.total or not self.documents:
            return None
        return max(0.0, (self.total - self.documents) * self.seconds / self.documents)

    def counts(self) -> dict:
        eta = self.eta_s
        return {
            "documents": self.documents,
            "total": self.total,
            "chunks": self.chunks,
            "chunks_per_s": round(self.chunks_per_s, 1),
            "eta_s": None if eta is None else round(eta),
        }

    def line(self) -> str:
        done = f"{self.documents:,}" + (f"/{self.total:,}" if self.total else "")
        eta = "" if self.eta_s is None else f", about {_duration(self.eta_s)} left"
        return f"ingest: {done} documents, {self.chunks:,} chunks, {self.chunks_per_s:.1f} chunks/s{eta}"


def _duration(seconds: float) -> str:
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}h{minute:02d}m" if hours else f"{minute}m{second:02d}s" if minute else f"{second}s"


class IngestDisplay:
    """Shows an ingest's progress (`shown`: True, False, or None for a bar on a terminal and plain lines elsewhere)
    and passes every step to `progressed`."""

    def __init__(
        self,
        total: int | None,
        shown: bool | None,
        progressed: Callable[[IngestProgress], None] | None = None,
        out: TextIO | None = None,
    ):
        self._out = out or sys.stderr
        terminal = self._out.isatty()
        self._bar = (
            tqdm(total=total, unit="doc", desc="ingest", file=self._out) if shown is not False and terminal else None
        )
        self._plain = shown is not False and not terminal
        self._total = total
        self._progressed = progressed
        self._started = time.monotonic()
        self._last_line = self._started
        self._documents = 0
        self._chunks = 0

    def advance(self, documents: int, chunks: int) -> None:
        self._documents += documents
        self._chunks += chunks
        now = time.monotonic()
        progress = IngestProgress(self._documents, self._total, self._chunks, now - self._started)
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self._chunks:,} chunks, {progress.chunks_per_s:.1f} chunks/s", refresh=False)
            self._bar.update(documents)
        elif self._plain and now - self._last_line >= PLAIN_EVERY_S:
            self._last_line = now
            print(progress.line(), file=self._out, flush=True)
        if self._progressed is not None:
            self._progressed(progress)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
