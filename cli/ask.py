"""`ragent ask` and `ragent resume`: run the agent on a thread checkpointed in Postgres, ask the human at a
clarification (in a terminal) or say how to resume (anywhere else), and print the answer with its citations."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from cli.printing import chosen, show_until_settled, terminal_choice
from cli.progress import progress_callbacks
from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE
from graph.access.tenancy import check_thread_scope
from graph.agent_graphs import BUILDERS
from graph.agents import AGENTS, DEFAULT_AGENT, GRAPH_ID, thread_graph
from graph.checkpointing import postgres_checkpointer
from graph.context import AgentContext
from graph.nodes.decompose import checked_question
from graph.services import AgentServices


@contextmanager
def agent_session(
    agent_name: str = DEFAULT_AGENT, *, thread: str | None = None
) -> Iterator[tuple[CompiledStateGraph, AgentServices]]:
    """Services on the engines the environment names, and the agent (`graph.agents.AGENTS`; with `thread`, the one
    that began it) compiled on them with a checkpointer on their Postgres; both closed when the block ends."""
    with AgentServices.from_env() as services, postgres_checkpointer(services.stack.store.url) as saver:
        graph_id = thread_graph(saver, thread) if thread is not None else AGENTS[agent_name]
        agent = BUILDERS[graph_id](services).compile(checkpointer=saver)
        yield agent.with_config(configurable={GRAPH_ID: graph_id}), services  # recorded in every checkpoint


def running(thread: str) -> dict[str, Any]:
    """The config of a run on `thread`, with the terminal's progress while it waits on the chat model."""
    return {"configurable": {"thread_id": thread}, "callbacks": progress_callbacks()}


def settle(
    agent: CompiledStateGraph,
    thread: str,
    context: AgentContext,
    *,
    explain: bool,
    ask_human: Callable[[dict[str, Any]], dict[str, Any] | None] | None,
    home: Path | None = None,
    as_json: bool = False,
) -> bool:
    """`cli.printing.show_until_settled` for a thread of `agent` in this process."""
    config = {"configurable": {"thread_id": thread}}

    def state() -> tuple[dict[str, Any], dict[str, Any] | None]:
        current = agent.get_state(config)
        return current.values, current.interrupts[0].value if current.interrupts else None

    return show_until_settled(
        state,
        lambda reply: agent.invoke(Command(resume=reply), running(thread), context=context),
        thread,
        explain=explain,
        ask_human=ask_human,
        as_json=as_json,
        home=home,
    )


def settle_here(
    agent: CompiledStateGraph,
    services: AgentServices,
    thread: str,
    context: AgentContext,
    explain: bool,
    as_json: bool = False,
) -> None:
    """`settle` for a command run in this process: the terminal answers a clarification when there is one, and an
    export is shown by its path in this process's data home."""
    terminal = terminal_choice if sys.stdin.isatty() else None
    settle(
        agent, thread, context, explain=explain, ask_human=terminal, home=services.stack.settings.home, as_json=as_json
    )


def ask(
    question: str,
    *,
    thread: str | None,
    context: AgentContext,
    explain: bool,
    as_json: bool = False,
    agent_name: str = DEFAULT_AGENT,
) -> str:
    """A new thread, or a follow-up on `thread`, which must be in the thread's own scope: checked before the
    question is written into the thread, so a refused follow-up leaves it as it was (a clarification still open).
    `agent_name` names the agent that answers (`graph.agents.AGENTS`)."""
    thread = thread or uuid.uuid4().hex[:12]
    question = checked_question(question)  # before LangGraph writes it into the thread's first checkpoint
    with agent_session(agent_name) as (agent, services):
        check_thread_scope(context.scope, agent.get_state({"configurable": {"thread_id": thread}}).values.get("scope"))
        agent.invoke({"question": question}, running(thread), context=context)
        settle_here(agent, services, thread, context, explain, as_json)
        if note := empty_scope_note(services, context.scope):
            print(note, file=sys.stderr)
    return thread


def empty_scope_note(services: AgentServices, scope: str) -> str | None:
    """The answer itself says when a scope holds no document (`graph.nodes.decompose`); the CLI, whose user may
    read every scope, adds where the demo's documents are, since the usual cause is a new user asking about the
    sample outside its scope."""
    holds = services.stack.store.bucket_document_counts  # one grouped count over the documents' (scope, bucket) index
    if scope == SAMPLE_SCOPE or holds(scope) or not holds(SAMPLE_SCOPE):
        return None
    return f"note: the sample corpus is in scope {SAMPLE_SCOPE!r}: ask with --scope {SAMPLE_SCOPE}"


def resume(
    thread: str, answer: Any, *, asked_scope: str | None, context: AgentContext, explain: bool, as_json: bool = False
) -> None:
    """The run keeps the thread's own scope and agent; `asked_scope` (`--scope`), if another, is refused before
    anything runs (the graph would refuse it too: `graph.access.tenancy`)."""
    with agent_session(thread=thread) as (agent, services):
        state = agent.get_state({"configurable": {"thread_id": thread}})
        if state.created_at is None:
            raise SystemExit(
                f"ragent: error: no thread {thread} in this data folder (`ragent ask` prints the id of the thread it "
                "starts)"
            )
        if not state.interrupts:
            raise SystemExit(f"ragent: error: thread {thread} is not waiting for an answer")
        own = state.values.get("scope", DEFAULT_SCOPE)
        check_thread_scope(asked_scope or own, own)
        context = replace(context, scope=own)
        answer = chosen(answer, state.interrupts[0].value["options"])
        agent.invoke(Command(resume=answer), running(thread), context=context)
        settle_here(agent, services, thread, context, explain, as_json)
