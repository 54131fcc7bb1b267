"""Questions that name a document by its company or title, as users name their own files ("the PaxMedica master
service agreement", "The Joint Corp franchise agreement"): they are about that document only, a value of it or its
text; a word several titles hold, or a value of a field ("Delaware"), names no document, and a name a party field
holds is a condition on every document that has it, as before."""

from __future__ import annotations

import pytest

from core.models import Document, SourceDocument
from graph.context import AgentContext
from graph.planners.base import Budget
from graph.planners.rule_decomposer import RuleDecomposer
from graph.planners.rule_planner import RulePlanner
from retrievers.extraction.shipped import shipped
from tests.fake_catalog import FakeCatalog

PAXMEDICA = "PAXMEDICA,INC_07_02_2020-EX-10.12-Master Service Agreement.txt"
JOINT_CORP = "JOINTCORP_09_19_2014-EX-10.15-FRANCHISE AGREEMENT.txt"
BLUEFLY = "BLUEFLYINC_03_27_2002-EX-10.27-e-business Hosting Agreement.txt"
DELAWARE_TRUST = "DELAWARETRUSTCO_01_01_2001-EX-10.1-Custody Agreement.txt"
CONTRACTS = {
    PAXMEDICA: {"contract_type": "Service Agreement", "governing_law": ["Connecticut"], "parties": ["CRO Consulting"]},
    JOINT_CORP: {"contract_type": "Franchise Agreement", "governing_law": ["Arizona"]},
    BLUEFLY: {"contract_type": "Hosting Agreement", "governing_law": ["New York"], "parties": ["IBM"]},
    "Lakeside Taxi Co.": {"contract_type": "Supply Agreement", "parties": ["Lakeside Taxi Co."]},
    "ORCHARD_2016-SUPPLY AGREEMENT.txt": {
        "contract_type": "Supply Agreement",
        "parties": ["Orchard Mills Inc."],
        "agreement_date": "2016-02-01",
    },
    DELAWARE_TRUST: {"contract_type": "Custody Agreement", "governing_law": ["Delaware"], "parties": ["DTC"]},
    "JOINT FILING AGREEMENT.txt": {"contract_type": "Joint Venture Agreement", "governing_law": ["Delaware"]},
    "NIMBUS_2017-LICENSE AGREEMENT.txt": {"contract_type": "License Agreement", "agreement_date": "2017-05-01"},
    "NIMBUS_2020-LEASE AGREEMENT.txt": {"contract_type": "Lease Agreement", "agreement_date": "2020-09-30"},
    "KESTREL_2018-DISTRIBUTION AGREEMENT.txt": {
        "contract_type": "Distribution Agreement",
        "parties": ["Kestrel Dynamics Ltd.", "Borealis Foods LLC"],
    },
    "KESTREL_2021-SERVICES AGREEMENT.txt": {
        "contract_type": "Services Agreement",
        "parties": ["Kestrel Dynamics Ltd.", "Dunmore Retail, Inc."],
    },
    "GLOBALMUSIC-CONTENT LICENSE AGREEMENT.txt": {
        "contract_type": "License Agreement",
        "governing_law": ["Florida"],
        "parties": ["Global Music International, Inc."],
    },
    "SUNSEVEN-CONTENT LICENSE AGREEMENT.txt": {"contract_type": "License Agreement", "governing_law": ["New York"]},
    "IVILLAGEINC_1999-SPONSORSHIP AGREEMENT.txt": {"contract_type": "Sponsorship Agreement", "parties": ["FMM"]},
    "ASHWORTH-PROMOTION AGREEMENT.txt": {
        "contract_type": "Promotion Agreement",
        "governing_law": ["California"],
        "parties": ["ASHWORTH, INC.", "JAMES W. NANTZ III"],
    },
}


@pytest.fixture(scope="module")
def rules():
    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in CONTRACTS.items()]}
    return RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))  # fields from the text


@pytest.mark.parametrize(
    ("question", "doc_id", "intent"),
    [
        ("Which state's law governs the PaxMedica master service agreement?", PAXMEDICA, "lookup"),
        ("What governing law applies to The Joint Corp franchise agreement?", JOINT_CORP, "lookup"),
        ("How is liability limited in the Bluefly e-business hosting agreement with IBM?", BLUEFLY, "qa"),
        (
            "Which state's law governs the iVillage sponsorship agreement?",
            "IVILLAGEINC_1999-SPONSORSHIP AGREEMENT.txt",
            "lookup",
        ),  # a name written as brands are
    ],
)
def test_a_question_naming_a_document_by_its_company_is_about_that_document(rules, question, doc_id, intent):
    d = rules.decompose(question)
    assert (d.doc_ids, d.intent, d.unmapped) == ([doc_id], intent, [])


