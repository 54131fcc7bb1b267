"""The learned yes/no clause decisions: the value a user sees for a contract, and the sentence it cites."""

from __future__ import annotations

import time

import pytest

from retrievers.extraction.found import Found
from retrievers.extraction.rules import RULES, rules_of
from retrievers.extraction.rules.learned_clauses import (
    MAX_EMBEDDED_SENTENCES,
    WITHOUT_VECTORS,
    LearnedClauses,
    decisions,
)
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import files

FILLER = "The parties shall cooperate in good faith in all matters relating to the services described herein. " * 30
HEADING = (
    "Exhibit 10.1\n\nDISTRIBUTION AGREEMENT\n\n"
    'This Distribution Agreement is made as of June 1, 2004 (the "Effective Date") between Acme Inc. and Beta LLC.\n\n'
    "1. Appointment. Acme appoints Beta as a distributor of the Products in the Territory.\n\n"
    "2. Payment. Beta shall pay each invoice within thirty (30) days of its date.\n\n"
)
AT_WILL = (
    "Either party may terminate this Agreement for convenience at any time upon ninety (90) days prior written notice "
    "to the other party."
)
WITHOUT_CAUSE = "Acme may terminate this Agreement without cause upon thirty (30) days written notice to Beta."
FOR_BREACH = (
    "Either party may terminate this Agreement if the other party materially breaches this Agreement and fails to "
    "cure such breach within thirty (30) days after written notice. Either party may terminate this Agreement "
    "immediately upon written notice if the other party becomes insolvent or files a petition in bankruptcy."
)
PLAIN = HEADING + FILLER


class CountingMiniLM:
    """MiniLM's name over the real embedder, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.texts = inner, 0
        self.model_name = inner.model_name

    def embed_documents(self, texts):
        self.texts += len(texts)
        return self.inner.embed_documents(texts)


@pytest.fixture(scope="module")
def learned(minilm):
    return LearnedClauses(CountingMiniLM(minilm))


def test_termination_for_convenience_is_learned_and_reads_vectors():
    assert decisions()["termination_for_convenience"].vector_weights is not None


@pytest.mark.parametrize("sentence", [AT_WILL, WITHOUT_CAUSE])
def test_a_right_to_end_the_contract_at_will_says_yes_citing_its_sentence(learned, sentence):
    body = HEADING + FOR_BREACH + "\n\n" + sentence + "\n\n" + FILLER
    found = learned.rules["termination_for_convenience"](body)
    assert [f.value for f in found] == [True]
    assert body[found[0].start : found[0].end] == sentence


def test_termination_for_breach_or_insolvency_alone_is_not_for_convenience(learned):
    body = HEADING + FOR_BREACH + "\n\n" + FILLER
    assert learned.rules["termination_for_convenience"](body) == [Found(False, 0, 0)]


def test_a_contract_without_the_clauses_says_no_and_cites_nothing(learned):
    for field, rule in learned.rules.items():
        assert rule(PLAIN) == [Found(False, 0, 0)], field


def test_every_learned_clause_is_served_with_minilm_and_replaces_its_regex_rule(learned):
    assert set(learned.rules) == set(decisions())
    assert set(decisions()) <= set(RULES["contracts"])
    for field in decisions():
        assert rules_of("contracts", learned)[field] is learned.rules[field]


def test_without_minilm_a_clause_reading_vectors_keeps_its_regex_rule():
    class OtherModel:
        model_name = "openai:text-embedding-3-small"

        def embed_documents(self, texts):
            raise AssertionError("vectors of another model must not be read")

    for learned in (WITHOUT_VECTORS, LearnedClauses(OtherModel())):
        for field, decision in decisions().items():
            expected = RULES["contracts"][field] if decision.vector_weights is not None else learned.rules[field]
            assert rules_of("contracts", learned)[field] is expected
        learned_rules = learned.rules
        assert all(rule(PLAIN) == [Found(False, 0, 0)] for rule in learned_rules.values())


@pytest.mark.parametrize("body", ["", "\x00" * 5000, "compete\x00 " * 400, "shall not compete. " * 3])
def test_empty_or_meaningless_text_gives_no_yes(learned, body):
    for rule in learned.rules.values():
        assert all(f.value is False for f in rule(body))


def test_a_huge_single_line_embeds_a_bounded_number_of_sentences(learned):
    body = "the distributor shall not compete or terminate for convenience or merge " * 140_000
    before = learned._embedder.texts
    started = time.perf_counter()
    for rule in learned.rules.values():
        assert all(f.value in (True, False) for f in rule(body))
    assert learned._embedder.texts - before <= MAX_EMBEDDED_SENTENCES
    assert time.perf_counter() - started < 30


def test_ingest_decides_with_its_own_embedder_and_stores_the_cited_sentence(stack, tmp_path, monkeypatch):
    monkeypatch.setitem(RULES["contracts"], "termination_for_convenience", lambda body: [])  # the regex rule
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / "acme.txt").write_text(HEADING + FOR_BREACH + "\n\n" + AT_WILL + "\n\n" + FILLER)
    report = Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    (row,) = [r for r in stack.store.document_annotations("default", "acme.txt") if r["kind"] == "properties"]
    assert row["row"]["termination_for_convenience"] is True
    cited = row["sources"]["termination_for_convenience"]
    assert stack.store.get_document("default", "acme.txt")["body"][cited["start"] : cited["end"]] == AT_WILL
    assert report.embeddings_computed == report.chunks  # the candidate sentences are not counted as chunks
