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
from retrievers.extraction.shipped import shipped
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import cuad, files

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


def test_every_learned_clause_is_served_with_minilm_in_place_of_any_regex_rule(learned):
    assert set(learned.rules) == set(decisions())
    assert set(decisions()) <= {spec.name for spec in cuad.FIELDS if spec.type == "boolean"}
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


SAYS_CLAUSE = {
    "insurance": (
        "Distributor shall maintain, at its own expense, commercial general liability insurance with limits of not "
        "less than $1,000,000 per occurrence and shall name Acme as an additional insured on such policy."
    ),
    "no_solicit_of_employees": (
        "During the term of this Agreement and for twelve (12) months thereafter, neither party shall, directly or "
        "indirectly, solicit for employment or hire any employee of the other party without its prior written consent."
    ),
    "joint_ip_ownership": (
        "All inventions conceived or reduced to practice jointly by employees of Acme and Beta in the performance of "
        "this Agreement shall be jointly owned by Acme and Beta."
    ),
    "ip_ownership_assignment": (
        "Beta hereby assigns to Acme all right, title and interest in and to any improvements to the Products made by "
        "Beta during the term of this Agreement, including all intellectual property rights therein."
    ),
    "license_grant": (
        "Acme hereby grants to Beta a non-exclusive, royalty-free license to use the Acme trademarks in the Territory "
        "solely in connection with the marketing and sale of the Products."
    ),
    "non_transferable_license": (
        "Acme hereby grants to Beta a non-exclusive, non-transferable license, without the right to sublicense, to "
        "use the Software solely for Beta's internal business purposes."
    ),
    "irrevocable_or_perpetual_license": (
        "Acme hereby grants to Beta a perpetual, irrevocable, worldwide, royalty-free license to use, copy and modify "
        "the Documentation."
    ),
    "cap_on_liability": (
        "In no event shall either party's aggregate liability arising out of this Agreement exceed the total amounts "
        "paid by Beta to Acme during the twelve (12) months preceding the claim."
    ),
    "uncapped_liability": (
        "The limitations of liability in this Section shall not apply to a party's indemnification obligations, its "
        "breach of confidentiality, or its gross negligence or willful misconduct."
    ),
    "liquidated_damages": (
        "If Beta fails to deliver the Products by the delivery date, Beta shall pay Acme, as liquidated damages and "
        "not as a penalty, one percent (1%) of the price of the late Products for each week of delay."
    ),
    "warranty_duration": (
        "Acme warrants that the Products shall be free from defects in materials and workmanship for a period of "
        "twelve (12) months from the date of delivery."
    ),
    "minimum_commitment": (
        "During each calendar year of the term, Beta shall purchase from Acme a minimum of 10,000 units of the "
        "Products."
    ),
    "revenue_profit_sharing": (
        "Beta shall pay Acme fifty percent (50%) of the net revenue received by Beta from sales of the Products, "
        "within thirty (30) days after the end of each calendar quarter."
    ),
    "rofr_rofo_rofn": (
        "If Acme proposes to sell the Product line to a third party, Acme shall first offer it to Beta, and Beta "
        "shall have a right of first refusal for thirty (30) days to purchase it on the same terms."
    ),
    "non_disparagement": (
        "Each party agrees that it will not, directly or indirectly, make any disparaging remarks about the other "
        "party or its officers, directors or products."
    ),
    "post_termination_services": (
        "Upon expiration or termination of this Agreement, Acme shall continue to provide transition assistance to "
        "Beta for a period of up to six (6) months so that the services may be transferred in an orderly manner."
    ),
    "covenant_not_to_sue": (
        "Beta shall not, during the term of this Agreement or thereafter, contest or challenge the validity of the "
        "Acme trademarks or Acme's ownership of them."
    ),
}
"""A sentence saying each clause read from terms alone, as a user's own contract might word it."""

OTHER_CLAUSES = (
    "Each party shall keep the Confidential Information of the other party in confidence and shall not disclose it "
    "to any third party. This Agreement shall be governed by the laws of the State of New York. All notices under "
    "this Agreement shall be in writing and delivered by courier to the addresses set out above. Neither party "
    "shall be liable for any delay caused by events beyond its reasonable control."
)


def test_every_clause_with_a_sentence_here_is_shipped_terms_only_and_run_without_an_embedder():
    terms_only = {name for name, d in decisions().items() if d.vector_weights is None}
    assert set(SAYS_CLAUSE) == terms_only
    for field in SAYS_CLAUSE:
        assert rules_of("contracts")[field] is WITHOUT_VECTORS.rules[field]


@pytest.mark.parametrize("field", sorted(SAYS_CLAUSE))
def test_a_contract_saying_the_clause_says_yes_citing_its_sentence(field):
    sentence = SAYS_CLAUSE[field]
    body = HEADING + FOR_BREACH + "\n\n" + sentence + "\n\n" + OTHER_CLAUSES + "\n\n" + FILLER
    found = rules_of("contracts")[field](body)
    assert [f.value for f in found] == [True]
    assert body[found[0].start : found[0].end] == sentence


@pytest.mark.parametrize("field", sorted(SAYS_CLAUSE))
def test_a_contract_with_other_clauses_only_says_no(field):
    body = HEADING + FOR_BREACH + "\n\n" + OTHER_CLAUSES + "\n\n" + FILLER
    assert rules_of("contracts")[field](body) == [Found(False, 0, 0)]


def test_a_5_mb_line_of_cue_words_and_nul_characters_is_read_in_bounded_cpu_time():
    words = (
        "the licensee shall maintain insurance\x00 and not solicit employees; jointly owned title assigned under a "
        "perpetual license; liability for liquidated damages, warranty, minimum revenue, first refusal, disparage\x00 "
    )
    body = words * (5_000_000 // len(words))
    started = time.process_time()
    for field in SAYS_CLAUSE:
        found = WITHOUT_VECTORS.rules[field](body)
        assert all(isinstance(f.value, bool) and 0 <= f.start <= f.end <= len(body) for f in found)
    assert time.process_time() - started < 10  # about 1 s on a 2-core AMD EPYC


def test_ingest_reads_a_clause_only_a_learned_decision_reads_also_in_a_folder_made_before_it_did(stack, tmp_path):
    """A user's own contract gets `insurance` (read by a terms-only decision, no regex rule) at ingest, and a data
    folder made when the field was declared as labels only (before this release learned it) reads it at its next
    ingest; before, the shipped schema said only regex-ruled fields are found in the text, so no contract had a
    value and "how many of my contracts require insurance?" asked back."""
    stack.store.add_bucket("contracts", "")
    labels_only = [
        s.model_copy(update={"found_by": "labels"}) if s.name == "insurance" else s for s in shipped("contracts")
    ]
    stack.store.record_field_specs("contracts", labels_only)
    folder = tmp_path / "contracts"
    folder.mkdir()
    (folder / "acme.txt").write_text(HEADING + SAYS_CLAUSE["insurance"] + "\n\n" + FILLER)
    Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    (declared,) = [s for s in stack.store.field_specs("contracts") if s.name == "insurance"]
    assert declared.found_by == "rule"
    (row,) = [r for r in stack.store.document_annotations("default", "acme.txt") if r["kind"] == "properties"]
    assert row["row"]["insurance"] is True
    cited = row["sources"]["insurance"]
    assert (
        stack.store.get_document("default", "acme.txt")["body"][cited["start"] : cited["end"]]
        == (SAYS_CLAUSE["insurance"])
    )
