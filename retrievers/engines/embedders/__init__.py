"""Embedders (MiniLM in its variants, an adapted MiniLM, OpenAI), the on-disk cache in front of them, the model names
the vector indexes record, and the adaptation `ragent adapt` runs. They implement `retrievers.protocols.Embedder` and
import `core`; the adaptation also reads a BEIR corpus (`retrievers.loaders`) and ranks with the keyword engine."""
