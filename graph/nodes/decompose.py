"""decompose: the question in the index's terms (intent, buckets, constraints on catalog fields).

It is the first node of every run, so it also starts the run's state afresh: a thread that is asked a
second question keeps its history in the checkpoints, not in the new run's evidence and decisions.
"""

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def decompose(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    return {
        "decomposition": resources.planner(runtime.context).decompose(state["question"]),
        "evidence": Overwrite([]), "decisions": Overwrite([]), "graded": [], "pending": [],
        "tool_calls": 0, "attempt": 0, "route": None, "plan": None, "answer": None, "clarification": None,
    }
