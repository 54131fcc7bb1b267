"""The `ragent` process (`ragent`, `python -m cli`): the command (`cli.main.main`), then the exit with its status.

A module of its own that imports nothing before the command's modules (but its exit status, a module that imports
nothing), so that Ctrl-C while they load (the first 0.3 s of a command) ends the process as it does during the
command ("ragent: interrupted", status 130) instead of with a traceback from the middle of an import."""

from __future__ import annotations

import sys

from cli.exit_status import INTERRUPTED


def entry_point() -> None:
    """Run the command, then freeze what the process holds before it exits (`cli.collector`; only here, where the
    process ends, not in `main`, which tests call in their own)."""
    try:
        from cli.collector import freeze_before_exit
        from cli.main import main
    except KeyboardInterrupt:
        print("ragent: interrupted", file=sys.stderr)
        sys.exit(INTERRUPTED)
    status = main()
    freeze_before_exit()
    sys.exit(status)
