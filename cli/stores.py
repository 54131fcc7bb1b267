"""The stores a command opens: every engine (under the data folder's engine lock), or Postgres alone (shared safely
with a running server or ingest). Each is closed when the command's `with` ends."""

from __future__ import annotations

from contextlib import closing


def opened_stack():
    """Every engine, under the data folder's engine lock (EnginesBusy, naming the owner, when another process has
    it)."""
    from retrievers.stack import open_stack

    return closing(open_stack())


def opened_store():
    """Postgres alone, which many processes share safely: the commands that read only documents, annotations and
    catalogs work beside a running server or ingest, and touch no engine file."""
    from core.settings import Settings
    from retrievers.stack import make_store

    return closing(make_store(Settings.from_env()))
