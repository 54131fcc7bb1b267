"""The server's authentication and authorization, as LangGraph custom auth (`auth.path` in `langgraph.json`).

Every request needs an API key (`x-api-key: ...`, as `langgraph_sdk.get_client(api_key=...)` sends it, or
`Authorization: Bearer ...`); the key names an identity, its scopes and whether it may ingest (`graph.access.keys`).
Then, per resource:
- threads belong to their owner and scope: created with `owner` and `scope` (empty until the first run when the
  identity has several) stamped in their metadata, and every read, search, update, delete, copy, stream and run
  filtered by owner and by the scopes the key may use now, so another identity gets 404; a client may not choose
  a new thread's id, which would tell it another identity holds that id (`graph.access.thread_ids`);
- a run's scope is decided here from the identity and the thread (`Identity.scope_for`) and written into the run's
  context, whatever the client sent; the thread is bound to it at its first run. Resuming a thread that waits for
  no answer is refused with 409: LangGraph would run nothing and return the old state, which a client would take
  for the reply to its resume;
- assistants can be read (they are this server's graphs) and not changed; crons and the store are not used
  here and are refused.
`ragent serve --no-auth` sets RAGENT_NO_AUTH for single-user development: requests from a loopback address then
act as the every-scope identity `local`, and any other address is refused.
"""

from __future__ import annotations

import asyncio
import os
from contextvars import ContextVar
from functools import cache
from typing import Any

import httpx
from langgraph_sdk import Auth, get_client

from core.errors import InvalidInput
from core.scope import checked_scope
from core.settings import Settings
from graph.access.keys import ANY_SCOPE, KeyRing
from graph.access.tenancy import Identity, ScopeRefused
from graph.access.thread_ids import CHOSEN_BY_THE_SERVER, made_just_now

NO_AUTH_ENV = "RAGENT_NO_AUTH"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
LOCAL = Identity("local", (ANY_SCOPE,), may_ingest=True)
PROTECTED_METADATA = ("owner", "scope")
UNBOUND = ""
"""The `scope` of a thread whose first run has not set it yet (made by an identity with several scopes)."""

auth = Auth()


@cache
def key_ring() -> KeyRing:
    return KeyRing(Settings.from_env().home)


@cache
def loopback():
    """The server's own API in process (the SDK's ASGI transport): used here to read a thread's owner, scope and
    status and to bind its scope. It skips authentication but not these handlers, which see the caller's
    identity (the request runs in the caller's context)."""
    return get_client()


binding: ContextVar[str | None] = ContextVar("binding", default=None)
"""The scope `run_in_own_scope` is writing into a thread's metadata: set only around that call, in the caller's
context, so no client request can carry it."""


def presented_key(headers: dict[bytes, bytes]) -> str | None:
    if key := headers.get(b"x-api-key"):
        return key.decode("latin-1").strip()
    scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes], scope: dict[str, Any]) -> Auth.types.MinimalUserDict:
    if os.environ.get(NO_AUTH_ENV) == "1":
        client = (scope.get("client") or ("",))[0]
        if client in LOOPBACK_HOSTS:
            return LOCAL.as_user()
        raise Auth.exceptions.HTTPException(401, detail="this server takes requests from its own machine only")
    presented = presented_key(headers)
    if not presented:
        raise Auth.exceptions.HTTPException(
            401, detail="this server needs an API key: send it as the x-api-key header (or Authorization: Bearer)"
        )
    key = await asyncio.to_thread(key_ring().verify, presented)
    if key is None:
        raise Auth.exceptions.HTTPException(401, detail="this API key is not valid here (mistyped or revoked)")
    return Identity.of_key(key).as_user()


def identity(ctx: Auth.types.AuthContext) -> Identity:
    return Identity.of_user(ctx.user)


def refused(status: int, reason: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status, detail=reason)


def asked_scope(value: object) -> str | None:
    try:
        return None if value is None else checked_scope(value)
    except InvalidInput as error:
        raise refused(422, str(error)) from None


def resolved(caller: Identity, asked: str | None, thread_scope: str | None = None) -> str:
    try:
        return caller.scope_for(asked, thread_scope)
    except ScopeRefused as error:
        raise refused(403, str(error)) from None


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> bool:
    raise refused(403, f"{ctx.resource} {ctx.action} is not offered by this server")


@auth.on(resources=["assistants"], actions=["read", "search"])
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> None:
    return None


def visible(caller: Identity) -> Auth.types.FilterType:
    """The caller's threads in the scopes it may use now: a key that lost a scope no longer sees that scope's
    threads, even under the same identity."""
    if ANY_SCOPE in caller.scopes:
        return {"owner": caller.name}
    return {"owner": caller.name, "$or": [{"scope": scope} for scope in (*caller.scopes, UNBOUND)]}


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Read, search, delete, copy and the rest: the caller's threads only."""
    return visible(identity(ctx))


