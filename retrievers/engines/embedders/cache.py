"""An on-disk embedding cache keyed by (model, text hash), wrapped around any `Embedder`.

Query vectors are kept apart from document vectors (their key names the model followed by " query"): an embedder
may compute them by another path (MiniLM's queries skip PyTorch), and each call returns what the embedder itself
would.

Document vectors are kept apart by scope too (`document_key`): a hit, which an ingest reports ("N from cache") and
which shows in its time (a cached chunk costs nothing, a computed one 1/15 s), would otherwise tell a tenant that
another scope already holds that very text. The same text in two scopes is embedded twice; the default scope keeps
the key it had before scopes were keyed, so a data folder's cache stays warm. Query vectors stay shared: no count
of them is reported, and a hit saves a few milliseconds of a run that takes hundreds.

MiniLM encodes only 20 to 100 passages a second on these machines, so re-ingesting a corpus or running a
benchmark twice must not embed the same text again. SQLite (standard library) is the store: one file,
safe across processes, and a primary-key lookup per batch. Vectors are float32 bytes through the standard library's
`array`, so that a process that only asks the cache (a repeated query) does not import numpy.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from core.errors import IndexUnreadable
from core.scope import DEFAULT_SCOPE
from retrievers.protocols import Embedder, ForwardingEmbedder

_LOOKUP_BATCH = 500
STORED_EVERY = 256
"""Texts embedded between two writes of the cache: a killed ingest keeps all but the last of them (an ingest embeds
16 documents at once, 500 CUAD chunks, 40 s on two busy cores: killed, it kept none). MiniLM's own batches are
smaller, so the model runs as fast."""


def _text_hash(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEmbedder(ForwardingEmbedder):
    """Delegates to `inner` for texts the cache has not seen; counts hits and misses for reports."""

    def __init__(self, inner: Embedder, path: Path):
        self.inner = inner
        self.hits = 0
        self.misses = 0
        self._path = path
        self._lock = threading.Lock()
        with self._usable():
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text_hash BLOB NOT NULL,"
                " vector BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID"
            )
            self._db.commit()

    @contextmanager
    def _usable(self) -> Iterator[None]:
        """A cache file SQLite cannot read or write (damaged in its header or only in pages a later read reaches,
        or under a folder that cannot be made) is a one-line error saying what to do."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            raise IndexUnreadable(
                f"the embedding cache {self._path} cannot be used ({exc}); it holds only vectors that can be "
                "computed again: delete it, or set RAGENT_CACHE_DIR to a folder this process can write"
            ) from None

    def embed_query(self, text: str) -> list[float]:
        return self._cached([text], f"{self.model_name} query", lambda texts: [self.inner.embed_query(texts[0])])[0]

    def embed_documents(self, texts: Sequence[str], scope: str = DEFAULT_SCOPE) -> list[list[float]]:
        """The texts' vectors, from the cache where `scope` had them embedded before."""
        return self._cached(texts, self.document_key(scope), self.inner.embed_documents)

    def document_key(self, scope: str) -> str:
        return self.model_name if scope == DEFAULT_SCOPE else f"{self.model_name} in scope {scope}"

    def _cached(
        self, texts: Sequence[str], key: str, embed: Callable[[list[str]], list[list[float]]]
    ) -> list[list[float]]:
        hashes = [_text_hash(t) for t in texts]
        found = self._lookup(key, set(hashes))
        missing = list({h: t for h, t in zip(hashes, texts, strict=True) if h not in found}.items())
        for start in range(0, len(missing), STORED_EVERY):
            part = missing[start : start + STORED_EVERY]
            vectors = embed([t for _, t in part])
            fresh = {h: array("f", v) for (h, _), v in zip(part, vectors, strict=True)}
            self._store(key, fresh)
            found.update(fresh)
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return [found[h].tolist() for h in hashes]

    def _lookup(self, key: str, hashes: set[bytes]) -> dict[bytes, array]:
        wanted = list(hashes)
        found: dict[bytes, array] = {}
        with self._lock, self._usable():
            for start in range(0, len(wanted), _LOOKUP_BATCH):
                batch = wanted[start : start + _LOOKUP_BATCH]
                rows = self._db.execute(
                    "SELECT text_hash, vector FROM embeddings WHERE model = ? "
                    f"AND text_hash IN ({','.join('?' * len(batch))})",
                    [key, *batch],
                )
                found.update((h, array("f", v)) for h, v in rows)
        return found

    def _store(self, key: str, vectors: dict[bytes, array]) -> None:
        with self._lock, self._usable():
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, vector) VALUES (?, ?, ?)",
                [(key, h, v.tobytes()) for h, v in vectors.items()],
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
