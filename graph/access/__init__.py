"""Who may use the server, and for which scopes: API keys (`keys`), the scope a run may read (`tenancy`) and the
LangGraph custom auth that applies both to every HTTP request (`auth`, named in `langgraph.json`)."""
