"""The agents a question can be asked of: the name a user picks (`ragent ask --agent`) and the graph id the LangGraph
server serves it under (`langgraph.json`). Names only, so that the command line's parser can offer them without
importing LangGraph.

A run records its graph's id in its thread's checkpoints, as the server's runs do (LangGraph keeps a run's
configurable strings in each checkpoint's metadata), so that a thread is resumed by the agent that began it:
`ragent resume` takes no `--agent`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

AGENTS = {"orchestrator": "agent", "single-loop": "agent_single_loop"}
"""Each agent's name and its graph id."""
DEFAULT_AGENT = "orchestrator"
GRAPH_ID = "graph_id"
"""The configurable key, and so the checkpoint metadata key, of a run's graph id: the one the server sets."""


def thread_graph(checkpointer: BaseCheckpointSaver, thread: str) -> str:
    """The id of the graph that wrote `thread`'s latest checkpoint: the orchestrator's for a thread that records none
    (begun before there were two agents) or that does not exist."""
    latest = checkpointer.get_tuple({"configurable": {"thread_id": thread}})
    return (latest.metadata.get(GRAPH_ID) if latest else None) or AGENTS[DEFAULT_AGENT]
