"""The dataset loaders, by name, and the buckets they feed.

Every loader module has `load(path, *, limit=None)`, a lazy iterator of `SourceDocument`, and says what it
produces: `BUCKET` and `FIELDS` for a single-bucket dataset, `BUCKETS` and `FIELDS` by bucket for the
sample corpus (see `field_specs`), and `SHARED_FOLDER`, its folder under ../shared/data (None when it reads
nothing). A user's own folder is loaded by `retrievers.loaders.files`, which also reports skipped files.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

from core.models import FieldSpec


class _Loaders(Mapping[str, ModuleType]):
    """The loader modules by dataset name, each imported when first looked up: the command line lists the names
    in every process (`--dataset` choices), and a question should not pay for importing seven loaders."""

    def __init__(self, names: tuple[str, ...]):
        self._names = names

    def __getitem__(self, name: str) -> ModuleType:
        if name not in self._names:
            raise KeyError(name)
        return importlib.import_module(f"{__name__}.{name}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


DATASETS: Mapping[str, ModuleType] = _Loaders(
    ("cuad", "kleister_nda", "sroie", "invoices", "scifact", "hotpotqa", "sample")
)


def field_specs(dataset: str) -> dict[str, list[FieldSpec]]:
    """The annotation fields a dataset produces, by bucket, whichever form its module declares them in."""
    module = DATASETS[dataset]
    return dict(module.FIELDS) if hasattr(module, "BUCKETS") else {module.BUCKET: list(module.FIELDS)}


CHECKOUT_SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
"""`shared/data` beside the project checkout this module is in (retrievers/loaders/ is three levels down)."""


def shared_data_dir() -> Path:
    """Where the real datasets live: `RAGENT_SHARED_DATA` when set, else `shared/data` beside the project checkout.

    Found from this file, not from the current directory, so it does not depend on where a command is run. An
    installed ragent has no checkout around it and needs `RAGENT_SHARED_DATA`; the checkout path is returned even
    when it does not exist, so that a dataset's "missing, set RAGENT_SHARED_DATA" error names where it looked."""
    configured = os.environ.get("RAGENT_SHARED_DATA")
    return Path(configured).resolve() if configured else CHECKOUT_SHARED_DATA


def dataset_path(dataset: str) -> Path | None:
    """The dataset's folder under the shared data folder; None for the generated sample corpus."""
    folder = DATASETS[dataset].SHARED_FOLDER
    return shared_data_dir() / folder if folder else None
