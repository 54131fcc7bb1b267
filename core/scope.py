"""Scopes: the tenants or workspaces whose documents never mix. Every layer names one (a command's --scope, a
server run's context, a document's field), so the names and their rule live here, below all of them."""

from __future__ import annotations

import re

from core.errors import InvalidInput

DEFAULT_SCOPE = "default"
SAMPLE_SCOPE = "sample"
"""Where the sample corpus goes unless a scope is named (`ragent demo`, `ragent serve`, `ragent ingest --dataset
sample`), so that a user's own documents in `default` never mix with it."""
SCOPE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
SCOPE_RULE = "letters, digits, '_.:-', up to 64 characters"


def checked_scope(value: object) -> str:
    """A scope as a client, a command line or a file gives it (any JSON value): a name SCOPE_RE accepts, else
    InvalidInput naming the rule."""
    if not isinstance(value, str) or not SCOPE_RE.match(value):
        raise InvalidInput(f"scope {value!r} is not valid ({SCOPE_RULE})")
    return value


def dataset_scope(dataset: str | None) -> str:
    """The scope documents go to when none is named: the sample corpus's own, else `default`."""
    return SAMPLE_SCOPE if dataset == "sample" else DEFAULT_SCOPE
