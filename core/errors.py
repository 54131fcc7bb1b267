"""Errors that reach a user: each says what went wrong and what to do about it, in one line."""


class RagentError(Exception):
    """Base class: the message is meant to be printed as it is."""


class InvalidInput(RagentError, ValueError):
    """A bucket, field, file or argument that cannot be used as given. A ValueError too, which is what the
    LangGraph server passes through to the client with its message (other exceptions become "internal error")."""


class BackendUnavailable(RagentError, RuntimeError):
    """An engine (Postgres, OpenSearch, Qdrant, an embeddings endpoint) cannot be reached. A RuntimeError too, so
    that the LangGraph server passes its message to the client instead of "an internal error occurred"."""


class EmbeddingModelMismatch(RagentError):
    """An index was written with one embedding model and is being queried with another."""


class IndexUnreadable(RagentError):
    """An on-disk index that cannot be opened (corrupted or written by an incompatible version)."""


class RateLimited(RagentError):
    """A backend (an embeddings endpoint) asked us to slow down; `retry_after_s` says for how long."""

    def __init__(self, message: str, retry_after_s: float):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class ServerRefused(RagentError):
    """A ragent server refused a request (a missing or wrong API key, a scope the key may not use, a thread that is
    not the caller's or waits for no answer); the message carries the server's reason."""
