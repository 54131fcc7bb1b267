"""Paths as a server's clients see them: from the ingest root that holds them, never the server's own folders.

A document's `source` is stored as the absolute path of its file (ingest compares it to tell two files apart), and
the loaders' reasons name the files they skip; over HTTP these told every client where the server keeps its data
(its user's home, the data folder's location). The `documents` and `ingest` graphs show each path from the ingest
root of the request's scope that holds it, named as that root is shown (`inbox/notes/a.md` for a file of
`<home>/inbox/<scope>/notes/a.md`: `graph.ingest_roots`), and any other path by its file name.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from graph.ingest_roots import IngestRoot

_ABSOLUTE = re.compile(r"(?<![\w.:/~])/[^\s'\"(),;]+")
"""An absolute path within a message, up to the first space or quote (a path with spaces is cut there: what follows
is a plain word, and no folder of the server's is left in it)."""


def served_path(path: str, roots: list[IngestRoot]) -> str:
    """`path` from the ingest root that holds it ('inbox/notes/a.md'), else its file's name; not a path (a sample's
    'sample://contracts') as it is."""
    if not path.startswith("/"):
        return path
    for folder, shown in roots:
        if path == str(folder) or path.startswith(f"{folder}/"):
            return (PurePosixPath(shown) / path[len(str(folder)) + 1 :]).as_posix().rstrip("/")
    return PurePosixPath(path).name


def served_text(text: str, roots: list[IngestRoot]) -> str:
    """A message with each absolute path in it shown as `served_path` shows it."""
    return _ABSOLUTE.sub(lambda found: served_path(found.group(), roots), text)
