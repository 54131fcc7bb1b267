"""Text answers about a user's own contracts (no labels; fields found in the text) quote only what answers, from the
documents the question is about: a clause asked about in a named contract is quoted from that contract, not from
another with the same clause; what the named contract does not say is said to be missing ("I found no passage about
parental leave in ..."), not filled with its nearest sentence or another contract's; a contract named by a name
no document holds is asked about, not answered with every contract of its kind; and one contract asked about by a
name several share is asked which, not answered from all of them."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.ingestion.sources import ingest_source
from tests.conftest import fresh_database, make_stack
from tests.test_agent import Run

RULES = AgentContext(planner="rules")

SECTIONS = {
    "assignment": "{name} may not assign this Agreement or any of its rights hereunder without the prior written "
    "consent of the other party, which consent shall not be unreasonably withheld.",
    "payment": "{name} shall pay each invoice within thirty (30) days of its receipt by wire transfer.",
    "confidentiality": "Each party shall keep the terms of this Agreement and all information it receives from the "
    "other party in strict confidence and use it only to perform this Agreement.",
    "law": "This Agreement shall be governed by and construed in accordance with the laws of the State of {law}.",
}
CONTRACTS = {
    "ACMEWIDGETS_2019-SUPPLY AGREEMENT.txt": ("SUPPLY AGREEMENT", "Acme Widgets, Inc.", "Borealis Foods LLC", "Ohio"),
    "COBALTHOSTING_2001-WEB HOSTING AGREEMENT.txt": (
        "WEB HOSTING AGREEMENT",
        "Cobalt Hosting Corp.",
        "Dunmore Retail, Inc.",
        "Texas",
    ),
    "KESTREL_2018-DISTRIBUTION AGREEMENT.txt": (
        "DISTRIBUTION AGREEMENT",
        "Kestrel Dynamics Ltd.",
        "Quill Paper Co.",
        "Ohio",
    ),
    "KESTREL_2021-SERVICES AGREEMENT.txt": (
        "SERVICES AGREEMENT",
        "Kestrel Dynamics Ltd.",
        "Harbor Lines Inc.",
        "Texas",
    ),
    "MARLOWE_1999-CO-BRANDING AGREEMENT.txt": (
        "CO-BRANDING AGREEMENT",
        "Marlowe Auctions, Inc.",
        "Escrowly, Inc.",
        "California",
    ),
}
ZEPHYR = "ZEPHYR-LICENSE AGREEMENT.txt"
"""A contract whose parties the rules cannot read (no preamble naming them): named by its file name only."""
NIMBUS = ["NIMBUS_2017-LICENSE AGREEMENT.txt", "NIMBUS_2020-LEASE AGREEMENT.txt"]
"""Two contracts whose parties the rules cannot read, both named "Nimbus" by their file names."""
KESTREL = ["KESTREL_2018-DISTRIBUTION AGREEMENT.txt", "KESTREL_2021-SERVICES AGREEMENT.txt"]
"""Two contracts with the same party, Kestrel Dynamics."""
ACME = "ACMEWIDGETS_2019-SUPPLY AGREEMENT.txt"
RENEWAL = (
    "\n\n5. RENEWAL. This Agreement shall automatically renew for successive one (1) year terms unless either party "
    "gives written notice of non-renewal at least sixty (60) days before the end of the then current term."
)
"""The one contract that renews by itself."""
COBALT = "COBALTHOSTING_2001-WEB HOSTING AGREEMENT.txt"
CONTROL = (
    "\n\n6. CHANGE OF CONTROL. Either party may terminate this Agreement on ninety (90) days' written notice following "
    "a Change of Control of the other party."
)
"""Cobalt's clause on a change of control, which never says "acquired"."""
MARLOWE = "MARLOWE_1999-CO-BRANDING AGREEMENT.txt"
"""A contract whose renewal clause says what happens without notice two sentences after it first says "renewed"
(2TheMart's, seventh outside probe)."""
MARLOWE_SECTIONS = (
    "\n\n5. ADVERTISING FEES. After the Launch Date, Escrowly shall pay Marlowe advertising fees based on the number "
    "of Transaction Inquiries, calculated by multiplying 0.025% by the amount of the average Transaction from all "
    "Customers in the preceding quarter. The formula may be revised from time to time during the term of this "
    "Agreement to reflect present market conditions, but only by mutual written agreement of the parties."
    "\n\n6. TERM. The term of this Agreement shall continue for one (1) year following the Launch Date, unless "
    "earlier terminated as provided herein. This Agreement may be renewed for any number of successive one (1) year "
    "terms by mutual written agreement of the parties prior to the conclusion of the term of this Agreement. A party "
    "wishing to renew this Agreement shall give the other party notice thereof no less than thirty (30) days before "
    "the expiration of the term then in effect. In the event that either party does not give such notice, the term "
    "of this Agreement shall be automatically renewed for another one (1) year."
)


