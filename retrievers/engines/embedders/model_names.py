"""The model names the vector index records, and the setting that selects the embedder behind each.

A model name is what keeps vectors apart: the vector index records the name of the embedder that wrote it and
refuses another (`check_model_signature`), and the embedding cache keys by it. The names live here, apart from the
embedders, so that the refusal can say which setting reproduces a recorded name without loading any model.
"""

from __future__ import annotations

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
"""MiniLM in float32: the name every index built before the variants existed records."""
ADAPTED_MINILM_PREFIX = "ragent/all-MiniLM-L6-v2-adapted-"
OPENAI_PREFIX = "openai:"


def minilm_variant_name(precision: str) -> str:
    return MINILM if precision == "float32" else f"{MINILM}:{precision}"


def minilm_precision(model_name: str | None) -> str | None:
    """The precision of a MiniLM variant's name, or None for another model's (or no name)."""
    if model_name == MINILM:
        return "float32"
    if model_name and model_name.startswith(f"{MINILM}:"):
        return model_name.removeprefix(f"{MINILM}:")
    return None


def embeddings_setting(model_name: str) -> str | None:
    """The environment under which `model_name` is the embedder, or None for a name this version does not know."""
    if precision := minilm_precision(model_name):
        return f"RAGENT_EMBEDDINGS=minilm-{precision}"
    if model_name.startswith(ADAPTED_MINILM_PREFIX):
        return f"RAGENT_EMBEDDINGS=adapted:{model_name.removeprefix(ADAPTED_MINILM_PREFIX)}"
    if model_name.startswith(OPENAI_PREFIX):
        return f"RAGENT_EMBEDDINGS=openai RAGENT_OPENAI_EMBEDDING_MODEL={model_name.removeprefix(OPENAI_PREFIX)}"
    return None
