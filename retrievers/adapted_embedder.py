"""A MiniLM fine-tuned on one corpus by `ragent adapt`, loaded from its folder (`RAGENT_EMBEDDINGS=adapted:NAME`).

The folder is a sentence-transformers model saved by `evals.adapt_embedder`, plus `ragent-model.json`, which
names it. That name (`ragent/all-MiniLM-L6-v2-adapted-NAME`) is what the vector index records and what keys the
embedding cache, so the adapted vectors never mix with the base model's: a data folder built with one model
refuses the other. The tokenizer is the base model's (fine-tuning changes weights only), so chunks are the same.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer

from retrievers.errors import InvalidInput

ADAPTED_PREFIX = "adapted:"
MODEL_FILE = "ragent-model.json"


NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def adapted_folder(cache_dir: Path, name: str) -> Path:
    """Where `ragent adapt --name NAME` saves its model: beside the embedding cache, as derived data is."""
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidInput(
            f"adapted model name {name!r} is not valid: 1-64 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return cache_dir / "models" / name


class AdaptedEmbedder:
    """Normalised sentence embeddings from a fine-tuned model folder; the window is the one it was trained with."""

    def __init__(self, folder: Path, batch_size: int = 32):
        try:
            described = json.loads((folder / MODEL_FILE).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(
                f"no adapted model in {folder} ({exc.__class__.__name__}); make it with `ragent adapt --beir DIR "
                f"--name {folder.name}`"
            ) from None
        self.folder = folder
        self.model_name: str = described["model_name"]
        self.dimension: int = described["dimension"]
        self.window_tokens: int = described["window_tokens"]
        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._model = None
        self._load_lock = threading.Lock()

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def _loaded(self):
        with self._load_lock:
            if self._model is None:
                from retrievers.minilm_embedder import load_sentence_transformer

                self._model = load_sentence_transformer(self.folder)
            return self._model
