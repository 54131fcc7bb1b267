"""Where documents are embedded: on a GPU when there is one and RAGENT_EMBEDDING_DEVICE allows it, else the CPU.

Why the driver's list and not torch: importing torch costs seconds, and a process that only asks questions (or an
ingest on a machine without a GPU, most of this project's) imports no model library at all
(tests/test_cold_start.py). NVIDIA's driver lists its GPUs under /proc/driver/nvidia/gpus; with none there, no CUDA
device can exist. Torch is asked on the first document embedded (`CudaDocumentEncoder`), which falls back to the CPU
with a one-line note when torch sees no GPU after all (a CPU-only torch build, a driver torch cannot use).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

DEVICE_SETTINGS = ("auto", "cpu", "cuda")
NVIDIA_GPUS = Path("/proc/driver/nvidia/gpus")


def gpu_listed(gpus: Path = NVIDIA_GPUS) -> bool:
    """Whether NVIDIA's driver lists a GPU."""
    try:
        return any(gpus.iterdir())
    except OSError:
        return False


def cpu_note(note=None) -> None:
    print(
        "note: RAGENT_EMBEDDING_DEVICE asks for a GPU, but torch sees none: embedding on the CPU",
        file=note or sys.stderr,
        flush=True,
    )


def embedding_device(setting: str, cuda: Callable[[], bool] = gpu_listed, note=None) -> str:
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
        cpu_note(note)
    return "cpu"
