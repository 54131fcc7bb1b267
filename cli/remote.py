"""`ragent ask --server URL` and `ragent resume --server URL`: the question goes to a running ragent server through
`langgraph_sdk`, as any client's would, instead of opening the engines here.

A process that only talks to a server starts in a fraction of the time (no LangGraph, Postgres or engine to open),
and it works while the server holds the data folder's engines, which `ragent ask` on the same folder is refused.
The key is `--api-key` (or RAGENT_API_KEY), else the local key `ragent serve` wrote into the data folder
(`graph.access.keys.LOCAL_KEY_FILE`), else none (a server started with `--no-auth`). The server's state arrives as
JSON and is read back into the models the local path prints (`cli.printing`), so both print the same.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

from cli.environment import API_KEY_ENV, SERVER_ENV
from cli.printing import chosen, show_until_settled, terminal_choice
from core.errors import BackendUnavailable, InvalidInput, RagentError, ServerRefused
from core.settings import Settings
from graph.access.keys import LOCAL_KEY_FILE
from graph.agents import AGENTS, DEFAULT_AGENT, GRAPH_ID
from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.model_calls import ModelCall
from graph.schemas import Answer, Decision, Evidence

TIMEOUT_S = 300
"""A run that reaches a chat model or an embedder loading for the first time can take a while."""


def api_key(given: str | None) -> str | None:
    """`--api-key` (or RAGENT_API_KEY, its default), else the local key in the data folder, else None."""
    if given:
        return given.strip()
    local = Settings.from_env().home / LOCAL_KEY_FILE
    return local.read_text(encoding="utf-8").strip() if local.is_file() else None


def server_reason(response: httpx.Response) -> str:
    """The server's own words: the JSON `detail` (or `message`) of a refusal, else its text."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    if isinstance(body, dict):
        return str(body.get("detail") or body.get("message") or body)[:300]
    return str(body)[:300]


@contextmanager
def talking_to(url: str) -> Iterator[None]:
    """A server that cannot be reached, or that refuses, as a one-line error naming the server and what to do."""
    try:
        yield
    except httpx.TransportError as error:
        raise BackendUnavailable(
            f"cannot reach the ragent server at {url} ({error or type(error).__name__}); "
            f"start it with `ragent serve`, or check --server / {SERVER_ENV}"
        ) from None
    except httpx.HTTPStatusError as error:
        status, reason = error.response.status_code, server_reason(error.response)
        if status == 401:
            raise ServerRefused(
                f"the ragent server at {url} did not accept the API key: {reason} "
                f"(give one with --api-key or {API_KEY_ENV}; `ragent keys add` makes one)"
            ) from None
        raise ServerRefused(f"the ragent server at {url} refused ({status}): {reason}") from None


def server_thread(thread: str) -> str:
    """A thread on the server is named by the UUID the server gave it (`ragent ask --server` prints it); a local
    thread's id (12 hex digits) or a made-up one names none there, which the server says as a bare 400."""
    try:
        uuid.UUID(thread)
    except ValueError:
        raise InvalidInput(
            f"thread {thread!r} is not a server thread's id: a thread on a server is named by the UUID "
            "`ragent ask --server` printed when it started it"
        ) from None
    return thread


def connect(url: str, key: str | None) -> SyncLangGraphClient:
    return get_sync_client(url=url.rstrip("/"), api_key=key, timeout=TIMEOUT_S)


def run_context(context: AgentContext, scope: str | None) -> dict[str, Any]:
    """The run's settings as the server takes them; the scope only when one is asked for (the server decides the
    rest from the key and the thread)."""
    sent = {"max_tool_calls": context.max_tool_calls, "max_hits": context.max_hits}
    return {**sent, "scope": scope} if scope else sent


