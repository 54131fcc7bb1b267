"""Which sentence of a named document the extractive answer quotes for a value its row lacks: the one that states it,
not one that only names the document (an outside probe was shown the Dragon Systems agreement's insurance clause,
which says "Dragon Systems property", as the passage that may state its governing law)."""

from __future__ import annotations

from graph.answer.extractive import extractive_answer
from graph.decomposition import Decomposition
from graph.schemas import Evidence, GradedHit, ToolCall
from tools.envelope import Envelope, PassageHit, PassageMetadata

DOC = "DRAGONSYSTEMSINC_01_08_1999-EX-10.17-OUTSOURCING AGREEMENT.txt"
CHUNK = (
    "13. GOVERNING LAW This Agreement shall be governed by the laws of the Commonwealth of Massachusetts. "
    "14. INSURANCE MMI shall at its own expense insure any Dragon Systems property under the control of MMI."
)


def test_the_sentence_stating_the_value_is_quoted_not_the_one_naming_the_document():
    question = "Which law governs the Dragon Systems outsourcing agreement?"
    d = Decomposition(
        question=question, intent="lookup", buckets=["contracts"], doc_ids=[DOC], show_fields=["governing_law"]
    )
    query = "law governs agreement country whose contract"  # the topic and what the field is
    hit = PassageHit(
        doc_id=DOC,
        chunk_id="c1",
        score=1.0,
        snippet=CHUNK,
        metadata=PassageMetadata(title=DOC.removesuffix(".txt"), bucket="contracts", chars=(0, len(CHUNK))),
    )
    evidence = [
        Evidence(
            step=1,
            attempt=1,
            route="hybrid",
            call=ToolCall(tool="search_text", arguments={"bucket": "contracts", "query": query, "doc_id": DOC}),
            envelope=Envelope(status="ok", hits=[hit], total_hits=1),
        )
    ]
    graded = [GradedHit(doc_id=DOC, chunk_id="c1", relevant=True, why="in the named document", text=CHUNK)]
    answer = extractive_answer(d, evidence, graded)
    assert "Commonwealth of Massachusetts" in answer.text and "INSURANCE" not in answer.text, answer.text