KESTREL_TERM = "\n\n5. TERM. This Agreement shall expire on December 31, 2023."
"""The one contract whose expiration date the rules read: the field is in the catalog, unread for the others."""


def _contract(kind: str, first: str, second: str, law: str) -> str:
    preamble = (
        f'This {kind.title()} (the "Agreement") is made as of March 1, 2019 by and between {first}, a Delaware '
        f'corporation ("{first.split()[0]}"), and {second}, an Ohio limited liability company ("Customer").'
    )
    body = [
        f"{n}. {heading.upper()}. {text.format(name='Customer', law=law)}"
        for n, (heading, text) in enumerate(SECTIONS.items(), start=1)
    ]
    return "\n\n".join([kind, preamble, *body, "IN WITNESS WHEREOF, the parties have signed this Agreement."])


@pytest.fixture(scope="module")
def own_contracts(postgres_url, minilm, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mycontracts")
    for name, (kind, first, second, law) in CONTRACTS.items():
        extra = {ACME: RENEWAL, MARLOWE: MARLOWE_SECTIONS, COBALT: CONTROL, KESTREL[1]: KESTREL_TERM}.get(name, "")
        (folder / name).write_text(_contract(kind, first, second, law) + extra)
    licence = [f"{n}. {text.format(name='Licensee', law='Ohio')}" for n, text in enumerate(SECTIONS.values(), 1)]
    for name in (ZEPHYR, *NIMBUS):
        (folder / name).write_text("\n\n".join([name.split("-", 1)[1].removesuffix(".txt"), *licence]))
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("own"), minilm)
        ingest_source(stack, path=folder, bucket="contracts", scope="default", progress=False)
        with AgentServices(stack) as services:
            yield compile_agent(services, InMemorySaver(serde=SERDE))
        stack.close()


def test_a_clause_of_a_named_contract_is_quoted_from_that_contract_only(own_contracts):
    run = Run(own_contracts, "What does the Acme Widgets supply agreement say about assignment?", RULES)
    answer = run.answer
    assert answer is not None, str(run.interrupt)
    assert {c.doc_id for c in answer.citations} == {ACME}
    assert "may not assign this Agreement" in answer.text


def test_what_a_named_contract_does_not_say_is_said_to_be_missing(own_contracts):
    answer = Run(own_contracts, "What does the Acme Widgets supply agreement say about parental leave?", RULES).answer
    assert answer.text == "I found no passage about parental leave in ACMEWIDGETS_2019-SUPPLY AGREEMENT."
    assert answer.citations == []


def test_a_question_about_a_kind_of_contract_is_not_answered_from_another_kind(own_contracts):
    answer = Run(own_contracts, "What does the hosting agreement say about uptime?", RULES).answer
    assert answer.text.startswith("I found no passage about uptime in COBALTHOSTING_2001-WEB HOSTING AGREEMENT")
    assert ACME not in answer.text


def test_a_contract_named_by_a_name_no_document_holds_is_asked_about(own_contracts):
    run = Run(own_contracts, "What are the payment terms in our Starbucks supply contract?", RULES)
    assert run.answer is None and run.interrupt["kind"] == "no_low"
    assert "'starbucks'" in run.interrupt["reason"].lower()  # the word no document holds, named


def test_a_named_contract_asked_about_in_words_it_does_not_use_is_answered_from_its_clause(own_contracts):
    """No document holds "NYSE" or "walk away"; the contract is named by its parties, so it is searched, not asked
    about, and the sentence holding the question's one word it uses ("notice") is quoted from it alone, saying that no
    passage says it in the question's words."""
    question = "Can Dunmore walk away from the Cobalt deal if an NYSE company takes Cobalt over, and on what notice?"
    run = Run(own_contracts, question, RULES)
    assert run.answer is not None, str(run.interrupt)
    assert {c.doc_id for c in run.answer.citations} == {COBALT}
    assert "ninety (90) days' written notice following a Change of Control" in run.answer.text
    assert run.answer.text.startswith("No passage of COBALTHOSTING_2001-WEB HOSTING AGREEMENT says this in the")


def test_a_yes_no_question_about_a_contract_named_by_its_file_never_quotes_another_contract(own_contracts):
    """Answered with the named contract's own value, "No: ... Ohio", never with the hosting agreement's Texas
    clause; and any passage searched for is searched inside it."""
    run = Run(own_contracts, "Is the Zephyr license agreement governed by Texas law?", RULES)
    assert run.state.values["decomposition"].doc_ids == [ZEPHYR]
    searches = [e.call.arguments for e in run.state.values["evidence"] if e.call.tool.startswith("search_")]
    assert all(a.get("doc_id") == ZEPHYR for a in searches)
    assert run.answer is not None and {c.doc_id for c in run.answer.citations} == {ZEPHYR}
    assert run.answer.text.startswith("No: ZEPHYR-LICENSE AGREEMENT.txt has governing_law Ohio")


