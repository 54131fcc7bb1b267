"""A figure or list over a field most of its bucket has no value for, while documents were not read for that field
yet: it was declared or changed after they were ingested (`ragent catalog describe`, a schema file), and their text
would give it without the model. Answering over the few that have a value would be honest (the answer says how many
are left out) and of little use, so the run asks: read those documents for the field now (what `ragent extract
--fields F` does, in the run's scope, for a caller that may ingest), answer with the documents that have it, or
stop. The check is the graph's, after whichever planner found the figure enough (`graph.nodes.review`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.schemas import Evidence
from tools.catalog import Catalog


@dataclass(frozen=True)
class UnreadField:
    bucket: str
    field: str
    missing: int
    documents: int
    unread: int

    def reason(self) -> str:
        return (
            f"{self.missing} of the {self.documents} documents of {self.bucket} have no {self.field} recorded, and "
            f"{self.unread} {'was' if self.unread == 1 else 'were'} not read for it yet (it was declared or changed "
            "after they were ingested)"
        )


def unread_field(evidence: list[Evidence], catalog: Catalog) -> UnreadField | None:
    """The first field an annotation tool's answer depends on that more than half of its bucket lacks and that
    documents of the bucket were not read for yet; None when there is none."""
    for e in evidence:
        coverage, bucket = e.envelope.coverage, e.call.arguments.get("bucket")
        if coverage is None or not coverage.documents or not isinstance(bucket, str):
            continue
        for field, missing in coverage.missing.items():
            if 2 * missing > coverage.documents and (unread := catalog.unread(bucket, field)):
                return UnreadField(bucket, field, missing, coverage.documents, unread)
    return None
