"""Checkpoints in Postgres (the embedded server by default), so that a thread outlives the process.

The serializer is told which of our types it may rebuild from a checkpoint; LangGraph refuses (or warns
about) any other, so a tampered checkpoint cannot make it construct arbitrary classes.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from psycopg import Connection
from psycopg.rows import dict_row

STATE_TYPES = [
    ("graph.decomposition", name) for name in ("Decomposition", "Constraint")
] + [
    ("graph.schemas", name)
    for name in ("Route", "ToolCall", "Plan", "Evidence", "GradedHit", "Decision", "ClarifyOption", "ClarifyReply", "Citation", "Answer")
]
SERDE = JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


@contextmanager
def postgres_checkpointer(database_url: str) -> Iterator[PostgresSaver]:
    with Connection.connect(database_url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        saver = PostgresSaver(conn, serde=SERDE)
        saver.setup()
        yield saver
