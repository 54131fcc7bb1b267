"""The LangGraph server's entry point (`langgraph.json`): the agent (the orchestrator), the single-loop agent, ingest
and documents graphs, compiled without a checkpointer (the server brings `graph.checkpointing.server_checkpointer`).

This is the one place a services object is made without being asked for: the server imports graphs by module
path, so they are built here at import, on services that open the engines named by the environment at the first
run that needs them (a schema request from Studio opens nothing). Under `ragent serve` (SERVER_URL_ENV set), which
never reloads, they are opened here: the server owns the data folder's engines from its start, so a command beside
it is refused at once rather than only after the first run took them.
"""

import os

import structlog

from core.settings import keep_files_private
from graph.builder import build_agent
from graph.documents_graph import build_documents
from graph.ingest_graph import build_ingest
from graph.ingest_roots import left_in_the_inbox
from graph.services import AgentServices
from graph.single_loop.builder import build_single_loop
from retrievers.engines.lock import SERVER_URL_ENV

keep_files_private()
services = AgentServices.from_env()
agent = build_agent(services).compile()
agent_single_loop = build_single_loop(services).compile()
ingest = build_ingest(services).compile()
documents = build_documents(services).compile()

if os.environ.get(SERVER_URL_ENV):
    services.stack  # noqa: B018 (opened for its engine lock)
    if note := left_in_the_inbox(services.stack.settings.home):
        structlog.stdlib.get_logger(__name__).warning(note)
