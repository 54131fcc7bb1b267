"""The LangGraph server's entry point (`langgraph.json`): the agent, ingest and documents graphs, compiled without a
checkpointer (the server brings `graph.checkpointing.server_checkpointer`).

This is the one place a services object is made without being asked for: the server imports graphs by module
path, so they are built here at import, on services that open the engines named by the environment at the first
run that needs them (a schema request from Studio opens nothing).
"""

from graph.builder import build_agent
from graph.documents_graph import build_documents
from graph.ingest_graph import build_ingest
from graph.services import AgentServices

services = AgentServices.from_env()
agent = build_agent(services).compile()
ingest = build_ingest(services).compile()
documents = build_documents(services).compile()
