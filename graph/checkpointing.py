"""Checkpoints in Postgres (the embedded server by default), so that a thread outlives the process.

The CLI uses the synchronous saver on one connection; the LangGraph server (`langgraph.json`'s
`checkpointer.path`) enters `server_checkpointer`, an async saver on a connection pool, because the server
runs many threads at once on one event loop.

The serializer is told which of our types it may rebuild from a checkpoint; LangGraph refuses (or warns
about) any other, so a tampered checkpoint cannot make it construct arbitrary classes.

A thread keeps its state, not its history (`KeepsThreadsBounded`): each run's first checkpoint prunes the earlier
ones, and a deleted thread's rows go with it and their space is vacuumed for the next.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from psycopg import AsyncConnection, Connection
from psycopg.errors import DeadlockDetected, SerializationFailure, UntranslatableCharacter
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from core.errors import InvalidInput
from core.settings import Settings
from graph.failures import POSTGRES_FAILURES, postgres_unavailable
from graph.history import checked_stored_messages
from retrievers.postgres.embedded.revival import keep_embedded_postgres_up
from retrievers.stack import database_url

STATE_TYPES = (
    [("graph.decomposition", name) for name in ("Decomposition", "Constraint")]
    + [
        ("graph.schemas", name)
        for name in (
            "Route",
            "ToolCall",
            "Plan",
            "Evidence",
            "GradedHit",
            "Decision",
            "ClarifyOption",
            "ClarifyReply",
            "Citation",
            "Answer",
        )
    ]
    + [("graph.planners.model_calls", "ModelCall")]
)
SERDE = JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)
CONNECTION_OPTIONS = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
SERVER_POOL_SIZE = 16
VACUUM_SQL = "VACUUM checkpoints, checkpoint_blobs, checkpoint_writes"
PRUNE_MET_ANOTHER = (SerializationFailure, DeadlockDetected)
"""A prune that met another transaction on the thread's rows: the run goes on, and its next run prunes them."""


class RefusesNul:
    """Postgres text and JSONB cannot hold U+0000, and the savers keep short strings (the question) inline as JSONB;
    a NUL in a run's input would fail deep in the saver with a message about encodings. It is refused here with
    one that says what to change (an InvalidInput, which the server shows its client)."""

    @staticmethod
    def _refuse() -> InvalidInput:
        return InvalidInput(
            "the run's input holds a NUL character (U+0000), which Postgres cannot store; remove it and ask again"
        )

    def put(self, *args, **kwargs):
        try:
            return super().put(*args, **kwargs)
        except UntranslatableCharacter:
            raise self._refuse() from None

    def put_writes(self, *args, **kwargs):
        try:
            return super().put_writes(*args, **kwargs)
        except UntranslatableCharacter:
            raise self._refuse() from None

    async def aput(self, *args, **kwargs):
        try:
            return await super().aput(*args, **kwargs)
        except UntranslatableCharacter:
            raise self._refuse() from None

    async def aput_writes(self, *args, **kwargs):
        try:
            return await super().aput_writes(*args, **kwargs)
        except UntranslatableCharacter:
            raise self._refuse() from None


class SaysOutages:
    """The server's saver meets a Postgres that is gone (killed, being restarted: `retrievers.postgres.embedded.
    revival`) as the pool's PoolTimeout or psycopg's OperationalError, which the server shows its client as "An
    internal error occurred"; they are said as the agent's steps say them (`graph.failures`)."""

    async def aget_tuple(self, config):
        try:
            return await super().aget_tuple(config)
        except POSTGRES_FAILURES as error:
            raise postgres_unavailable(error, "reading the thread's checkpoint") from None

    async def aput(self, *args, **kwargs):
        try:
            return await super().aput(*args, **kwargs)
        except POSTGRES_FAILURES as error:
            raise postgres_unavailable(error, "writing the thread's checkpoint") from None

    async def aput_writes(self, *args, **kwargs):
        try:
            return await super().aput_writes(*args, **kwargs)
        except POSTGRES_FAILURES as error:
            raise postgres_unavailable(error, "writing the thread's checkpoint") from None


