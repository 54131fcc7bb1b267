"""The search engines and embedders a stack opens: keyword indexes (`keyword`), vector indexes (`vector`) and
embedders (`embedders`), with the lock that makes one process the owner of the embedded ones. Imports `core` and
`retrievers.protocols`; nothing of the Postgres store, ingestion or the loaders (but the embedder adaptation, which
reads a corpus)."""
