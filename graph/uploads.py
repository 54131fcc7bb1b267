"""The web page's uploads in a scope's inbox: staged, then kept under the name a document is known by.

The page uploads a folder's files one request each (`PUT /web/api/upload/<batch>/<path>`) into a batch folder of
its own, `<inbox>/uploads/<batch>/<path>`, so that two uploads never mix, and then asks the `ingest` graph for that
batch. A batch is staging only:
- the documents it brings are recorded as coming from `<inbox>/uploaded/<path>`, the same name whichever batch
  brought them, so uploading a folder again is what `ragent ingest` of an edited folder is: a changed file updates
  its document (the new version), an unchanged one is reported unchanged, instead of each being skipped as another
  file's document;
- once ingested, its files replace those kept at that name (the latest version of each, as the documents hold);
- refused (an unknown bucket, a bad annotations file, ...), or given up by the page, it is deleted: nothing of a
  refused upload stays on the server's disk.
What a scope holds of uploads (staged and kept, `held_bytes`) is held to `IngestLimits.uploads_mb` by the page's
upload route, so that a key that may ingest cannot fill the disk; a document deleted takes its kept file with it
(`drop_unnamed`), so deleting is how a page user makes room.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from graph.ingest_roots import ingest_roots

STAGED = "uploads"
KEPT = "uploaded"
BATCH = re.compile(r"[0-9a-f]{32}")


def uploads_inbox(home: Path, scope: str) -> Path:
    """Where the page's uploads of `scope` go: its first ingest root, `<home>/inbox/<scope>` by default."""
    return ingest_roots(home, scope)[0].folder


def staged_batch(path: Path | None, inbox: Path) -> Path | None:
    """`path` when it is an upload batch of `inbox` (resolved, as `graph.ingest_roots.allowed_path` gives it)."""
    if path is None or path.parent != inbox / STAGED or not BATCH.fullmatch(path.name):
        return None
    return path


def kept_name(batch: Path) -> Callable[[str], str]:
    """A staged file's source as the documents record it: its path in the batch, under `<inbox>/uploaded/`."""
    kept = batch.parent.parent / KEPT

    def recorded(source: str) -> str:
        path = Path(source)
        return str(kept / path.relative_to(batch)) if path.is_relative_to(batch) else source

    return recorded


def keep(batch: Path) -> None:
    """The ingested batch's files moved to their kept names (replacing an earlier version), the batch deleted."""
    recorded = kept_name(batch)
    for file in sorted(p for p in batch.rglob("*") if p.is_file()):
        target = Path(recorded(str(file)))
        target.parent.mkdir(parents=True, exist_ok=True)
        file.replace(target)
    discard(batch)


def discard(batch: Path) -> None:
    shutil.rmtree(batch, ignore_errors=True)


def held_bytes(inbox: Path) -> int:
    """The bytes of every file the scope's inbox holds of uploads: its staged batches (and files being written) and
    the files kept once ingested."""
    folders = [inbox / STAGED, inbox / KEPT]
    return sum(p.stat().st_size for folder in folders for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def drop_unnamed(inbox: Path, named: set[str]) -> None:
    """The kept files no document of the scope is from (`named`: the sources of its documents under the kept folder)
    removed, with the folders that held only them."""
    kept = inbox / KEPT
    for file in sorted(kept.rglob("*")):
        if file.is_file() and not file.is_symlink() and str(file) not in named:
            file.unlink(missing_ok=True)
            prune_empty(file.parent, kept)


def prune_empty(folder: Path, stop: Path) -> None:
    """`folder` and the folders above it up to `stop` (not included) removed while empty: what a refused file's
    request made, so that nothing of it stays."""
    while folder.is_relative_to(stop) and folder != stop:
        try:
            folder.rmdir()
        except OSError:  # not empty (another file of the batch), or already gone
            return
        folder = folder.parent