def readable(values: dict[str, Any]) -> dict[str, Any]:
    """A thread's state as the server sends it (JSON) read back into the models the printers take."""
    read = dict(values)
    if values.get("answer"):
        read["answer"] = Answer.model_validate(values["answer"])
    if values.get("decomposition"):
        read["decomposition"] = Decomposition.model_validate(values["decomposition"])
    read["decisions"] = [Decision.model_validate(d) for d in values.get("decisions") or []]
    read["evidence"] = [Evidence.model_validate(e) for e in values.get("evidence") or []]
    read["model_calls"] = [ModelCall.model_validate(c) for c in values.get("model_calls") or []]
    return read


def run(client: SyncLangGraphClient, url: str, thread: str, graph: str, **request: Any) -> None:
    """One run of the agent `graph` (its graph id) on the thread, to its end (an answer or a clarification); a run
    that failed on the server is reported with the server's reason."""
    output = client.runs.wait(thread, graph, raise_error=False, **request)
    failed = output.get("__error__") if isinstance(output, dict) else None
    if isinstance(failed, dict):
        raise RagentError(f"the run failed on the ragent server at {url}: {failed.get('message') or failed}")


def waiting_for(client: SyncLangGraphClient, thread: str) -> list[dict[str, Any]]:
    """The clarifications the thread waits on (empty when it waits for none)."""
    found = client.threads.get(thread).get("interrupts") or {}
    return [i["value"] for interrupts in found.values() for i in interrupts]


def settle_remote(
    client: SyncLangGraphClient,
    url: str,
    thread: str,
    graph: str,
    context: dict[str, Any],
    *,
    explain: bool,
    as_json: bool,
) -> None:
    """`cli.printing.show_until_settled` for a thread on the server: the terminal answers a clarification when there
    is one, and the run goes on on the server."""

    def state() -> tuple[dict[str, Any], dict[str, Any] | None]:
        payloads = waiting_for(client, thread)
        return client.threads.get_state(thread)["values"], payloads[0] if payloads else None

    show_until_settled(
        state,
        lambda reply: run(client, url, thread, graph, command={"resume": reply}, context=context),
        thread,
        explain=explain,
        ask_human=terminal_choice if sys.stdin.isatty() else None,
        as_json=as_json,
        server=url,
        readable=readable,
    )


def ask(
    url: str,
    key: str | None,
    question: str,
    *,
    thread: str | None,
    context: AgentContext,
    scope: str | None,
    explain: bool,
    as_json: bool = False,
    agent_name: str = DEFAULT_AGENT,
) -> str:
    """A new thread on the server, or a follow-up on `thread` (one of the caller's threads there); `scope` when the
    user named one, else the server's choice for the key (`sample` on `ragent serve --sample`); `agent_name` names
    the agent that answers (`graph.agents.AGENTS`)."""
    client, sent, graph = connect(url, key), run_context(context, scope), AGENTS[agent_name]
    with talking_to(url):
        thread = (
            server_thread(thread)
            if thread
            else client.threads.create(metadata={"scope": scope} if scope else None)["thread_id"]
        )
        run(client, url, thread, graph, input={"question": question}, context=sent)
        settle_remote(client, url, thread, graph, sent, explain=explain, as_json=as_json)
    return thread


def resume(
    url: str,
    key: str | None,
    thread: str,
    answer: Any,
    *,
    asked_scope: str | None,
    context: AgentContext,
    explain: bool,
    as_json: bool = False,
) -> None:
    """Answer the thread's clarification on the server, by the agent that began the thread (the server records its
    graph id in the thread's metadata); the server keeps the thread's own scope and refuses another (403)."""
    client, sent = connect(url, key), run_context(context, asked_scope)
    with talking_to(url):
        payloads = waiting_for(client, server_thread(thread))
        if not payloads:
            raise ServerRefused(f"thread {thread} is not waiting for an answer")
        reply = chosen(answer, payloads[0]["options"])
        graph = (client.threads.get(thread).get("metadata") or {}).get(GRAPH_ID) or AGENTS[DEFAULT_AGENT]
        run(client, url, thread, graph, command={"resume": reply}, context=sent)
        settle_remote(client, url, thread, graph, sent, explain=explain, as_json=as_json)
