"""MiniLM's document vectors in int8 through ONNX Runtime (the export: `minilm_int8_export`), for processors without
native bfloat16.

Texts are embedded longest first in batches of similar length (a batch pads little), on as many threads as the
process may use (`os.sched_getaffinity`: a container or `taskset` limits it below `os.cpu_count()`, and more threads
than cores wait on each other). Activations are quantised per product over the whole batch, so a text's vector can
differ in the last digits with the texts batched beside it (cosine to its float32 vector >= 0.99 either way).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from retrievers.engines.embedders.minilm_int8_export import int8_model


def usable_cores() -> int:
    """The cores this process may run on (its affinity), at least one."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class MiniLMInt8Encoder:
    """Normalised vectors of many texts at once, truncated to the model's 256 word pieces; the export and the session
    are made on first use (a process that only asks questions makes neither); thread-safe."""

    def __init__(self, model_dir: Path, cache_dir: Path, batch_size: int = 32):
        self._model_dir = model_dir
        self._cache_dir = cache_dir
        self._batch_size = batch_size
        self._width = json.loads((model_dir / "config.json").read_text())["hidden_size"]
        self._tokenizer: Tokenizer | None = None
        self._session = None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self._width), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        session, tokenizer = self._loaded()
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            encodings = tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            vectors[rows] = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return vectors

    def _loaded(self):
        with self._lock:
            if self._session is None:
                import onnxruntime

                max_tokens = json.loads((self._model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
                tokenizer = Tokenizer.from_file(str(self._model_dir / "tokenizer.json"))
                tokenizer.enable_truncation(max_tokens)
                tokenizer.enable_padding()
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = usable_cores()
                options.inter_op_num_threads = 1
                options.log_severity_level = 3  # the optimiser's notes on unused constants are not the user's concern
                path = int8_model(self._model_dir, self._cache_dir)
                self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
                self._tokenizer = tokenizer
            return self._session, self._tokenizer
