"""decompose: the question in the index's terms (intent, buckets, constraints on catalog fields).

It is the first node of every run, so it also finds and checks the question (a run input that may come from
anywhere: the CLI, the server's API, Studio's chat) and starts the run's state afresh: a thread that is asked a
second question keeps its earlier turns in its messages, not in the new run's evidence and decisions. The
conversation carries on, though: the question joins the thread's messages, and the previous turn's decomposition,
still in the state until this node replaces it, goes to the planner, so that a follow-up ("which of those...")
refines that turn's result. Only the last turns stay in the thread (`graph.history.trimmed`).

A scope that holds no document at all is answered here, in so many words: nothing to search is no reason to ask
the human which bucket to search, and the answer says it to every client (CLI, server, Studio) alike.
"""

import re
import uuid

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from core.errors import InvalidInput
from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.history import trimmed
from graph.schemas import Answer
from graph.services import AgentServices
from graph.shown_answers import still_shown
from graph.state import AgentState
from tools.catalog import Catalog

MAX_QUESTION_CHARS = 2000
"""Far above any real question; a longer one is a pasted document or an attack on the planner's cost."""


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters but tab and line breaks: no one types them, and the planner's word matching would read
"a\x01b" as no name at all (a count of every receipt "from" it)."""


def checked_question(question: object) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("the question must be non-empty text")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"the question is {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as bad:  # lone surrogates: Python's reading of bytes that are not UTF-8 ("\xff\xfe")
        raise InvalidInput(
            f"the question is not valid Unicode text (bytes that are not UTF-8 at position {bad.start})"
        ) from None
    if control := _CONTROL.search(question):
        raise InvalidInput(
            f"the question holds a control character (U+{ord(control.group()):04X} at position {control.start()}); "
            "type it again as plain text"
        )
    return question.strip()


def asked(state: AgentState) -> tuple[str, HumanMessage]:
    """The question the run answers, and its message in the thread.

    A HumanMessage at the end of the thread that no run has taken up is the question (a chat client's
    `{"messages": [...]}`). Otherwise the `question` input is, as a new HumanMessage, unless the thread already ends
    on it (a clarification's retry runs this node again). A message a run took is known by its id: a run that
    stopped before its answer (a clarification left open, a failure) leaves its question last in the thread, and
    the next question asked there must not answer that one again."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage) and last.id != state.get("question_id"):
        return checked_question(last.text), last
    question = checked_question(state.get("question"))
    if isinstance(last, HumanMessage) and last.text.strip() == question:
        return question, last
    return question, HumanMessage(question, id=str(uuid.uuid4()))


def previous_reading(state: AgentState, catalog: Catalog) -> Decomposition | None:
    """The thread's previous decomposition, unless a bucket of it is gone from the catalog (its documents deleted,
    the scope changed): a follow-up cannot refine a result set that no longer exists."""
    previous = state.get("decomposition")
    return previous if previous is not None and all(b in catalog.buckets for b in previous.buckets) else None


def empty_scope_answer(catalog: Catalog) -> Answer | None:
    """The answer for a scope without documents (the catalog lists every bucket, each with none, until one holds
    some), None otherwise."""
    if any(bucket.documents for bucket in catalog.buckets.values()):
        return None
    return Answer(
        format="prose",
        text=f"Scope {catalog.scope!r} holds no documents yet, so no document can answer this. Add documents to it "
        f"(`ragent ingest PATH --bucket NAME --scope {catalog.scope}`, or the server's `ingest` graph), or ask in a "
        "scope that holds some.",
    )


def decompose(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    question, message = asked(state)
    catalog = services.catalog(runtime.context.scope)
    previous = previous_reading(state, catalog)
    planner = services.planner(runtime.context)
    messages = state.get("messages") or []
    removed = trimmed(messages, message)
    return {
        "question": question,
        "question_id": message.id,
        # add_messages keeps one message per id (the one already last is not added twice) and drops the removed
        "messages": [*removed, message],
        "answers": Overwrite(still_shown(state.get("answers") or {}, messages, removed)),
        "decomposition": planner.decompose(question, previous),
        "model_calls": Overwrite(list(planner.calls)),
        "evidence": Overwrite([]),
        "decisions": Overwrite([]),
        "graded": [],
        "pending": [],
        "tool_calls": 0,
        "attempt": 0,
        "route": None,
        "plan": None,
        "answer": empty_scope_answer(catalog),
        "clarification": None,
        "scope": runtime.context.scope,
    }


def after_decompose(state: AgentState) -> str:
    return "compose" if state["answer"] is not None else "route"
