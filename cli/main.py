"""`ragent`: ingestion, the three kinds of search, annotations, catalogs, the agent, evals, benchmarks, the server.

Every error a user can cause or fix (a bad bucket, an unreadable annotations file, an unreachable backend)
is printed as one line that says what to do, with exit status 2; nothing is half-written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import psycopg
from pydantic import ValidationError

from cli.exit_status import INTERRUPTED
from cli.parser import build_parser
from cli.terminal import visible_stdout
from core.errors import RagentError
from core.settings import keep_files_private


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` names; its exit status, with each error a user can fix said in one line."""
    args = build_parser().parse_args(argv)
    keep_files_private()
    visible_stdout()
    try:
        args.run(args)
    except RagentError as error:
        print(f"ragent: error: {error}", file=sys.stderr)
        return 2
    except ValidationError as error:
        first = error.errors()[0]
        print(f"ragent: error: {'.'.join(map(str, first['loc']))}: {first['msg']}", file=sys.stderr)
        return 2
    except psycopg.OperationalError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(
            f"ragent: error: Postgres failed during the run ({first_line}); "
            "committed documents are intact, run the command again",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:
        # The reader of the output left (`ragent documents list --json | head`): what it read is what it wanted.
        # Python's recipe: point stdout at devnull so that the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        after = "; documents already committed stay, the rest can be ingested again" if args.command == "ingest" else ""
        print(f"ragent: interrupted{after}", file=sys.stderr)
        return INTERRUPTED
    except OSError as error:
        # A file or folder the command needs cannot be made, read or written (the data folder under a file, a
        # read-only folder, a missing mount): the user fixes the path or its permissions, so say which and why.
        # An OSError naming no file (a refused connection) is not that, and stays a bug to see whole.
        if error.filename is None:
            raise
        print(
            f"ragent: error: {error.filename}: {error.strerror}; check RAGENT_HOME (or the path given) and its "
            "permissions",
            file=sys.stderr,
        )
        return 2
    return 0