def test_whether_a_contract_renews_by_itself_is_read_in_that_contract_only(own_contracts):
    """Acme's renews automatically; Cobalt's says nothing of renewal, and its text alone is searched: never Acme's
    renewal clause, nor a sentence of its own about something else."""
    acme = Run(own_contracts, "Does the Acme Widgets supply agreement renew automatically?", RULES).answer
    assert acme is not None and acme.text.startswith("Yes: ACMEWIDGETS") and "auto_renewal" in acme.text
    run = Run(own_contracts, "Does the Cobalt Hosting web hosting agreement renew automatically?", RULES)
    searches = [e.call.arguments for e in run.state.values["evidence"] if e.call.tool.startswith("search_")]
    confined = [
        a.get("doc_id") == COBALT or a["filters"].get("parties", {}).get("value") == "Cobalt Hosting Corp."
        for a in searches
    ]
    assert searches and all(confined), searches
    assert (
        run.answer.text == "No auto_renewal is recorded for COBALTHOSTING_2001-WEB HOSTING AGREEMENT. "  # probe #4
        "I found no passage about renew automatically in COBALTHOSTING_2001-WEB HOSTING AGREEMENT."
    )


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is the Cobalt Hosting agreement governed by Texas law?", "Yes: COBALTHOSTING"),  # named by its party
        ("Is the Acme Widgets supply agreement governed by the laws of Texas?", "No: ACMEWIDGETS"),
        ("The Acme Widgets supply agreement is governed by Texas law.", "No: ACMEWIDGETS"),  # a claim to check
    ],
)
def test_a_yes_no_question_about_a_named_contract_says_yes_or_no_with_its_value(own_contracts, question, said):
    """Whether a named contract is so is answered from its own value, not by the contracts that are so: a filter
    that matched nothing used to leave the run nothing to say but "no relevant passage"."""
    run = Run(own_contracts, question, RULES)
    assert run.answer is not None and run.answer.text.startswith(said)
    assert len({c.doc_id for c in run.answer.citations}) == 1


def test_a_contract_named_by_its_party_and_a_kind_it_is_not_is_searched_by_the_name(own_contracts):
    run = Run(own_contracts, "What does the Cobalt Hosting license agreement say about payment?", RULES)
    assert {"parties", "contract_type"} <= {c.field for c in run.state.values["decomposition"].constraints}
    assert run.answer is not None and {c.doc_id for c in run.answer.citations} == {COBALT}
    assert "shall pay each invoice within thirty (30) days" in run.answer.text


KESTREL_PAYMENT = "What does the contract with Kestrel Dynamics say about payment?"


def _offered(run: Run) -> list[str]:
    return [o["value"] for o in run.interrupt["options"] if o["choice"] == "document"]


def test_one_contract_asked_about_by_a_party_two_share_is_asked_which_then_answered_from_it_alone(own_contracts):
    run = Run(own_contracts, KESTREL_PAYMENT, RULES)
    assert run.answer is None and run.interrupt["kind"] == "which", run.answer
    assert _offered(run) == KESTREL and [o["choice"] for o in run.interrupt["options"]][-2:] == ["all", "stop"]
    assert "2 documents match 'Kestrel Dynamics Ltd.'" in run.interrupt["reason"]
    assert not run.state.values["evidence"]  # asked before anything was searched
    run.resume({"choice": "document", "value": KESTREL[1]})
    assert {c.doc_id for c in run.answer.citations} == {KESTREL[1]}
    assert "shall pay each invoice within thirty (30) days" in run.answer.text


def test_all_of_the_contracts_a_name_matches_are_answered_for_and_said_to_be_several(own_contracts):
    answer = Run(own_contracts, KESTREL_PAYMENT, RULES).resume({"choice": "all"}).answer
    assert answer.text.startswith("2 documents match “Kestrel Dynamics Ltd.”")
    assert answer.citations and {c.doc_id for c in answer.citations} <= set(KESTREL)


def test_a_document_not_offered_is_refused_and_asked_again(own_contracts):
    run = Run(own_contracts, KESTREL_PAYMENT, RULES).resume({"choice": "document", "value": ACME})
    assert run.answer is None and run.interrupt["kind"] == "which" and _offered(run) == KESTREL
    assert f"'{ACME}' is not a document offered here" in run.interrupt["error"]


def test_several_contracts_asked_about_by_the_shared_name_are_listed_without_asking(own_contracts):
    run = Run(own_contracts, "Which contracts do we have with Kestrel Dynamics?", RULES)
    assert run.interrupt is None and {r["doc_id"] for r in run.answer.rows} == set(KESTREL)


