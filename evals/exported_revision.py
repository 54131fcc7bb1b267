"""An earlier revision of the project's files, for benchmarks that run "before" by the code that ran before.

A bench that compares against what users ran until a change runs that revision's own code (exported from git into
the bench's output folder), rather than a switch kept in today's code only for the comparison.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def exported_revision(out: Path, revision: str) -> Path | None:
    """`revision`'s files in `out/baseline-REVISION` (exported once), or None outside a git checkout."""
    folder = out / f"baseline-{revision}"
    if (folder / "cli").is_dir():
        return folder
    archive = subprocess.run(["git", "-C", str(PROJECT), "archive", revision], capture_output=True, check=False)
    if archive.returncode != 0:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder
