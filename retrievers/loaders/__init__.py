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

bucket_descriptions: dict[str, str] = {
    "contracts": "Commercial agreements and NDAs: parties, dates, term and renewal, notice periods, governing law and clause types.",
    "invoices": "Invoices from suppliers: issuer, invoice number, dates, amounts with tax and currency, and line items.",
    "receipts": "Till receipts for purchases and expenses: shop, date, address and total paid.",
    "datasheets": "Electronic component datasheets: manufacturer, part number, package and electrical parameters with units and limits.",
    "certificates": "Certificates and declarations (ISO 9001, ISO 14001, CE, RoHS...): holder, issuer, standard, scope and validity dates.",
    "generic": "Anything else: scientific abstracts, encyclopedia paragraphs, internal memos, policies and how-to guides.",
}


def field_specs(dataset: str) -> dict[str, list[FieldSpec]]:
    """The annotation fields a dataset produces, by bucket, whichever form its module declares them in."""
    module = DATASETS[dataset]
    return dict(module.FIELDS) if hasattr(module, "BUCKETS") else {module.BUCKET: list(module.FIELDS)}