def test_one_contract_asked_about_by_a_name_two_file_names_hold_is_asked_which(own_contracts):
    run = Run(own_contracts, "What does the Nimbus agreement say about assignment?", RULES)
    assert run.answer is None and run.interrupt["kind"] == "which" and _offered(run) == NIMBUS
    run.resume({"choice": "document", "value": NIMBUS[0]})
    assert {c.doc_id for c in run.answer.citations} == {NIMBUS[0]}


def test_a_quote_from_a_named_contract_goes_on_to_the_sentence_that_answers(own_contracts):
    """The renewal clause's answer ("automatically renewed") comes two sentences after its first "renewed": the
    quote used to stop, cut, in the sentence before it (2TheMart's, seventh outside probe)."""
    answer = Run(own_contracts, "What does the Marlowe co-branding agreement say about renewal?", RULES).answer
    assert answer is not None and {c.doc_id for c in answer.citations} == {MARLOWE}
    assert "shall be automatically renewed for another one (1) year." in answer.text


def test_a_clause_no_contract_has_is_said_to_be_missing_not_answered_with_its_other_words(own_contracts):
    """Every contract has a payment clause; none speaks of cryptocurrency (seventh outside probe: the payment
    clauses were quoted)."""
    answer = Run(own_contracts, "Which contracts have a clause about cryptocurrency payments?", RULES).answer
    assert answer is not None and answer.citations == []
    assert answer.text == "I found no passage about cryptocurrency payments in contracts."


@pytest.mark.parametrize(
    "question",
    [
        "Which state's law governs the Cobalt Hosting services agreement with Dunmore Retail?",
        "what law applies to the Cobalt Hosting services agreement?",
    ],
)
def test_a_value_of_a_contract_named_by_its_party_with_other_kind_words_is_its_own(own_contracts, question):
    """The party names the contract, the kind words only describe it: Cobalt's web hosting agreement is no
    services agreement, yet its law is what is asked (before: "which state's law" listed contracts, and the kind
    condition left no row, so the run asked; seen on a blind set's "Marathon Pipe Line transportation services
    agreement")."""
    run = Run(own_contracts, question, RULES)
    assert run.state.values["decomposition"].intent == "lookup"
    assert run.answer is not None, str(run.interrupt)
    assert {c.doc_id for c in run.answer.citations} == {"COBALTHOSTING_2001-WEB HOSTING AGREEMENT.txt"}
    assert "Texas" in run.answer.text


def test_a_clause_asked_about_in_other_words_is_quoted_by_its_name(own_contracts):
    """ "Acquired" names the change-of-control clause, which the contract heads "Change of Control" and never says
    "acquired": its sentence is the answer (before: "I found no passage about acquired in ...", blind set D)."""
    run = Run(own_contracts, "What happens to the Cobalt Hosting web hosting agreement if Dunmore is acquired?", RULES)
    assert run.answer is not None, str(run.interrupt)
    assert {c.doc_id for c in run.answer.citations} == {COBALT}
    assert "following a Change of Control of the other party" in run.answer.text


def test_a_value_no_row_holds_is_said_unrecorded_and_quoted_once_from_where_the_contract_states_it(own_contracts):
    """A blind question, "when does the Zounds Hearing agreement end?": the rules read no expiration date from its
    term ("ending ten (10) years thereafter"), and its text was searched for "end" alone: the answer quoted the end
    of a notice period, then a mediation clause. The search now holds the field's description ("Date the initial
    term ends"), the answer says no value was read, and one sentence of the contract states the one value asked."""
    answer = Run(own_contracts, "When does the Marlowe co-branding agreement end?", RULES).answer
    assert answer is not None
    lead, quoted = answer.text.splitlines()[:2]
    assert lead.startswith("No expiration_date is recorded for MARLOWE_1999-CO-BRANDING AGREEMENT")
    assert "shall continue for one (1) year following the Launch Date" in quoted
    assert len(answer.sentences) == 1 and {c.doc_id for c in answer.citations} == {MARLOWE}


def test_documents_asked_for_in_words_no_field_records_are_quoted_as_no_complete_list(own_contracts):
    """A blind question, "which of my contracts are losing us money?", was answered with three passages that read as
    the list of those contracts. The passages stay (they may speak of it), said to be no complete list."""
    answer = Run(own_contracts, "Which of my contracts let the customer keep information secret?", RULES).answer
    assert answer is not None and answer.citations
    assert answer.text.startswith("Not a complete list: no field of contracts records this")
    confined = Run(own_contracts, "What does the Acme Widgets supply agreement say about assignment?", RULES).answer
    assert not confined.text.startswith("Not a complete list")
