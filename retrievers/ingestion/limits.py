"""Documents held to the ingest limits (`core.settings.IngestLimits`) before any work is spent on them: one over a
limit is skipped with its reason, in order with the others, and the rest go on.

Why before: a 12 MB single-line file went through tokenising, the rules and some 12,000 chunks' embeddings, which
took a server from 762 MB to 2 GB and ran past 300 s while another tenant's question waited 19.6 s (issue 34). The
checks are a length and one pass over the lines, milliseconds for the largest document allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from core.models import SourceDocument
from core.settings import IngestLimits
from retrievers.loaders.files import Skipped


def within_limits(
    items: Iterable[SourceDocument | Skipped], limits: IngestLimits
) -> Iterator[SourceDocument | Skipped]:
    for item in items:
        if isinstance(item, SourceDocument) and (reason := too_long(item.document.body, limits)):
            yield Skipped(item.document.doc_id, reason)
        else:
            yield item


def too_long(body: str, limits: IngestLimits) -> str | None:
    """Why a document's text is over a limit, in words that say what to do; None when it is within them."""
    if len(body) > limits.document_chars:
        return (
            f"{len(body):,} characters, more than the {limits.document_chars:,} a document may have "
            "(RAGENT_INGEST_MAX_DOCUMENT_CHARS); split it into smaller files"
        )
    for number, line in enumerate(body.splitlines(), start=1):
        if len(line) > limits.line_chars:
            return (
                f"line {number} has {len(line):,} characters, more than the {limits.line_chars:,} a line may have "
                "(RAGENT_INGEST_MAX_LINE_CHARS); break the text into lines"
            )
    return None