def _checked(checkpoint: dict, new_versions: dict) -> None:
    """A state whose messages outgrow any run's is refused (`graph.history`): it was written around the graph."""
    if "messages" in new_versions:
        checked_stored_messages(checkpoint["channel_values"].get("messages") or [])


def _starts_a_run(config: dict, metadata: dict) -> bool:
    """The checkpoint a run's input makes, in the thread's root graph: what came before it is the thread's past."""
    return metadata.get("source") == "input" and not config["configurable"].get("checkpoint_ns")


class KeepsThreadsBounded:
    """A thread's rows hold its latest state only. Every checkpoint of every run stays in the saver's tables until
    the thread is deleted, each with the channels that changed in it (the whole message list again), so a thread's
    rows grew with each run however short its state was kept; a run's first checkpoint therefore prunes the
    thread's earlier ones (LangGraph's `keep_latest`: the new checkpoint and the values it still reads). A
    clarification resumed, or a run that failed, goes on from that checkpoint as before; the thread's history shows
    its current run only. A deleted thread's rows are deleted (LangGraph's runtime asks for that) and the tables
    vacuumed: their space is reused rather than left to grow the database."""

    def put(self, config, checkpoint, metadata, new_versions):
        _checked(checkpoint, new_versions)
        stored = super().put(config, checkpoint, metadata, new_versions)
        if _starts_a_run(config, metadata):
            with suppress(*PRUNE_MET_ANOTHER):
                self.prune([stored["configurable"]["thread_id"]], strategy="keep_latest")
        return stored

    async def aput(self, config, checkpoint, metadata, new_versions):
        _checked(checkpoint, new_versions)
        stored = await super().aput(config, checkpoint, metadata, new_versions)
        if _starts_a_run(config, metadata):
            with suppress(*PRUNE_MET_ANOTHER):
                await self.aprune([stored["configurable"]["thread_id"]], strategy="keep_latest")
        return stored

    def delete_thread(self, thread_id: str) -> None:
        super().delete_thread(thread_id)
        with self._cursor() as cur:
            cur.execute(VACUUM_SQL)

    async def adelete_thread(self, thread_id: str) -> None:
        await super().adelete_thread(thread_id)
        async with self._cursor() as cur:
            await cur.execute(VACUUM_SQL)


class CheckpointSaver(KeepsThreadsBounded, RefusesNul, PostgresSaver):
    pass


class AsyncCheckpointSaver(KeepsThreadsBounded, SaysOutages, RefusesNul, AsyncPostgresSaver):
    pass


@contextmanager
def postgres_checkpointer(url: str) -> Iterator[PostgresSaver]:
    with Connection.connect(url, **CONNECTION_OPTIONS) as conn:
        saver = CheckpointSaver(conn, serde=SERDE)
        saver.setup()
        yield saver


@asynccontextmanager
async def server_checkpointer() -> AsyncIterator[AsyncPostgresSaver]:
    """The LangGraph server's checkpointer: `DATABASE_URL`, else the embedded Postgres under RAGENT_HOME, which the
    server then starts again whenever its postmaster dies (`retrievers.postgres.embedded.revival`). Starting the
    embedded server blocks, so it runs off the event loop."""
    settings = Settings.from_env()
    url = await asyncio.to_thread(database_url, settings)
    if settings.embedded_postgres_dir is not None:
        keep_embedded_postgres_up(settings.embedded_postgres_dir)
    async with AsyncConnectionPool(
        url,
        min_size=1,
        max_size=SERVER_POOL_SIZE,
        kwargs=CONNECTION_OPTIONS,
        connection_class=AsyncConnection,
        # a connection broken by a Postgres restart is replaced, not handed out to the next run
        check=AsyncConnectionPool.check_connection,
        open=False,
    ) as pool:
        saver = AsyncCheckpointSaver(pool, serde=SERDE)
        await saver.setup()
        yield saver
