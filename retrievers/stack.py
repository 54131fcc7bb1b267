"""Builds the engines the settings name: one document store, one keyword index, one vector index, one embedder."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

from core.errors import InvalidInput
from core.settings import Settings
from retrievers.engines.damaged import IndexDamaged, UnreadableIndex
from retrievers.engines.deferred import DeferredEmbedder, DeferredVectors
from retrievers.engines.embedders.cache import CachedEmbedder
from retrievers.engines.lock import EngineLock
from retrievers.postgres.store import PostgresStore
from retrievers.protocols import DocumentStore, Embedder, KeywordIndex, VectorIndex


@dataclass
class Stack:
    """The engines, and the data folder's engine lock when an embedded engine is among them (released last)."""

    settings: Settings
    store: DocumentStore
    keyword: KeywordIndex
    vectors: VectorIndex
    embedder: CachedEmbedder
    lock: EngineLock | None = None

    def close(self) -> None:
        self.vectors.close()
        self.keyword.close()
        self.embedder.close()
        self.store.close()
        if self.lock is not None:
            self.lock.release()


MINILM_SETTINGS: dict[str, str | None] = {
    "minilm": None,
    "minilm-float32": "float32",
    "minilm-bfloat16": "bfloat16",
    "minilm-int8": "int8",
}
"""RAGENT_EMBEDDINGS values that pick MiniLM, and the precision each asks for (None: the fastest this CPU runs)."""


def make_embedder(settings: Settings) -> Embedder:
    if settings.embeddings.startswith("adapted:"):
        from retrievers.engines.embedders.adapted import ADAPTED_PREFIX, AdaptedEmbedder, adapted_folder

        return AdaptedEmbedder(adapted_folder(settings.cache_dir, settings.embeddings.removeprefix(ADAPTED_PREFIX)))
    if settings.embeddings in MINILM_SETTINGS:
        from retrievers.engines.embedders.minilm import MiniLMEmbedder

        return MiniLMEmbedder(
            precision=MINILM_SETTINGS[settings.embeddings] or recorded_minilm_precision(settings),
            cache_dir=settings.cache_dir,
            device_setting=settings.embedding_device,
        )
    if settings.embeddings == "openai":
        if not settings.openai_api_key:
            raise InvalidInput(
                "RAGENT_EMBEDDINGS=openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible endpoint)"
            )
        from retrievers.engines.embedders.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(
            settings.openai_embedding_model, base_url=settings.openai_base_url, api_key=settings.openai_api_key
        )
    raise InvalidInput(
        f"RAGENT_EMBEDDINGS={settings.embeddings!r} is not known; use 'minilm' (the fastest MiniLM "
        "variant on this CPU), 'minilm-float32', 'minilm-bfloat16', 'minilm-int8', 'openai' or 'adapted:NAME'"
    )


def recorded_minilm_precision(settings: Settings) -> str | None:
    """The MiniLM variant the data folder's embedded vector index was built with, if it was: `minilm` keeps using it
    there, so a folder built before the faster variant became the default (in float32) opens as it is, and only new
    folders get the fastest variant. A Qdrant server's collection is not read here (the guard still checks it)."""
    if settings.qdrant_url:
        return None
    from retrievers.engines.embedders.model_names import minilm_precision
    from retrievers.engines.vector.qdrant_edge_index import recorded_model

    return minilm_precision(recorded_model(embedded_vectors_dir(settings)))


def make_keyword_index(settings: Settings) -> KeywordIndex:
    if settings.opensearch_url:
        from retrievers.engines.keyword.opensearch_index import OpenSearchKeywordIndex

        return OpenSearchKeywordIndex.from_url(settings.opensearch_url, index=settings.opensearch_index)
    from retrievers.engines.keyword.tantivy_index import TantivyKeywordIndex

    return TantivyKeywordIndex(settings.home / "tantivy")


def make_vector_index(settings: Settings) -> VectorIndex:
    if settings.qdrant_url:
        from retrievers.engines.vector.qdrant_server_index import QdrantServerVectorIndex

        return QdrantServerVectorIndex.from_url(
            settings.qdrant_url,
            api_key=settings.qdrant_api_key,
            collection=settings.qdrant_collection,
            exact=settings.exact_vector_search,
        )
    from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex

    return QdrantEdgeVectorIndex(embedded_vectors_dir(settings), exact=settings.exact_vector_search)


def embedded_vectors_dir(settings: Settings) -> Path:
    """The folder of the embedded vector index (qdrant-edge) in the data home."""
    return settings.home / "qdrant-edge"


def database_url(settings: Settings) -> str:
    """`DATABASE_URL`, else the embedded Postgres in the home folder (started here if it is not running)."""
    data_dir = settings.embedded_postgres_dir
    if data_dir is None:
        return settings.database_url
    from retrievers.postgres.embedded.server import embedded_database_url

    return embedded_database_url(data_dir, idle_stop_s=settings.postgres_idle_stop_s)


def make_store(settings: Settings) -> DocumentStore:
    return PostgresStore(database_url(settings))


def uses_embedded_engines(settings: Settings) -> bool:
    """Tantivy or qdrant-edge serves this folder (a server named by URL is shared by design)."""
    return not (settings.opensearch_url and settings.qdrant_url)


def open_stack(settings: Settings | None = None) -> Stack:
    """Open every engine, failing fast with a one-line error for the first one that cannot be used. The data
    folder's engine lock is taken first: a process that cannot have it (EnginesBusy, naming the owner) has opened
    no engine file. The embedder and the vector index are made on first use, the index checked against the
    embedder's model then (`retrievers.engines.deferred`): a question answered from annotations loads neither. A
    keyword index too damaged to open is stood in for by one that says so when used (`retrievers.engines.damaged`), so
    that the commands that do not search it still run, `ragent check --repair` among them."""
    settings = settings or Settings.from_env()
    lock = EngineLock(settings.home).acquire() if uses_embedded_engines(settings) else None
    opened = []
    try:
        store = make_store(settings)
        opened.append(store)
        keyword = _keyword_index_or_its_damage(settings)
        opened.append(keyword)
        embedder = CachedEmbedder(
            DeferredEmbedder(partial(make_embedder, settings)), settings.cache_dir / "embeddings.sqlite"
        )
        vectors = DeferredVectors(make_vector_index(settings), embedder)
        opened.append(vectors)
    except BaseException:
        for engine in reversed(opened):
            engine.close()
        if lock is not None:
            lock.release()
        raise
    return Stack(settings, store, keyword, vectors, embedder, lock)


def _keyword_index_or_its_damage(settings: Settings) -> KeywordIndex:
    try:
        return make_keyword_index(settings)
    except IndexDamaged as damage:
        return UnreadableIndex(damage)
