"""A contract's kind read from its title: the title ends at its first "Agreement", a title joining kinds with "and"
gives each (its main kind first), and a user's filter on any of them finds the contract, also in a data folder
made when the field held one kind."""

from __future__ import annotations

import json
import time
from pathlib import Path

from core.models import FieldSpec
from retrievers.extraction.rules.contract_kind import contract_type
from retrievers.extraction.shipped import shipped
from retrievers.ingestion.sources import ingest_source
from retrievers.postgres.annotation_filters import Predicate

OPENING = 'This {} (the "Agreement") is made between Acme Inc. and Beta LLC.\n\n'
FILLER = "The parties shall perform their obligations in good faith and with reasonable care. " * 20


def _read(title: str, opening: str = "") -> list[tuple[str, str]]:
    """(kind, cited text) of each kind found in a contract headed by `title`."""
    body = f"{title}\n\n{opening}{FILLER}"
    return [(found.value, body[found.start : found.end]) for found in contract_type(body)]


def test_a_title_ends_at_its_first_agreement_word():
    """Before: "STRATEGIC ALLIANCE AGREEMENT   This Strategic Collaboration Agreement" was read as one title ending
    at the second "Agreement", filed under collaboration, and cited with the sentence after it."""
    body = 'STRATEGIC ALLIANCE AGREEMENT   This Strategic Collaboration Agreement (the "Agreement") is made. ' + FILLER
    assert [(f.value, body[f.start : f.end]) for f in contract_type(body)] == [
        ("Strategic Alliance Agreement", "STRATEGIC ALLIANCE AGREEMENT")
    ]


def test_the_filings_confidentiality_legend_is_no_title():
    """EDGAR exhibits open with "... REDACTED PROVISIONS OF THIS AGREEMENT": read as the title, it named no kind, and
    a Sponsorship Agreement had none (an outside probe's "Tickets.com sponsorship agreement")."""
    legend = (
        "CONFIDENTIAL TREATMENT HAS BEEN REQUESTED FOR CERTAIN REDACTED PROVISIONS OF THIS AGREEMENT. THE REDACTED "
        "PROVISIONS ARE IDENTIFIED BY THREE ASTERISKS.\n\nEXHIBIT 10.22\n\n"
    )
    assert _read(legend + "SPONSORSHIP AGREEMENT", OPENING.format("Sponsorship Agreement")) == [
        ("Sponsorship Agreement", "SPONSORSHIP AGREEMENT")
    ]


def test_a_title_joining_kinds_gives_each_its_main_kind_first():
    assert _read("MANUFACTURING AND SUPPLY AGREEMENT", OPENING.format("Manufacturing and Supply Agreement")) == [
        ("Manufacturing Agreement", "MANUFACTURING AND SUPPLY AGREEMENT"),
        ("Supply Agreement", "MANUFACTURING AND SUPPLY AGREEMENT"),
    ]
    assert [kind for kind, _ in _read("License and Development Agreement")] == [
        "Development Agreement",
        "License Agreement",
    ]
    title = "Software Development, Hosting and Management Agreement"
    assert _read(title) == [("Hosting Agreement", title), ("Development Agreement", title)]


def test_a_word_that_only_qualifies_another_or_a_company_name_names_no_kind():
    assert [kind for kind, _ in _read("TRADEMARK LICENSE AGREEMENT")] == ["License Agreement"]
    assert [kind for kind, _ in _read("TRANSPORTATION SERVICES AGREEMENT")] == ["Transportation Agreement"]
    assert [kind for kind, _ in _read("Goosehead Insurance Agency, LLC Franchise Agreement")] == ["Franchise Agreement"]
    assert _read("AMENDMENT NO. 2 TO ESCROW AGREEMENT") == []


def test_hostile_text_finds_nothing_and_stays_fast():
    started = time.perf_counter()
    assert contract_type("") == []
    assert contract_type("\x00" * 1000 + "SUPPLY\x00AGREEMENT") == []
    assert contract_type("Word " * 2_000_000) == []
    assert contract_type("A " * 5_000_000 + "Supply Agreement") == []  # past the opening the title is read from
    assert contract_type(("Supply and " * 10 + "Agreement ") * 1000) != []
    assert time.perf_counter() - started < 5


def _contracts(tmp_path: Path) -> Path:
    folder = tmp_path / "contracts"
    folder.mkdir()
    for name, title in {
        "acme.txt": "MANUFACTURING AND SUPPLY AGREEMENT",
        "orchard.txt": "MASTER SUPPLY AGREEMENT",
        "gamma.txt": "LICENSE AND DEVELOPMENT AGREEMENT",
    }.items():
        (folder / name).write_text(f"{title}\n\n{OPENING.format('Agreement')}{FILLER}\n")
    return folder


def _kinds(stack, kind: str) -> list[str]:
    found = stack.store.find_annotations(
        "default", "contracts", [Predicate(field="contract_type", op="=", value=kind)], kind="properties"
    )
    return sorted(row["doc_id"] for row in found)


def test_a_filter_on_a_second_kind_finds_the_contract_in_a_data_folder_made_when_kinds_were_single(stack, tmp_path):
    """A data folder made before contract_type held several kinds declares it single, which would refuse a title's
    two kinds as ambiguous: the next ingest widens it, so "list my supply agreements" finds the Manufacturing and
    Supply Agreement, while a kind stored as a single value (a label given before) still matches as it did."""
    single = [s.model_copy(update={"multi": False}) if s.name == "contract_type" else s for s in shipped("contracts")]
    stack.store.add_bucket("contracts", "")
    stack.store.record_field_specs("contracts", single)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"doc_id": "orchard.txt", "row": {"contract_type": "Supply Agreement"}}) + "\n")
    ingest_source(stack, path=_contracts(tmp_path), bucket="contracts", annotations=labels, scope="default")

    (declared,) = [s for s in stack.store.field_specs("contracts") if s.name == "contract_type"]
    assert declared.multi and declared.found_by == "rule"
    assert _kinds(stack, "Supply Agreement") == ["acme.txt", "orchard.txt"]
    assert _kinds(stack, "manufacturing agreement") == ["acme.txt"]
    assert _kinds(stack, "License Agreement") == ["gamma.txt"]
    (row,) = [r for r in stack.store.document_annotations("default", "acme.txt") if r["kind"] == "properties"]
    assert row["row"]["contract_type"] == ["Manufacturing Agreement", "Supply Agreement"]
    body = stack.store.get_document("default", "acme.txt")["body"]
    cited = row["sources"]["contract_type"]
    assert body[cited["start"] : cited["end"]] == "MANUFACTURING AND SUPPLY AGREEMENT"
    catalog = {f.name: f for f in stack.store.field_catalog("default", "contracts")}
    assert catalog["contract_type"].multi and catalog["contract_type"].doc_count == 3


def test_widening_keeps_everything_else_a_user_declared(store):
    """Only `multi` is taken from the shipped schema for a declared field; its other words stay the user's."""
    store.add_bucket("contracts", "")
    mine = FieldSpec(name="contract_type", type="string", description="my kinds", found_by="text")
    store.record_field_specs("contracts", [mine])
    store.record_field_specs("contracts", shipped("contracts"), only_new=True)
    (declared,) = [s for s in store.field_specs("contracts") if s.name == "contract_type"]
    assert declared == mine.model_copy(update={"multi": True})
