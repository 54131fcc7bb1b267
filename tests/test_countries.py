"""A country said of a law, on contracts whose governing law names states and provinces: "US law" is every US state
a contract's law is in, "a country other than the US" every place outside it; "us" the pronoun is no country. Before,
"non-US law" counted every contract (the "US" was dropped) and "a country other than the US" was asked back."""

from __future__ import annotations

import pytest

from english.places import country_of
from graph.planners.rule_decomposer import RuleDecomposer
from retrievers.extraction.shipped import shipped
from tests.fake_catalog import FakeCatalog

LAWS = {
    "ACME-SUPPLY AGREEMENT.txt": "New York",
    "BOREALIS-LICENSE AGREEMENT.txt": "Delaware",
    "MAPLE-DISTRIBUTOR AGREEMENT.txt": "Ontario, Canada",
    "THAMES-SERVICES AGREEMENT.txt": "England",
}
US = ["Delaware", "New York"]


@pytest.fixture(scope="module")
def rules():
    documents = [(doc_id, doc_id, [("properties", {"governing_law": [law]})]) for doc_id, law in LAWS.items()]
    documents.append(("QUILL-LEASE.txt", "QUILL-LEASE.txt", [("properties", {"contract_type": "Lease"})]))
    return RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))


def _law(d) -> tuple[str, list[str]]:
    [c] = [c for c in d.constraints if c.field == "governing_law"]
    return c.op, sorted(c.value) if isinstance(c.value, list) else [c.value]


@pytest.mark.parametrize(
    "question",
    [
        "How many of my contracts are governed by the law of a country other than the US?",
        "How many contracts are under non-US law?",
        "which agreements are governed by laws outside the United States?",
        "How many contracts are not governed by US law?",  # an outside probe: 31, the count of US law
        "Which contracts are governed by foreign law?",  # outside the country most contracts' laws are in
    ],
)
def test_a_law_outside_a_country_is_every_place_held_outside_it(rules, question):
    d = rules.decompose(question)
    assert d.unmapped == [] and _law(d) == ("not in", US)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which contracts are governed by US law?", ("in", US)),
        ("How many contracts are under American law?", ("in", US)),
        ("which agreements fall under Canadian law?", ("=", ["Ontario, Canada"])),
    ],
)
def test_a_countrys_law_is_every_place_held_in_it(rules, question, said):
    d = rules.decompose(question)
    assert d.unmapped == [] and _law(d) == said


def test_us_the_pronoun_is_no_country(rules):
    d = rules.decompose("Which contracts name a party other than us?")
    assert all(c.field != "governing_law" for c in d.constraints)


def test_a_place_is_in_its_country():
    assert [country_of(p) for p in ("New York", "Ontario, Canada", "England", "Acme Corp")] == [
        "United States",
        "Canada",
        "England",
        None,
    ]


@pytest.mark.parametrize(
    "question",
    [
        "How many contracts are governed by a law other than New York's?",
        "Which contracts are under any law except New York?",
    ],
)
def test_a_law_other_than_a_state_is_every_other_law(rules, question):
    """An outside probe: "other than New York's" answered 11, the New York count, with the negation dropped."""
    assert _law(rules.decompose(question)) == ("!=", ["New York"])
