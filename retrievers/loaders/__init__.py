"""The dataset loaders, by name, and the buckets they feed.

Every loader module has `load(path, *, limit=None)`, a lazy iterator of `SourceDocument`, and says what it
produces: `BUCKET` and `FIELDS` for a single-bucket dataset, `BUCKETS` and `FIELDS` by bucket for the
sample corpus (see `field_specs`), and `SHARED_FOLDER`, its folder under ../shared/data (None when it reads
nothing). A user's own folder is loaded by `retrievers.loaders.files`, which also reports skipped files.
"""

from __future__ import annotations

from types import ModuleType

from retrievers.loaders import cuad, hotpotqa, invoices, kleister_nda, sample, scifact, sroie
from retrievers.models import FieldSpec

DATASETS: dict[str, ModuleType] = {
    "cuad": cuad,
    "kleister_nda": kleister_nda,
    "sroie": sroie,
    "invoices": invoices,
    "scifact": scifact,
    "hotpotqa": hotpotqa,
    "sample": sample,
}

def field_specs(dataset: str) -> dict[str, list[FieldSpec]]:
    """The annotation fields a dataset produces, by bucket, whichever form its module declares them in."""
    module = DATASETS[dataset]
    return dict(module.FIELDS) if hasattr(module, "BUCKETS") else {module.BUCKET: list(module.FIELDS)}