@pytest.mark.parametrize(
    "question",
    [
        "How many contracts are governed by Delaware law?",  # a value of a field, though one title holds it
        "Which Agreement has the longest term?",  # a word every title holds
        "List the Joint Venture agreements",  # a kind of contract, though one title holds "joint"
    ],
)
def test_a_word_many_titles_hold_or_a_fields_value_names_no_document(rules, question):
    assert rules.decompose(question).doc_ids == []


def test_a_name_a_party_field_holds_is_a_condition_on_the_documents_that_have_it_not_a_title(rules):
    d = rules.decompose("Which contracts do we have with Lakeside Taxi?")
    assert d.doc_ids == [] and [(c.field, c.op, c.value) for c in d.constraints] == [
        ("parties", "=", "Lakeside Taxi Co.")
    ]


@pytest.mark.parametrize(
    "question", ["Which of Orchard's contracts are supply agreements?", "When was Orchard’s contract signed?"]
)
def test_a_party_named_with_a_possessive_is_that_party(rules, question):
    d = rules.decompose(question)
    assert d.unmapped == [] and ("parties", "Orchard Mills Inc.") in [(c.field, c.value) for c in d.constraints]


def test_how_much_a_named_party_pays_where_no_field_holds_amounts_is_a_question_for_its_text(rules):
    """An outside probe: "Under the Vitamin Shoppe sponsorship, how much do they pay?" asked back for "an amount to
    add up" (contracts hold no amount field); the named contract's text says what is paid."""
    d = rules.decompose("How much does Lakeside Taxi pay under its supply agreement?")
    assert (d.intent, d.unmapped) == ("qa", []) and ("parties", "Lakeside Taxi Co.") in [
        (c.field, c.value) for c in d.constraints
    ]


def test_a_first_name_before_a_party_name_that_matched_is_part_of_that_name(rules):
    d = rules.decompose("Which state's law governs the Ashworth promotion agreement with Jim Nantz?")
    assert d.unmapped == [] and "JAMES W. NANTZ III" in next(c.value for c in d.constraints if c.field == "parties")


def test_a_name_no_document_holds_before_a_kind_of_contract_is_asked_about_not_dropped(rules):
    d = rules.decompose("Which state's law governs the Tesla supply agreement?")
    assert [u.text.lower() for u in d.unmapped] == ["tesla"]


def test_titles_name_no_document_in_a_bucket_of_labelled_pages():
    documents = {"generic": [("Terry Richardson", "Terry Richardson is a photographer.", [])]}
    rules = RuleDecomposer(FakeCatalog(documents))
    assert rules.decompose("Who is older, Annie Morton or Terry Richardson?").doc_ids == []


def test_the_store_finds_a_name_in_titles_and_ids_spaces_and_punctuation_aside(store):
    store.add_bucket("contracts", "")
    for doc_id in (PAXMEDICA, JOINT_CORP, "notes.txt"):
        document = Document(doc_id=doc_id, bucket="contracts", title=doc_id.removesuffix(".txt"), body="text")
        store.commit_document(SourceDocument(document=document), doc_id, [], [])
    found = store.documents_titled("default", ["jointcorp", "paxmedica", "agreement", "delaware", "a%b"])
    assert found == {
        "jointcorp": [(JOINT_CORP, "contracts", JOINT_CORP[:-4])],
        "paxmedica": [(PAXMEDICA, "contracts", PAXMEDICA[:-4])],
        "agreement": [(JOINT_CORP, "contracts", JOINT_CORP[:-4]), (PAXMEDICA, "contracts", PAXMEDICA[:-4])],
        "delaware": [],
    }
    assert store.documents_titled("other-scope", ["jointcorp"]) == {"jointcorp": []}


def test_a_field_named_apart_from_the_condition_on_it_is_shown(rules):
    """ "Who are the parties to the Ashworth promotion agreement?": the condition "Ashworth" is on parties, and the
    question asks to see them (a table of the contract's parties, not passages that mention "parties"); "with" of
    "the agreement with IBM" names the parties field only as a stopword, which asks for nothing."""
    d = rules.decompose("Who are the parties to the Ashworth promotion agreement?")
    assert "parties" in d.show_fields and "parties" in {c.field for c in d.constraints}
    d = rules.decompose("Which state's law governs the Bluefly e-business hosting agreement with IBM?")
    assert d.show_fields == ["governing_law"]