@auth.on.threads.create
async def stamp_new_thread(ctx: Auth.types.AuthContext, value: Auth.types.on.threads.create.value):
    """The server keeps the metadata object it passed here, so it is changed in place. A copy passes none: the
    copy keeps its original's, which the caller may read."""
    caller = identity(ctx)
    metadata = value.get("metadata")
    if metadata is not None:
        if not made_just_now(value.get("thread_id")):
            raise refused(422, CHOSEN_BY_THE_SERVER)
        scope = asked_scope(metadata.get("scope"))
        metadata["owner"] = caller.name
        metadata["scope"] = resolved(caller, scope) if scope or caller.default_scope else UNBOUND
    return visible(caller)


@auth.on.threads.update
async def keep_owner_and_scope(ctx: Auth.types.AuthContext, value: Auth.types.on.threads.update.value):
    """The owner and scope are the server's; asking to change them on a thread the caller may not see is answered
    as for a thread that does not exist (a 403 there told another tenant the id was in use)."""
    metadata = value.get("metadata") or {}
    bound = binding.get()
    if any(name in metadata for name in PROTECTED_METADATA) and not (bound and metadata == {"scope": bound}):
        if await existing_thread(value.get("thread_id")) is None:
            raise refused(404, f"Thread with ID {value.get('thread_id')} not found")
        raise refused(403, "a thread's owner and scope are set by the server and cannot be changed")
    return visible(identity(ctx))


@auth.on.threads.create_run
async def run_in_own_scope(ctx: Auth.types.AuthContext, value: Auth.types.on.threads.create_run.value):
    caller = identity(ctx)
    kwargs = value["kwargs"]
    context, given = kwargs.get("context") or {}, kwargs.get("input")
    if not isinstance(context, dict):
        raise refused(422, "a run's context is an object")
    if isinstance(given, dict):
        await check_input_keys(value.get("assistant_id"), given)
        check_input_messages(given)
    asked = asked_scope(context.get("scope") or (given.get("scope") if isinstance(given, dict) else None))
    thread = await existing_thread(value.get("thread_id"))  # None for a thread the caller may not see
    named = value.get("thread_id")  # None for a run without a thread: the server makes its temporary one
    if thread is None and named is not None and value.get("if_not_exists") == "create" and not made_just_now(named):
        raise refused(422, CHOSEN_BY_THE_SERVER)
    thread_scope = ((thread.get("metadata") or {}).get("scope") or None) if thread else None
    scope = resolved(caller, asked, thread_scope)
    if thread is not None and resumes(kwargs) and thread.get("status") != "interrupted":
        raise refused(
            409,
            f"thread {thread['thread_id']} is not waiting for an answer (its status is {thread.get('status')}); "
            "ask a new question with an input instead of resuming",
        )
    kwargs["context"] = {**context, "scope": scope}
    value["metadata"].update(owner=caller.name, scope=scope)  # the metadata of a thread this run creates
    if thread is not None and thread_scope is None:  # its first run
        token = binding.set(scope)
        try:
            await loopback().threads.update(thread["thread_id"], metadata={"scope": scope})
        finally:
            binding.reset(token)
    return visible(caller)


_GRAPH_OF: dict[str, str | None] = {}
"""The graph of each assistant a run names, read once: clients cannot create or change assistants here (only this
server's graphs exist), so it never changes, and a run's creation need not read it again."""


async def check_input_keys(assistant_id: object, given: dict[str, Any]) -> None:
    """A key the run's graph does not take is refused: LangGraph drops it without a word, so a misspelt option
    ("limitt") or one a graph lacks would run as if it had not been sent (an ingest of every document). The
    graphs' modules are imported here, not with this module, which `ragent serve` imports for its checks. An
    assistant that does not exist is left to the server, which says so."""
    from graph.documents_graph import DocumentsRequest
    from graph.ingest_graph import IngestRequest
    from graph.state import InputState

    key = str(assistant_id)
    if key not in _GRAPH_OF:
        try:
            _GRAPH_OF[key] = (await loopback().assistants.get(key)).get("graph_id")
        except httpx.HTTPStatusError:
            return
    graph = _GRAPH_OF[key]
    request = {
        "agent": InputState,
        "agent_single_loop": InputState,
        "ingest": IngestRequest,
        "documents": DocumentsRequest,
    }.get(graph)
    if request is None:
        return
    taken = request.__required_keys__ | request.__optional_keys__
    if unknown := sorted(set(given) - taken):
        raise refused(
            422,
            f"the {graph} graph takes no input {', '.join(map(repr, unknown))}; it takes {', '.join(sorted(taken))}",
        )


def check_input_messages(given: dict[str, Any]) -> None:
    """A run's input carries the new turn, not a conversation (`graph.history`): more is refused before the run
    and its input are stored."""
    from graph.history import checked_run_messages

    try:
        checked_run_messages(given.get("messages"))
    except InvalidInput as error:
        raise refused(413, str(error)) from None


def resumes(kwargs: dict[str, Any]) -> bool:
    command = kwargs.get("command")
    return isinstance(command, dict) and command.get("resume") is not None


async def existing_thread(thread_id: object) -> dict[str, Any] | None:
    if thread_id is None:
        return None
    try:
        return await loopback().threads.get(str(thread_id))
    except httpx.HTTPStatusError as error:
        if error.response.status_code in (404, 422):
            return None
        raise
