"""decompose: the question in the index's terms (intent, buckets, constraints on catalog fields).

It is the first node of every run, so it also checks the question (a run input that may come from anywhere:
the CLI, the server's API, Studio) and starts the run's state afresh: a thread that is asked a second question
keeps its history in the checkpoints, not in the new run's evidence and decisions.
"""

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph.context import AgentContext
from graph.services import AgentServices
from graph.state import AgentState
from retrievers.errors import InvalidInput

MAX_QUESTION_CHARS = 2000
"""Far above any real question; a longer one is a pasted document or an attack on the planner's cost."""


def checked_question(question: object) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("the question must be non-empty text")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"the question is {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    return question.strip()


def decompose(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    return {
        "decomposition": services.planner(runtime.context).decompose(checked_question(state.get("question"))),
        "evidence": Overwrite([]),
        "decisions": Overwrite([]),
        "graded": [],
        "pending": [],
        "tool_calls": 0,
        "attempt": 0,
        "route": None,
        "plan": None,
        "answer": None,
        "clarification": None,
    }