NIMBUS = ["NIMBUS_2017-LICENSE AGREEMENT.txt", "NIMBUS_2020-LEASE AGREEMENT.txt"]
KESTREL = ["KESTREL_2018-DISTRIBUTION AGREEMENT.txt", "KESTREL_2021-SERVICES AGREEMENT.txt"]


@pytest.mark.parametrize(
    ("question", "by", "documents"),
    [
        ("What does the Nimbus agreement say about assignment?", "title", NIMBUS),
        ("When does the Nimbus contract expire?", "title", NIMBUS),
        ("What is the governing law of the contract with Kestrel Dynamics?", "value", KESTREL),
        ("Summarize the Kestrel Dynamics agreement", "value", KESTREL),
        ("Is the Kestrel Dynamics agreement governed by Delaware law?", "value", KESTREL),
    ],
)
def test_one_document_asked_about_by_a_name_several_share_says_which_match(rules, question, by, documents):
    """Asked about one document ("the ... agreement"), a name two documents share is read with both, for the run
    to ask which (`graph.planners.reading.which`): by the name their titles hold, or a party both have; each told
    apart by the values that differ."""
    several = rules.decompose(question).several
    assert several is not None and (several.by, several.matched, several.more) == (by, 2, False)
    assert [doc.doc_id for doc in several.documents] == documents
    values = [doc.values for doc in several.documents]
    assert values[0] != values[1] and all("contract_type" in v for v in values)


def test_one_document_asked_about_by_a_kind_several_documents_are_says_which_match(rules):
    """ "the supply agreement" where two contracts are supply agreements is one of them, not both (before: a table of
    both, or passages of whichever the search found first); they are told apart by their parties and dates."""
    several = rules.decompose("When does the supply agreement expire?").several
    assert several is not None and (several.by, several.matched) == ("value", 2)
    assert rules.decompose("What law governs the supply agreement?").several == several  # read as rows of a kind
    assert {doc.doc_id for doc in several.documents} == {"Lakeside Taxi Co.", "ORCHARD_2016-SUPPLY AGREEMENT.txt"}
    assert all(doc.values.get("parties") for doc in several.documents)


def test_one_document_asked_about_by_a_kind_another_title_says_is_asked_which():
    """Two distributor agreements, of which the rules read the kind of one only (the other an amendment, "AMENDMENT
    TO THE DISTRIBUTOR AGREEMENT ..." by its title): "our distributor agreement" asks which (blind set E: it was
    answered from the one whose kind was read)."""
    amendment = "NETGEAR-AMENDMENT TO THE DISTRIBUTOR AGREEMENT.txt"
    documents = [
        ("ZOGENIX-Distributor Agreement.txt", "", [("properties", {"contract_type": "Distributor Agreement"})]),
        (amendment, "", [("properties", {"governing_law": ["California"], "non_compete": False})]),
        ("ACME-SUPPLY AGREEMENT.txt", "", [("properties", {"contract_type": "Supply Agreement", "non_compete": True})]),
    ]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    for question in (
        "Who's the distributor under our distributor agreement?",
        "Does the distributor agreement have a non-compete clause?",  # an outside probe: "no annotation row matches"
    ):
        several = rules.decompose(question).several
        assert several is not None and {doc.doc_id for doc in several.documents} == {documents[0][0], amendment}


def test_one_document_described_in_lower_case_words_its_titles_hold_says_which_match(rules):
    """ "the content license agreement": lower-case words before the document word describe the title the user
    means (before: "content" was a name left over, and the run asked about the parties nearest to it)."""
    several = rules.decompose("Can I terminate the content license agreement early?").several
    assert several is not None and (several.by, several.matched) == ("title", 2)
    assert {doc.doc_id for doc in several.documents} == {
        "GLOBALMUSIC-CONTENT LICENSE AGREEMENT.txt",
        "SUNSEVEN-CONTENT LICENSE AGREEMENT.txt",
    }
    named = rules.decompose("What does the Global Music content license agreement say about payment?")
    assert named.several is None, "a name is said: the lower-case words only qualify it (before: asked which)"
    plural = rules.decompose("Which content license agreements do I have?")
    assert plural.several is None and [u.text for u in plural.unmapped] == ["content"], "a list still asks"


