"""Storage and retrieval: the engines (`engines`), the Postgres store (`postgres`), ingestion (`ingestion`) and the
loaders of corpora (`loaders`), wired together by `stack` and searched by `search`. It imports only `core` (and
`english`), never the agent: nothing here knows about LangGraph."""
