"""The corpus every tool test runs on, ingested once for the three modules of this folder, and how they call a tool.

The sample corpus; a second tenant holding a copy of one sample contract and a secret document only it may see; an
HTML memo; and, where ../shared/data has them, the CUAD contracts under 15,000 characters and 200 SROIE receipts.
"""

from __future__ import annotations

import pytest

from core.models import SourceDocument
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import cuad, field_specs, sample, sroie
from tests.conftest import SHARED_DATA, fresh_database, make_stack
from tools.context import ToolContext
from tools.registry import call_tool

CUAD_MAX_CHARS = 15_000
SROIE_RECEIPTS = 200
SECRET_WORD = "zebracornium"


def _cuad_subset() -> list[SourceDocument]:
    return [s for s in cuad.load(SHARED_DATA / "cuad") if len(s.document.body) < CUAD_MAX_CHARS]


def _tenant_b_documents() -> list[SourceDocument]:
    """The other tenant: a copy of one sample contract plus a document only it may ever see."""
    copy = next(iter(sample.load(limit=1)))
    secret = SourceDocument.model_validate(
        {
            "document": {
                "doc_id": "tenant-b-secret",
                "bucket": "contracts",
                "scope": "tenant_b",
                "title": "Secret supply deal",
                "body": (
                    f"The {SECRET_WORD} supply agreement is governed by the laws of Delaware with thirty days notice."
                ),
            },
            "annotations": [
                {
                    "row": {
                        "governing_law": ["Delaware"],
                        "notice_period_days": [30],
                        "parties": [f"{SECRET_WORD.title()} Holdings"],
                    }
                }
            ],
        }
    )
    copy.document = copy.document.model_copy(update={"scope": "tenant_b"})
    return [copy, secret]


def _html_document() -> SourceDocument:
    body = (
        "<html><head><style>p {color: red}</style><script>alert('x')</script></head><body>"
        "<p>The <b>quarterly</b> outlook for Q3 &amp; Q4 is stable.</p></body></html>"
    )
    return SourceDocument.model_validate(
        {"document": {"doc_id": "memo.html", "bucket": "generic", "title": "Outlook", "body": body}}
    )


@pytest.fixture(scope="session")
def context(postgres_url, minilm, tmp_path_factory):
    """One ingest for the folder's modules (a folder without __init__.py has no narrower shared scope)."""
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("tools"), minilm)
        ingestor = Ingestor(stack)
        ingestor.ingest(sample.load(), field_specs=field_specs("sample"), progress=False)
        ingestor.ingest(_tenant_b_documents(), field_specs=field_specs("sample"), progress=False)
        ingestor.ingest([_html_document()], progress=False)
        if (SHARED_DATA / "cuad").is_dir() and (SHARED_DATA / "sroie").is_dir():
            ingestor.ingest(_cuad_subset(), field_specs=field_specs("cuad"), progress=False)
            ingestor.ingest(
                sroie.load(SHARED_DATA / "sroie", limit=SROIE_RECEIPTS),
                field_specs=field_specs("sroie"),
                progress=False,
            )
        ctx = ToolContext(stack)
        yield ctx
        ctx.close()
        stack.close()


@pytest.fixture
def real_data(context):
    for name in ("cuad", "sroie"):
        if not (SHARED_DATA / name).is_dir():
            pytest.skip(f"{SHARED_DATA / name} is absent; real-data tool tests need ../shared/data")


def call(context, name, **arguments):
    return call_tool(name, arguments, context)


def _ids(envelope) -> list[str]:
    return [h["doc_id"] for h in envelope["hits"]]
