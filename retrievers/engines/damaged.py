"""An embedded index found damaged (a truncated, zeroed or overwritten file), said in one line that names the repair.

Tantivy raises ValueError, and qdrant-edge a bare Exception, for a file it cannot read, at open or at the first read
that touches the damage. Either becomes `IndexDamaged` here: the command that needed the index stops with one line
naming `ragent check --repair`, which rebuilds the index from Postgres (`retrievers.ingestion.engine_damage`), and
the agent's tools report the index unavailable instead of failing the run. An index that cannot even be opened is
stood in for by `UnreadableIndex`, so that commands that never touch it (a question answered from annotations,
`ragent stats`, `ragent check --repair` itself) still run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from core.errors import IndexUnreadable

REPAIR = "run `ragent check --repair` to rebuild it from Postgres"
REASON_CHARS = 160
"""The most of an engine's own error text a line quotes: Tantivy's nests a whole debug dump of the IO error."""


class IndexDamaged(IndexUnreadable):
    """`what` (the keyword index in <folder>) cannot be read; `reason` says why, without the advice."""

    def __init__(self, what: str, reason: str):
        self.what, self.reason = what, f"{what} is damaged ({reason})"
        super().__init__(f"{self.reason}; {REPAIR}")


def engine_reason(error: BaseException) -> str:
    """The engine's error as a short phrase: its first line, cut at REASON_CHARS."""
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."


@contextmanager
def said_as_damage(what: str, error_type: type[Exception]) -> Iterator[None]:
    """Turn the engine's storage error into `IndexDamaged`. Only that exact type: the engines raise it bare, and a
    subclass (the project's own errors, a RuntimeError from a caller's mistake) is not damage and passes as it is."""
    try:
        yield
    except Exception as error:
        if type(error) is not error_type:
            raise
        raise IndexDamaged(what, engine_reason(error)) from None


class UnreadableIndex:
    """Stands in for an index that could not be opened: every use raises its `IndexDamaged`; closing does nothing."""

    def __init__(self, damage: IndexDamaged):
        self.damage = damage

    def close(self) -> None:
        """Nothing was opened."""

    def __getattr__(self, name: str) -> Any:
        return self._raise

    def _raise(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise self.damage
