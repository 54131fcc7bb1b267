"""Which scope a run may read: the caller's identity decides, never the client's context alone.

An authenticated caller (the LangGraph server puts it in `runtime.server_info.user`; its permissions are
`scope:<name>` entries and `ingest`) may name one of its scopes; an identity with a single scope needs to name
none. A thread keeps the scope of its first run: a later run on it (a follow-up, the answer to a clarification)
under another scope is refused, by the server before the run starts and by the graph itself (which is what
`ragent resume` meets, and the last line should a run reach the graph some other way).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput
from core.scope import DEFAULT_SCOPE, checked_scope
from graph.access.keys import ANY_SCOPE, ApiKey

SERVED_SCOPE_ENV = "RAGENT_SERVED_SCOPE"
"""The scope of runs that name none, for keys that may use every scope; set by `ragent serve --sample`."""
SCOPE_PERMISSION = "scope:"
INGEST_PERMISSION = "ingest"


class ScopeRefused(InvalidInput):
    """The run's scope is not the caller's, or not the thread's. An InvalidInput (a ValueError), whose message the
    LangGraph server shows a client as it is; it hides the text of other exception types."""


@dataclass(frozen=True)
class Identity:
    name: str
    scopes: tuple[str, ...]
    may_ingest: bool

    @classmethod
    def of_key(cls, key: ApiKey) -> Identity:
        return cls(key.identity, tuple(key.scopes), key.may_ingest)

    @classmethod
    def of_user(cls, user: Any) -> Identity:
        """From the server's user: the permissions `as_user` wrote. A user without them (a server configured with
        another auth) may use no scope."""
        permissions = list(getattr(user, "permissions", None) or [])
        scopes = tuple(p.removeprefix(SCOPE_PERMISSION) for p in permissions if p.startswith(SCOPE_PERMISSION))
        return cls(str(getattr(user, "identity", "")), scopes, INGEST_PERMISSION in permissions)

    def as_user(self) -> dict[str, Any]:
        """What `@auth.authenticate` returns: everything the graph needs travels in the permissions, which the
        server hands to the run whatever else it keeps of the user."""
        permissions = [SCOPE_PERMISSION + s for s in self.scopes] + ([INGEST_PERMISSION] if self.may_ingest else [])
        return {"identity": self.name, "display_name": self.name, "permissions": permissions}

    def may_use(self, scope: str) -> bool:
        return ANY_SCOPE in self.scopes or scope in self.scopes

    @property
    def default_scope(self) -> str | None:
        """The scope of a run that names none: the only one, the server's default for an every-scope key (`default`,
        or `sample` under `ragent serve --sample`: `SERVED_SCOPE_ENV`), else none."""
        if ANY_SCOPE in self.scopes:
            return checked_scope(os.environ.get(SERVED_SCOPE_ENV) or DEFAULT_SCOPE)
        return self.scopes[0] if len(self.scopes) == 1 else None

    def scope_for(self, asked: str | None, thread_scope: str | None = None) -> str:
        """The scope of a run that asks for `asked` (None: not named) on a thread bound to `thread_scope`."""
        scope = asked or thread_scope or self.default_scope
        if scope is None:
            raise ScopeRefused(
                f"{self.name} may use the scopes {', '.join(self.scopes)}; name one in the run's context "
                '(context={"scope": ...})'
            )
        if not self.may_use(scope):
            raise ScopeRefused(f"{self.name} may not use scope {scope!r} (its scopes: {', '.join(self.scopes)})")
        check_thread_scope(scope, thread_scope)
        return scope


def may_write(server_user: Any | None) -> bool:
    """Whether the caller may change documents (ingest, extract): anyone outside the server, and on it a key with
    the ingest permission."""
    return server_user is None or Identity.of_user(server_user).may_ingest


def request_scope(asked: object, server_user: Any | None, *, writes: str | None = None) -> str:
    """The scope a request of the ingest or documents graph works in: the one asked for, else the caller's own
    (`default` outside the server). `writes` says what the request does to documents when it changes them: on the
    server that needs the ingest permission, and only in the caller's scopes."""
    if asked is not None:
        checked_scope(asked)
    if server_user is None:
        return asked or DEFAULT_SCOPE
    identity = Identity.of_user(server_user)
    if writes and not identity.may_ingest:
        raise ScopeRefused(f"{identity.name} may not {writes} (ask for a key with ingestion allowed)")
    return identity.scope_for(asked or None)


def check_thread_scope(scope: str, thread_scope: str | None) -> None:
    if thread_scope is not None and scope != thread_scope:
        raise ScopeRefused(
            f"this thread belongs to scope {thread_scope!r} and cannot continue in {scope!r}; resume it without a "
            "scope (it keeps its own), or ask in a new thread"
        )


def checked_run_scope(asked: str, server_user: Any | None, thread_scope: str | None) -> str:
    """The graph's own check of a run's scope: the caller may use it (when the server says who called) and the
    thread was not bound to another."""
    if server_user is not None:
        Identity.of_user(server_user).scope_for(asked, thread_scope)
    check_thread_scope(asked, thread_scope)
    return asked
