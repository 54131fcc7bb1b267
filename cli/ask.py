"""`ragent ask` and `ragent resume`: run the agent on a thread checkpointed in Postgres, ask the human at a
clarification (in a terminal) or say how to resume (anywhere else), and print the answer with its citations."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from cli.output import print_json, run_record
from graph.access.tenancy import check_thread_scope
from graph.builder import compile_agent
from graph.checkpointing import postgres_checkpointer
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.errors import RagentError
from retrievers.models import DEFAULT_SCOPE


@contextmanager
def agent_session() -> Iterator[tuple[CompiledStateGraph, AgentServices]]:
    """Services on the engines the environment names, and the agent compiled on them with a checkpointer on their
    Postgres; both closed when the block ends."""
    with AgentServices.from_env() as services, postgres_checkpointer(services.stack.store.url) as saver:
        yield compile_agent(services, saver), services


def option_reply(option: dict[str, Any]) -> dict[str, Any]:
    """An offered option as the answer that chooses it."""
    return {k: v for k, v in option.items() if k != "label"}


def print_clarification(payload: dict[str, Any], thread: str) -> None:
    print(f"\nI need your help ({payload['kind']}): {payload['reason']}.")
    if payload.get("error"):
        print(f"  {payload['error']}")
    for a in payload["attempts"]:
        print(f"  tried {a['tool']} on {a['bucket']} ({a['route']}): {a['status']}, {a['total_hits']} hit(s)")
    for number, option in enumerate(payload["options"], start=1):
        print(f"  [{number}] {option['label']}")
    print(f"thread {thread}; to answer later: ragent resume {thread} --answer N (an option's number, or JSON)")


def print_explanation(values: dict[str, Any]) -> None:
    """How the run read the question and what it did: the decomposition (with the previous question it refines, the
    order, limit, documents and unit it asks for when it does, and the words it could not map with the nearest
    values the index holds), every decision, every tool call, and who composed the answer, with the verdict on
    each of its sentences and how it came about when it was not the first answer tried."""
    d = values["decomposition"]
    print(
        f"\n-- decomposition: intent={d.intent} buckets={d.buckets} constraints="
        + json.dumps([[c.field, c.op, c.value] for c in d.constraints], default=str)
        + f" topic={d.topic_terms}"
        + (f" order_by={d.order_by.field} {d.order_by.direction}" if d.order_by else "")
        + (f" limit={d.limit}" if d.limit is not None else "")
        + (f" doc_ids={d.doc_ids}" if d.doc_ids else "")
        + (f" unit_field={d.unit_field}" if d.unit_field else "")
    )
    if d.follow_up_of:
        print(f"-- follow-up of: {d.follow_up_of!r}")
    for phrase in d.unmapped:
        nearest = ", ".join(f"{c.field} = {c.value!r}" for c in phrase.nearest) or "nothing near"
        print(f"-- unmapped: {phrase.text!r}; nearest: {nearest}")
    for decision in values.get("decisions", []):
        print(f"-- decision: {decision.action}: {decision.reason}")
    for e in values.get("evidence", []):
        print(
            f"-- call {e.step} [{e.route}] {e.call.tool} {json.dumps(e.call.arguments)[:160]} "
            f"-> {e.envelope.status} ({e.envelope.total_hits} hits)"
        )
    if answer := values.get("answer"):
        print(f"-- answer composed by: {answer.composed_by}")
        for note in answer.notes:
            print(f"-- note: {note}")
        for sentence in answer.sentences:
            cited = ", ".join(dict.fromkeys(c.doc_id for c in sentence.citations)) or "nothing"
            why = f" ({'; '.join(sentence.problems)})" if sentence.problems else ""
            print(f"-- sentence {sentence.verdict}, citing {cited}: {sentence.text[:120]!r}{why}")


def print_answer(values: dict[str, Any], home: Path | None = None) -> None:
    """The answer with its sources. With the data `home` this process runs on, an export is also shown by its full
    path: the answer itself names only the file, as a client of the server must not learn the server's folders."""
    answer = values["answer"]
    print(f"\n{answer.text}")
    if answer.export_path and home is not None:
        print(f"File: {home / answer.export_path}")
    if answer.citations and answer.format != "prose":  # a prose answer ends with its sources already
        print("\nSources: " + ", ".join(sorted({c.annotation_id or c.doc_id for c in answer.citations})))


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
    """Print the answer, or the clarification (with `explain`, how the run got there either way); with
    `ask_human`, answer it and go on. True when answered. `as_json` prints the run's record as JSON instead, and
    asks nothing (a script answers with `ragent resume`)."""
    config = {"configurable": {"thread_id": thread}}
    while True:
        state = agent.get_state(config)
        if as_json:
            print_json(run_record(state.values, state.interrupts, thread))
            return not state.interrupts
        if not state.interrupts:
            print_answer(state.values, home)
            if explain:
                print_explanation(state.values)
            return True
        payload = state.interrupts[0].value
        print_clarification(payload, thread)
        if explain:
            print_explanation(state.values)
        reply = ask_human(payload) if ask_human else None
        if reply is None:
            return False
        agent.invoke(Command(resume=reply), config, context=context)


def terminal_choice(payload: dict[str, Any]) -> dict[str, Any] | None:
    """Ask for an option number on the terminal; empty input leaves the question open."""
    options = payload["options"]
    while True:
        text = input(f"choose 1-{len(options)} (enter to leave it open): ").strip()
        if not text:
            return None
        if text.isdigit() and 1 <= int(text) <= len(options):
            return option_reply(options[int(text) - 1])


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


def ask(question: str, *, thread: str | None, context: AgentContext, explain: bool, as_json: bool = False) -> str:
    """A new thread, or a follow-up on `thread`, which must be in the thread's own scope: checked before the
    question is written into the thread, so a refused follow-up leaves it as it was (a clarification still open)."""
    thread = thread or uuid.uuid4().hex[:12]
    with agent_session() as (agent, services):
        check_thread_scope(context.scope, agent.get_state({"configurable": {"thread_id": thread}}).values.get("scope"))
        agent.invoke({"question": question}, {"configurable": {"thread_id": thread}}, context=context)
        settle_here(agent, services, thread, context, explain, as_json)
    return thread


def chosen(answer: Any, options: list[dict[str, Any]]) -> Any:
    """An option's number (as the clarification lists them) stands for that option; anything else is the answer
    as given, which the run checks."""
    if isinstance(answer, int) and not isinstance(answer, bool):
        if not 1 <= answer <= len(options):
            raise RagentError(f"--answer {answer}: choose an option from 1 to {len(options)}")
        return option_reply(options[answer - 1])
    return answer


def resume(
    thread: str, answer: Any, *, asked_scope: str | None, context: AgentContext, explain: bool, as_json: bool = False
) -> None:
    """The run keeps the thread's own scope; `asked_scope` (`--scope`), if another, is refused before anything
    runs (the graph would refuse it too: `graph.access.tenancy`)."""
    with agent_session() as (agent, services):
        state = agent.get_state({"configurable": {"thread_id": thread}})
        if not state.interrupts:
            raise SystemExit(f"ragent: error: thread {thread} is not waiting for an answer")
        own = state.values.get("scope", DEFAULT_SCOPE)
        check_thread_scope(asked_scope or own, own)
        context = replace(context, scope=own)
        answer = chosen(answer, state.interrupts[0].value["options"])
        agent.invoke(Command(resume=answer), {"configurable": {"thread_id": thread}}, context=context)
        settle_here(agent, services, thread, context, explain, as_json)
