"""Where documents are embedded: on a GPU when torch sees one and RAGENT_EMBEDDING_DEVICE allows it, else the CPU.

Why torch is asked only when a driver is there: importing torch costs seconds, and an ingest on a machine without a
GPU (most of this project's) imports no model library at all (tests/test_cold_start.py). NVIDIA's driver lists its
GPUs under /proc/driver/nvidia/gpus; with none there, no CUDA device can exist.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

DEVICE_SETTINGS = ("auto", "cpu", "cuda")
NVIDIA_GPUS = Path("/proc/driver/nvidia/gpus")


def cuda_available(gpus: Path = NVIDIA_GPUS) -> bool:
    """Whether torch sees a CUDA device; torch is not imported where the driver lists no GPU."""
    try:
        if not any(gpus.iterdir()):
            return False
    except OSError:
        return False
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def embedding_device(setting: str, cuda: Callable[[], bool] = cuda_available, note=None) -> str:
    """ "cuda" or "cpu" for RAGENT_EMBEDDING_DEVICE=`setting`: `auto` takes a GPU when there is one, `cpu` never does,
    `cuda` insists, and falls back to the CPU with a one-line note (on stderr) when there is none."""
    if setting not in DEVICE_SETTINGS:
        from core.errors import InvalidInput

        raise InvalidInput(f"RAGENT_EMBEDDING_DEVICE={setting!r} is not one of {', '.join(DEVICE_SETTINGS)}")
    if setting == "cpu":
        return "cpu"
    if cuda():
        return "cuda"
    if setting == "cuda":
        print(
            "note: RAGENT_EMBEDDING_DEVICE=cuda, but torch sees no GPU: embedding on the CPU",
            file=note or sys.stderr,
            flush=True,
        )
    return "cpu"