def test_a_kind_in_lower_case_before_the_document_word_is_no_title_to_ask_about():
    """ "the TransMontaigne services agreement": "services" says the kind (its value is "Service Agreement"), and the
    party names the one document; two titles holding "services agreement" are not asked about."""
    rows = {
        "TRANSMONTAIGNE-SERVICES AGREEMENT.txt": {"contract_type": "Service Agreement", "parties": ["TransMontaigne"]},
        "KUBIENT-MASTER SERVICES AGREEMENT.txt": {"contract_type": "Service Agreement", "parties": ["Kubient"]},
    }
    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in rows.items()]}
    own = RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))
    d = own.decompose("Under which state's law is the TransMontaigne services agreement governed?")
    assert d.several is None and ("parties", "TransMontaigne") in [(c.field, c.value) for c in d.constraints]
    master = own.decompose("What is the termination date of the TransMontaigne global master agreement?")
    assert master.doc_ids == ["TRANSMONTAIGNE-SERVICES AGREEMENT.txt"], (
        "the party's; 'master' of another title alone names none"
    )


@pytest.mark.parametrize(
    "question",
    [
        "When do the supply agreements expire?",  # plural: every one
        "When does the Lakeside Taxi supply agreement expire?",  # kind and party: one document
        "Which contracts do we have with Kestrel Dynamics?",  # plural: a condition on every one that has it
        "How many agreements with Kestrel Dynamics?",
        "What do the Kestrel Dynamics contracts say about payment?",
        "Is there a contract with Kestrel Dynamics governed by Ohio law?",  # any one, not one known
        "What does the Kestrel Dynamics distribution agreement say about payment?",  # one document matches
        "Which state's law governs the PaxMedica master service agreement?",
    ],
)
def test_a_question_about_several_documents_or_a_name_one_matches_asks_nothing(rules, question):
    assert rules.decompose(question).several is None


def test_documents_named_beside_clause_fields_with_values_are_still_named():
    """Once a user's contracts have yes/no clauses read (post_termination_services, ip_ownership_assignment, their
    aliases "transition services", "intellectual property ownership"): "the TransMontaigne services agreement" is
    no transition-services clause (an alias's 5-letter stem matched "TransMontaigne", and the run asked which of 18
    contracts with the clause), and "the intellectual property agreement" still describes the titles that say it
    (its words, a clause's too, had become no description, and the run quoted passages of every contract)."""
    rows = {
        "TRANSMONTAIGNE-SERVICES AGREEMENT.txt": {
            "contract_type": "Service Agreement",
            "parties": ["TransMontaigne"],
            "post_termination_services": True,
            "ip_ownership_assignment": False,
        },
        "INGEVITY-INTELLECTUAL PROPERTY AGREEMENT.txt": {
            "contract_type": "IP Agreement",
            "parties": ["Ingevity Corporation"],
            "post_termination_services": False,
            "ip_ownership_assignment": True,
        },
        "KNOWLABS-INTELLECTUAL PROPERTY AGREEMENT.txt": {
            "contract_type": "IP Agreement",
            "parties": ["Visualant"],
            "post_termination_services": True,
            "ip_ownership_assignment": True,
        },
    }
    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in rows.items()]}
    own = RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))
    d = own.decompose("Under which state's law is the TransMontaigne services agreement governed?")
    assert "post_termination_services" not in [c.field for c in d.constraints]
    assert ("parties", "TransMontaigne") in [(c.field, c.value) for c in d.constraints]
    several = own.decompose("Who are the parties to the intellectual property agreement?").several
    assert several is not None and several.by == "title"
    assert {doc.doc_id for doc in several.documents} == {
        "INGEVITY-INTELLECTUAL PROPERTY AGREEMENT.txt",
        "KNOWLABS-INTELLECTUAL PROPERTY AGREEMENT.txt",
    }


@pytest.mark.parametrize(
    ("leading", "proper"),
    [
        (
            "Under the Borealis agreement, when is Kestrel allowed to get at the source code?",
            "When is Kestrel allowed to get at the source code under the Borealis agreement?",
        ),
        (
            "In the Orchard contract, who pays for shipping?",
            "Who pays for shipping in the Orchard contract?",
        ),
        (
            "Under the Bluefly e-business hosting agreement, how is liability limited?",
            "How is liability limited under the Bluefly e-business hosting agreement?",
        ),
        (
            "If we ask Kestrel for approval and Borealis never answers, can we treat it as approved?",
            "Can we treat it as approved if we ask Kestrel for approval and Borealis never answers?",
        ),
    ],
)
def test_a_phrase_naming_the_document_before_the_question_proper_is_read_as_if_it_came_after(rules, leading, proper):
    first, then = rules.decompose(leading), rules.decompose(proper)
    assert first.intent == then.intent != "list"
    conditions = [{(c.field, v) for c in d.constraints for v in _values(c)} for d in (first, then)]
    assert conditions[0] == conditions[1]


