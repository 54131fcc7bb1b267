"""The small protocols every engine adapter implements; one conformance suite per protocol tests them all.

Adapters live one per file beside this one. The ingestion pipeline and the search service depend on these
protocols only, so a new engine is one new file plus one line in the conformance parametrisation.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

from retrievers.models import EngineHit, IndexedChunk, SearchFilter


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors and says how it splits text into the tokens its window counts."""

    model_name: str
    dimension: int
    window_tokens: int

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character (start, end) of each token of `text`, as the model's tokenizer sees it."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class KeywordIndex(Protocol):
    """A BM25 index over chunk text, with every `SearchFilter` field as an indexed filter."""

    def upsert(self, chunks: Sequence[IndexedChunk]) -> None:
        """Add or replace chunks (by chunk_id) and make them searchable."""

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        """Remove a document's chunks, except those of version `keep_hash` when it is given."""

    def search(self, query: str, filters: SearchFilter, limit: int) -> list[EngineHit]: ...

    def count(self, filters: SearchFilter) -> int:
        """How many chunks match the filters alone."""

    def stats(self) -> dict[str, Any]:
        """Name, chunk count and size on disk where the engine has one."""

    def close(self) -> None: ...


@runtime_checkable
class VectorIndex(Protocol):
    """A vector index over chunk embeddings, with the same filters as the keyword index."""

    def ensure_model(self, model_name: str, dimension: int) -> None:
        """Create the index for this model, or check that it was built with this model.

        Raises `EmbeddingModelMismatch` when the index holds vectors of another model.
        """

    def upsert(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None: ...

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None: ...

    def search(self, vector: Sequence[float], filters: SearchFilter, limit: int) -> list[EngineHit]: ...

    def count(self, filters: SearchFilter) -> int: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...
