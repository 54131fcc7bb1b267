"""Each agent's graph builder by its graph id (`graph.agents.AGENTS`), for the places that compile an agent by name
with their own checkpointer: the command line (`cli.ask`) and the evaluations (`evals.agent_target`). The server
reads the same builders through `langgraph.json`."""

from __future__ import annotations

from graph.agents import AGENTS
from graph.builder import build_agent
from graph.single_loop.builder import build_single_loop

BUILDERS = {AGENTS["orchestrator"]: build_agent, AGENTS["single-loop"]: build_single_loop}
