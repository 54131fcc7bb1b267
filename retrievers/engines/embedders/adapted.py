"""A MiniLM fine-tuned on one corpus by `ragent adapt`, loaded from its folder (`RAGENT_EMBEDDINGS=adapted:NAME`).

The folder is a sentence-transformers model saved by `adaptation` (beside this module), plus `ragent-model.json`,
which names it. That name (`ragent/all-MiniLM-L6-v2-adapted-NAME`) is what the vector index records and what keys the
embedding cache, so the adapted vectors never mix with the base model's: a data folder built with one model
refuses the other. The tokenizer is the base model's (fine-tuning changes weights only), so chunks are the same.

A folder with MiniLM's layout (a BERT in `model.safetensors`, mean pooling, normalisation: what `ragent adapt`
saves) is embedded as the base model is, without PyTorch: documents by the OpenVINO graph built from its weights in
float32 (`MiniLMDocumentEncoder`) and queries by the NumPy forward pass (`MiniLMQueryEncoder`), both within cosine
0.99999 of what sentence-transformers computes for the folder (tests/test_adapt.py), so the model name stays the
same whichever computes them. Any other folder is loaded by sentence-transformers.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from safetensors import safe_open
from tokenizers import Tokenizer

from core.errors import InvalidInput
from retrievers.engines.embedders.minilm_openvino import MiniLMDocumentEncoder
from retrievers.engines.embedders.minilm_query_encoder import MiniLMQueryEncoder

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
        self._document_encoder: MiniLMDocumentEncoder | None = None
        self._query_encoder: MiniLMQueryEncoder | None = None
        if minilm_layout(folder):
            # The window it was trained with (sentence-transformers 6 keeps it out of sentence_bert_config.json).
            tokens = self.window_tokens + 2
            self._document_encoder = MiniLMDocumentEncoder(folder, "float32", batch_size, max_tokens=tokens)
            self._query_encoder = MiniLMQueryEncoder(folder, max_tokens=tokens)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._document_encoder is not None:
            return self._document_encoder.encode(list(texts)).tolist()
        vectors = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        if self._query_encoder is not None:
            return self._query_encoder.encode(text)
        return self.embed_documents([text])[0]

    def _loaded(self):
        with self._load_lock:
            if self._model is None:
                from retrievers.engines.embedders.minilm import load_sentence_transformer

                self._model = load_sentence_transformer(self.folder)
            return self._model


MINILM_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


def minilm_layout(folder: Path) -> bool:
    """Whether `folder` is a sentence-transformers model that the OpenVINO and NumPy encoders compute exactly: a BERT
    with absolute positions and exact GELU whose weights are in one safetensors file, then mean pooling and
    normalisation, and nothing else."""
    try:
        config = json.loads((folder / "config.json").read_text())
        modules = json.loads((folder / "modules.json").read_text())
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return False
    # Pooling as sentence-transformers 6 saves it ("pooling_mode": "mean") or as earlier versions did (a flag a mode).
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_")}
    mean = pooling.get("pooling_mode") == "mean" if "pooling_mode" in pooling else modes.get("pooling_mode_mean_tokens")
    try:
        with safe_open(str(folder / "model.safetensors"), framework="numpy") as weights:
            names = set(weights.keys())
    except (OSError, ValueError, RuntimeError):
        return False
    return (
        {"embeddings.word_embeddings.weight", "encoder.layer.0.attention.self.query.weight"} <= names
        and config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and (folder / "tokenizer.json").is_file()
        and [_module_type(m) for m in modules] == MINILM_MODULES
        and [m.get("path") for m in modules[1:]] == ["1_Pooling", "2_Normalize"]
        and mean is True
        and not any(v for k, v in modes.items() if k != "pooling_mode_mean_tokens")
    )


def _module_type(module: dict) -> str:
    """The module's class without the package layout of the sentence-transformers version that saved it."""
    kind = str(module.get("type", ""))
    return f"sentence_transformers.models.{kind.rsplit('.', 1)[-1]}"
