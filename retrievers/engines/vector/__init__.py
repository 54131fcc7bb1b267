"""Vector indexes over chunk embeddings: qdrant-edge embedded, a Qdrant server by URL, and the payload both write.
Each implements `retrievers.protocols.VectorIndex`; they import `core`, the embedders' model names and
`retrievers.engines` helpers only."""
