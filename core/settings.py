"""Runtime settings from the environment: the embedded defaults unless a production backend is named."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from core.errors import RagentError

PRIVATE_UMASK = 0o077


def keep_files_private() -> None:
    """Every file and folder this process creates from now on (the data folder, its indexes and database, exports,
    keys, the server's stored runs, the child processes' files) is its owner's alone: documents and keys are not
    for other users of the machine. Set by the command line and the server's entry point, before anything is
    opened."""
    os.umask(PRIVATE_UMASK)


def _flag(value: str | None, default: bool) -> bool:
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def _seconds(name: str, value: str | None, default: float) -> float:
    if value is None or not value.strip():
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise RagentError(f"{name} must be a number of seconds, 0 or more; it is {value!r}")
    return seconds


def _count(name: str, value: str | None, default: int) -> int:
    if value is None or not value.strip():
        return default
    try:
        count = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        count = 0
    if count < 1:
        raise RagentError(f"{name} must be a whole number from 1; it is {value!r}")
    return count


@dataclass(frozen=True)
class IngestLimits:
    """How much one ingest may take in, so that one file or one request cannot hold a server's memory and cores for
    long (issue 34: a 12 MB single-line file took a server from 762 MB to 2 GB, ran past 300 s, and slowed another
    tenant's question to 19.6 s). A file or document over a limit is skipped and reported with its reason; the rest
    of the folder is ingested.

    - `file_mb` (RAGENT_INGEST_MAX_FILE_MB): a larger file is not read at all;
    - `document_chars` (RAGENT_INGEST_MAX_DOCUMENT_CHARS): a document's text, about 400 pages by default (the longest
      CUAD contract has about 340,000 characters);
    - `line_chars` (RAGENT_INGEST_MAX_LINE_CHARS): a line of a document's text; text broken into lines is what the
      loaders, rules and chunker are built for, a minified or binary-like blob is not;
    - `request_chars` (RAGENT_INGEST_MAX_REQUEST_CHARS): the characters of new and changed documents one ingest
      through the server writes (unchanged ones cost nothing and do not count); the command line sets none;
    - `uploads_mb` (RAGENT_INGEST_MAX_UPLOADS_MB): what a scope keeps of the web page's uploads in all (its staged
      batches and the files kept once ingested, `graph.uploads`): a file past it is refused (413), so a key that may
      ingest cannot fill the server's disk.
    """

    file_mb: int = 64
    document_chars: int = 1_000_000
    line_chars: int = 100_000
    request_chars: int = 20_000_000
    uploads_mb: int = 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> IngestLimits:
        def limit(name: str, default: int) -> int:
            return _count(f"RAGENT_INGEST_MAX_{name}", env.get(f"RAGENT_INGEST_MAX_{name}"), default)

        return cls(
            file_mb=limit("FILE_MB", cls.file_mb),
            document_chars=limit("DOCUMENT_CHARS", cls.document_chars),
            line_chars=limit("LINE_CHARS", cls.line_chars),
            request_chars=limit("REQUEST_CHARS", cls.request_chars),
            uploads_mb=limit("UPLOADS_MB", cls.uploads_mb),
        )


@dataclass(frozen=True)
class Settings:
    """Where data lives and which engines serve it.

    `home` (RAGENT_HOME, by default the user's data folder, ~/.local/share/ragent) holds the embedded Postgres,
    the Tantivy index, the qdrant-edge shard and CSV exports. It is outside the project on purpose: the LangGraph
    dev server watches the project folder and reloads on every file written there. `DATABASE_URL`,
    `OPENSEARCH_URL` and `QDRANT_URL` each replace one embedded engine with a server.

    `postgres_idle_stop_s` (RAGENT_POSTGRES_IDLE_STOP_S): how long the embedded Postgres stays up once its last
    user has exited, so that questions asked one after another neither start nor stop it
    (`retrievers.postgres.embedded.idle`); 0 stops it as the last user exits.
    """

    home: Path
    cache_dir: Path
    database_url: str | None = None
    opensearch_url: str | None = None
    opensearch_index: str = "ragent-chunks"
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    qdrant_collection: str = "ragent_chunks"
    exact_vector_search: bool = False
    embeddings: str = "minilm"
    embedding_device: str = "auto"
    openai_embedding_model: str = "text-embedding-3-small"
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    postgres_idle_stop_s: float = 300.0
    ingest_limits: IngestLimits = IngestLimits()

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        home = Path(env.get("RAGENT_HOME", Path(env.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "ragent"))
        cache = Path(env.get("RAGENT_CACHE_DIR", Path(env.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ragent"))
        return cls(
            home=home.expanduser().resolve(),
            cache_dir=cache.expanduser().resolve(),
            database_url=env.get("DATABASE_URL") or None,
            opensearch_url=env.get("OPENSEARCH_URL") or None,
            opensearch_index=env.get("OPENSEARCH_INDEX", cls.opensearch_index),
            qdrant_url=env.get("QDRANT_URL") or None,
            qdrant_api_key=env.get("QDRANT_API_KEY") or None,
            qdrant_collection=env.get("QDRANT_COLLECTION", cls.qdrant_collection),
            exact_vector_search=_flag(env.get("RAGENT_EXACT_VECTOR_SEARCH"), False),
            embeddings=env.get("RAGENT_EMBEDDINGS", "minilm"),
            embedding_device=env.get("RAGENT_EMBEDDING_DEVICE", "auto"),
            openai_embedding_model=env.get("RAGENT_OPENAI_EMBEDDING_MODEL", cls.openai_embedding_model),
            openai_base_url=env.get("OPENAI_BASE_URL") or None,
            openai_api_key=env.get("OPENAI_API_KEY") or None,
            postgres_idle_stop_s=_seconds(
                "RAGENT_POSTGRES_IDLE_STOP_S", env.get("RAGENT_POSTGRES_IDLE_STOP_S"), cls.postgres_idle_stop_s
            ),
            ingest_limits=IngestLimits.from_env(env),
        )

    @property
    def embedded_postgres_dir(self) -> Path | None:
        """The embedded Postgres's data folder, or None when `DATABASE_URL` names another Postgres."""
        return None if self.database_url else self.home / "postgres"
