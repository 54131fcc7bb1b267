"""BM25 keyword indexes over chunk text: Tantivy embedded, OpenSearch as a server. Each implements
`retrievers.protocols.KeywordIndex`; they import `core` and `retrievers.engines` helpers only."""
