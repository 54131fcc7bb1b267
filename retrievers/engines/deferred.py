"""The embedder and the vector index a stack opens only when something uses them.

A question answered from annotations needs Postgres alone, yet a process that opened every engine paid for the
embedder (its tokenizer, an API probe for OpenAI's dimension, whatever the backend loads up front) and for loading
and closing the vector shard, on every `ragent ask`. Both are made on first use here, and the vector index's model
guard (`VectorIndex.ensure_model`: refuse an index built with another model) runs before the index is first used,
with the name and dimension of the embedder the settings name, so no vector is read or written unchecked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from retrievers.protocols import Embedder, ForwardingEmbedder, VectorIndex


class DeferredEmbedder(ForwardingEmbedder):
    """The embedder `make` returns, made the first time anything about it is asked (its name too)."""

    def __init__(self, make: Callable[[], Embedder]):
        self._make = make
        self._inner: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    @property
    def inner(self) -> Embedder:
        with self._lock:
            if self._inner is None:
                self._inner = self._make()
            return self._inner


class DeferredVectors:
    """`index`, checked against `embedder`'s model (`ensure_model`) before its first use; closing an index that
    was never used opens nothing. Every other attribute is the index's own."""

    def __init__(self, index: VectorIndex, embedder: Embedder):
        self.index, self.embedder = index, embedder
        self._checked = False
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        return self._checked

    def checked(self) -> VectorIndex:
        with self._lock:
            if not self._checked:
                self.index.ensure_model(self.embedder.model_name, self.embedder.dimension)
                self._checked = True
            return self.index

    def ensure_model(self, model_name: str, dimension: int) -> None:
        with self._lock:
            self.index.ensure_model(model_name, dimension)
            self._checked = True

    def close(self) -> None:
        self.index.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.checked(), name)