EMPLOYMENT = "THERAVANCE-SERVICE AGREEMENT.txt"
NOTICE = (
    "The Executive may terminate the employment by giving the Company six months' notice, under Canadian law. "
    "Signed: Brett Haumann."
)


@pytest.fixture(scope="module")
def by_text():
    documents = [
        (EMPLOYMENT, NOTICE, [("properties", {"contract_type": "Service Agreement", "parties": ["Theravance"]})]),
        (PAXMEDICA, "The Customer may end it on notice. Signed: Brett Smith.", [("properties", CONTRACTS[PAXMEDICA])]),
        (JOINT_CORP, "Signed: Anna Haumann.", [("properties", CONTRACTS[JOINT_CORP])]),
        (BLUEFLY, "Witness: Brett Smith.", [("properties", CONTRACTS[BLUEFLY])]),
    ]
    return RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))


def test_a_name_only_one_documents_text_holds_names_that_document(by_text):
    """ "Brett Haumann" is no party the rules read nor in a title; the employment agreement's text alone holds both
    of its words (each is in another contract too), so the question is about it, not every contract's notice."""
    d = by_text.decompose("How much notice does Brett Haumann need to give if he wants to quit?")
    assert (d.doc_ids, d.unmapped) == ([EMPLOYMENT], [])
    assert {r.read for r in d.catalog_reads} == {"documents_holding"}  # recorded and capped like every index read


@pytest.mark.parametrize(
    "question",
    [
        "How much notice does Brett Smith need to give?",  # two documents hold it
        "Which agreements are governed by Canadian law?",  # a place: the value readers' ("Canadian" in one text)
    ],
)
def test_a_name_several_documents_or_a_place_text_holds_names_none_of_them(by_text, question):
    assert by_text.decompose(question).doc_ids == []


def test_a_name_one_text_holds_names_no_document_when_documents_are_counted(by_text):
    """An outside probe: "how many contracts mention COVID?" answered "I found no passage about contracts COVID in"
    the one contract whose text holds it, and "... governed by the laws of Mars?" a count of 1 from a row of the
    one file that said "Mars". A question about documents in the plural is no question about that one: the name
    is asked about."""
    d = by_text.decompose("How many contracts mention Brett Haumann?")
    assert d.doc_ids == [] and d.intent == "count" and d.unmapped


def _values(constraint) -> list:
    return constraint.value if isinstance(constraint.value, list) else [constraint.value]


def test_one_document_named_by_a_name_several_texts_hold_is_asked_which(by_text):
    """An outside probe: "our Deloitte contract" (two contracts name Deloitte as their auditor) was answered with
    three other contracts' confidentiality clauses."""
    several = by_text.decompose("What does our Brett Smith contract say about notice?").several
    assert several is not None and several.by == "text"
    assert {doc.doc_id for doc in several.documents} == {PAXMEDICA, BLUEFLY}


def test_a_name_several_texts_hold_is_narrowed_by_the_party_the_question_also_names(by_text):
    """Blind folder D: "Under the Meet Group cooperation agreement, can the Harvest investors publicly criticise the
    company?" asked which of two contracts whose text holds "Harvest", though only one has the party The Meet
    Group: the documents a name matches are those that meet the question's other conditions."""
    d = by_text.decompose("What does our Brett Smith contract with CRO Consulting say about notice?")
    assert (d.doc_ids, d.several) == ([PAXMEDICA], None)
    still = by_text.decompose("What does our Brett Smith contract say about notice?").several
    assert still is not None and len(still.documents) == 2, "no other condition: asked which, as before"


def test_one_document_its_party_and_kind_name_is_the_document_asked_about(rules):
    """ "the Global Music license agreement" names one contract by its party: the question is about it as about one
    named by its title, so a lookup its row cannot answer is looked for in that contract's text alone, one search
    for each of its words and meaning inside it."""
    planner = RulePlanner(AgentContext(), rules.catalog.catalog, rules)
    d = rules.decompose("Who signed the Global Music International license agreement?")
    assert d.doc_ids == ["GLOBALMUSIC-CONTENT LICENSE AGREEMENT.txt"]
    assert {c.field for c in d.constraints} == {"parties", "contract_type"}
    route = planner.route(d, ["structured"])
    plan = planner.plan(d, route, Budget(cap=10))
    assert [c.arguments["doc_id"] for c in plan.calls] == ["GLOBALMUSIC-CONTENT LICENSE AGREEMENT.txt"] * 2
