"""Which folders on the server's machine a scope's client may ingest from, and how their paths are shown.

A client names folders on the server's machine, so a request may name only folders under its scope's ingest roots:
`RAGENT_INGEST_ROOTS` (folders separated by the path separator; `{scope}` in one stands for the request's scope), by
default `<home>/inbox/{scope}` and the shared data folder. A relative path is taken inside the first root. One inbox
for every scope let one tenant's key ingest another's files into its own scope and read them back (issue 34): each
scope now has its own, and nothing above it (`inbox/` itself, a sibling's folder, a link out) is reached.

A root is shown to clients by its folder's name with the scope left out (`inbox`), so a scope sees its own inbox
as `inbox/` and never the server's folders or another scope's name (`graph.served_paths`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from core.errors import InvalidInput
from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE, checked_scope
from graph.access.keys import KeyRing
from retrievers.loaders import shared_data_dir

INGEST_ROOTS_ENV = "RAGENT_INGEST_ROOTS"
SCOPE_FIELD = "{scope}"
INBOX = "inbox"


class IngestRoot(NamedTuple):
    folder: Path
    """Resolved, like the paths checked against it: a data home reached through a symbolic link would otherwise
    refuse its own inbox."""
    shown: str
    """The name a client sees for it: `inbox` for `<home>/inbox/<scope>`."""


def ingest_roots(home: Path, scope: str) -> list[IngestRoot]:
    """The folders a request in `scope` may name, the first being where a relative path points."""
    configured = [root for root in os.environ.get(INGEST_ROOTS_ENV, "").split(os.pathsep) if root]
    templates = configured or [str(home / INBOX / SCOPE_FIELD), str(shared_data_dir())]
    return [_root(template, checked_scope(scope)) for template in templates]


def _root(template: str, scope: str) -> IngestRoot:
    shown = Path(*(part for part in Path(template).parts if part != SCOPE_FIELD)).name.replace(SCOPE_FIELD, scope)
    return IngestRoot(Path(template.replace(SCOPE_FIELD, scope)).expanduser().resolve(), shown)


def allowed_path(text: str | None, roots: list[IngestRoot]) -> Path | None:
    """The path, resolved (symbolic links and `..` included), if it lies under one of the scope's ingest roots; else
    refused in the client's own words, before anything is read (so a refusal tells nothing of what lies elsewhere).

    This checks the folder (or annotations file) named; the loader then holds every file in that folder to the
    same line, skipping and reporting links that lead out of it (`retrievers.loaders.files`)."""
    if not text:
        return None
    if not isinstance(text, str) or "\x00" in text:  # a client's JSON may hold anything; a NUL breaks every OS call
        raise InvalidInput(f"{text!r} is not a path; name a folder or file as text")
    path = Path(text).expanduser()
    resolved = (path if path.is_absolute() else roots[0].folder / path).resolve()
    if not any(resolved.is_relative_to(root.folder) for root in roots):
        raise InvalidInput(
            f"{text} is outside the folders this server ingests from for your scope "
            f"({', '.join(root.shown for root in roots)}); put the files there"
        )
    return resolved


def moved_into_scope(home: Path, scope: str) -> Callable[[str], str]:
    """Where a file of the scope's inbox was before each scope had its own, for a document ingested from there:
    `<home>/inbox/<scope>/handbook/a.md` was `<home>/inbox/handbook/a.md`. Moving the folder as the server's log
    asks, then ingesting it again, updates those documents instead of skipping each as another file's."""
    inbox = (home / INBOX).resolve()
    mine = inbox / scope

    def earlier(source: str) -> str:
        path = Path(source)
        return str(inbox / path.relative_to(mine)) if path.is_relative_to(mine) else source

    return earlier


def left_in_the_inbox(home: Path) -> str | None:
    """A line for the server's log at its start when the inbox itself holds files or folders that are no key's
    scope folder: put there before each scope had its own inbox, no scope ingests them any more, and only the
    operator knows whose they are. Files are never moved for them."""
    inbox = home / INBOX
    if not inbox.is_dir() or os.environ.get(INGEST_ROOTS_ENV):
        return None
    keys = KeyRing(home).keys()
    scopes = {DEFAULT_SCOPE, SAMPLE_SCOPE} | {scope for key in keys for scope in key.scopes}
    left = sorted(
        e.name for e in inbox.iterdir() if not e.name.startswith(".") and not (e.is_dir() and e.name in scopes)
    )
    if not left:
        return None
    return (
        f"{inbox} holds {', '.join(left[:5])}{f' and {len(left) - 5} more' if len(left) > 5 else ''}, in no key's "
        f"scope folder: each scope ingests from {inbox}/<scope>/ only, so move each into the folder of the scope it "
        "belongs to (docs/operations.md, 'Ingesting through the server')"
    )
