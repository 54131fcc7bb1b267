"""The web page of the agent (`http.app` in `langgraph.json`): one page of plain HTML, CSS and JavaScript that talks
to the LangGraph API as the SDK does, and the few routes the API lacks (who the key is, the CSV an export wrote,
files uploaded for an ingest). docs/operations.md, "The web page", says what it does."""
