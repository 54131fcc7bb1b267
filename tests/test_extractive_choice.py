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


def _searched(bucket: str, query: str, passages: list[tuple[str, str]]) -> list[Evidence]:
    """One search's evidence: a passage of each (doc_id, text), its own document's only chunk."""
    hits = [
        PassageHit(
            doc_id=doc_id,
            chunk_id=f"{doc_id}#0",
            score=1.0,
            snippet=text,
            metadata=PassageMetadata(title=doc_id, bucket=bucket, chars=(0, len(text))),
        )
        for doc_id, text in passages
    ]
    call = ToolCall(tool="search_text", arguments={"bucket": bucket, "query": query})
    return [Evidence(step=1, attempt=1, route="long_text", call=call, envelope=Envelope(status="ok", hits=hits))]


def test_a_passage_of_another_document_than_the_one_named_is_not_relevant():
    """ "What does pad-thai.txt say about chili?" quoted the chili recipe's ingredients beside pad-thai's (the
    fifteenth outside probe): a question naming its document is answered from that document."""
    from graph.context import AgentContext
    from graph.planners.rule_planner import RulePlanner
    from tests.fake_catalog import FakeCatalog

    question = "What does pad-thai.txt say about chili?"
    d = Decomposition(
        question=question, intent="qa", buckets=["recipes"], topic_terms=["chili"], doc_ids=["pad-thai.txt"]
    )
    evidence = _searched(
        "recipes",
        "chili",
        [
            ("pad-thai.txt", "Quite spicy if you add all the chili flakes."),
            ("chili.txt", "Ingredients: beef, kidney beans, tomatoes, chili powder."),
        ],
    )
    planner = RulePlanner(AgentContext(planner="rules"), FakeCatalog({"recipes": []}))
    assert {g.doc_id for g in planner.grade(d, evidence) if g.relevant} == {"pad-thai.txt"}


def test_a_note_of_one_short_sentence_is_quoted():
    """ "The locker fee is 5 EUR." (24 characters, a whole note) was joined to a next sentence there was none of and
    dropped, and "what is the locker fee?" was answered with the parking fee (the fifteenth outside probe)."""
    question = "What is the locker fee?"
    d = Decomposition(question=question, intent="qa", buckets=["generic"], topic_terms=["locker", "fee"])
    passages = [("locker.txt", "The locker fee is 5 EUR."), ("parking.txt", "The parking fee is 20 EUR per month.")]
    evidence = _searched("generic", "locker fee", passages)
    relevant = [
        GradedHit(doc_id=doc_id, chunk_id=f"{doc_id}#0", relevant=True, why="", text=text) for doc_id, text in passages
    ]
    answer = extractive_answer(d, evidence, relevant)
    assert answer.sentences[0].text == "The locker fee is 5 EUR."
