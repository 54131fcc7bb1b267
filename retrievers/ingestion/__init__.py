"""What goes into the stores and comes out of them again: sources to ingest, chunking, the ingestion pipeline,
document management (list, show, delete) and the consistency check between Postgres and the engines. Imports
`core`, `retrievers.stack` and `retrievers.protocols` (the engines it writes) and `retrievers.loaders`."""
