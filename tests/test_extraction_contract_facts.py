"""The contract-facts rules: the value a user gets and the sentence they can open to check it."""

from __future__ import annotations

import time

import pytest

from evals.extraction.kleister import kleister_party, kleister_term
from evals.extraction.tally import Tally
from retrievers.extraction.rules.contract_facts import RULES
from retrievers.loaders import shared_data_dir

PREAMBLE = (
    "MUTUAL CONFIDENTIALITY AGREEMENT\n"
    "This Mutual Confidentiality Agreement (“Agreement”) is effective as of February 10, 2017 (“Effective Date”), "
    "between Kite Pharma,\nInc., a Delaware corporation having a place of business at 2225 Colorado Avenue, Santa "
    "Monica, CA 90404 (“Kite”) and Gilead Sciences, Inc., a Delaware corporation (“Company”).\n"
    "1. Term. This Agreement shall remain in effect for a period of two (2) years from the Effective Date.\n"
    "2. Governing Law. This Agreement shall be governed by the laws of the State of California, without regard "
    "to its conflict of laws principles.\n"
)


def _read(field: str, body: str) -> list[tuple[object, str]]:
    return [(found.value, body[found.start : found.end]) for found in RULES[field](body)]


def test_each_fact_comes_with_the_sentence_that_states_it():
    (law, cited), *_ = _read("governing_law", PREAMBLE)
    assert law == "California" and cited.startswith("This Agreement shall be governed by the laws of the State")
    (effective, cited), *_ = _read("effective_date", PREAMBLE)
    assert effective == "2017-02-10" and "effective as of February 10, 2017" in cited
    assert _read("agreement_date", PREAMBLE)[0][0] == "2017-02-10"
    (term, cited), *_ = _read("term_days", PREAMBLE)
    assert term == 730 and "two (2) years" in cited
    names = _read("parties", PREAMBLE)
    assert [name for name, _ in names] == ["Kite Pharma, Inc.", "Gilead Sciences, Inc."]
    assert all("between Kite Pharma" in cited for _, cited in names)


def test_a_dated_contract_without_an_effective_date_has_only_an_agreement_date():
    body = 'THIS AGENCY AGREEMENT, dated November 9, 2005 ("Agreement"), between General Electric Capital Corporation.'
    assert _read("agreement_date", body)[0][0] == "2005-11-09"
    assert _read("effective_date", body) == []


def test_a_date_missing_its_day_is_no_date():
    assert RULES["agreement_date"]("This Reseller Agreement is entered as of this ___ day of _________, 2004.") == []


def test_the_law_of_a_state_and_the_federal_law_is_the_states():
    body = "This Agreement shall be governed by the laws of the United States and of the State of Texas."
    assert [value for value, _ in _read("governing_law", body)] == ["Texas"]
    body = "This Agreement shall be governed by the laws of the Province of Ontario and the federal laws of Canada."
    assert [value for value, _ in _read("governing_law", body)] == ["Ontario, Canada"]


def test_two_different_chosen_laws_give_nothing():
    body = (
        "This Agreement shall be governed by the laws of the State of New York. "
        "This Agreement shall be construed in accordance with the laws of the State of Delaware."
    )
    assert RULES["governing_law"](body) == []


def test_the_choice_before_the_signatures_outranks_one_in_an_exhibit_after_them():
    choice = "14.3 This Agreement shall be governed by the laws of the State of California, USA."
    body = (
        choice + " 14.4 Notices shall be in writing.\n\nIN WITNESS WHEREOF, the parties have signed this Agreement.\n\n"
        "EXHIBIT G\nFORM OF LICENSE\n9.9 GOVERNING LAW This Agreement shall be governed by the laws of the State of "
        "New York."
    )
    assert _read("governing_law", body) == [("California", choice)]
    assert RULES["governing_law"](body.replace("IN WITNESS WHEREOF", "Signed")) == []


def test_the_agreements_own_choice_outranks_a_law_mentioned_in_passing():
    body = (
        "Counsel's opinion shall be limited to matters governed by the laws of Tennessee. "
        "This Agreement shall be construed in accordance with the laws of the State of New York."
    )
    assert [value for value, _ in _read("governing_law", body)] == ["New York"]


def test_where_a_party_is_incorporated_is_not_the_governing_law():
    body = "Ingram Micro, a corporation organized under the laws of the State of California, agrees that terms govern."
    assert RULES["governing_law"](body) == []


def test_a_countrys_private_law_named_by_its_adjective_is_that_country():
    body = "27.1 The relation established hereby is commercial and therefore is governed by Colombian private law."
    (law, cited), *_ = _read("governing_law", body)
    assert law == "Colombia" and cited.startswith("27.1 The relation established hereby") and cited.endswith("law.")


def test_a_clause_headed_governing_law_chooses_the_law_it_names_in_any_words():
    """A joint venture's "16. GOVERNING LAW" clause says only that an arbitration "be subject to the application of
    the Italian Law": under that heading it is the choice; the same words under another heading are not."""
    clause = (
        "All disputes arising out of this Agreement shall be finally settled under the Rules of Arbitration of the "
        "International Chamber of Commerce. Any such arbitration shall (i) be subject to the application of the "
        "Italian Law, (ii) take place in Paris, France and (iii) be conducted in English."
    )
    ((law, cited),) = _read("governing_law", f"15. Privacy. The Parties keep data safe. 16. GOVERNING LAW\n\n{clause}")
    assert law == "Italy" and "application of the Italian Law" in cited
    assert RULES["governing_law"](f"16. DISPUTES\n\n{clause}") == []


def test_a_state_misread_by_ocr_still_names_the_law():
    body = "15.6 GOVERNING LAW. THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE SIATE OF TEXAS. 15.7 ASSIGNMENT."
    (law, cited), *_ = _read("governing_law", body)
    assert law == "Texas" and "GOVERNED BY THE LAWS OF THE SIATE OF TEXAS" in cited and "ASSIGNMENT" not in cited


@pytest.mark.parametrize(
    ("body", "place"),
    [
        (
            "This Agreement shall be construed in accordance with, and governed by, the\n\n\n\n\nlaws of the State of"
            " Georgia, without regard to the conflicts of law rules of such state.",
            "Georgia",
        ),
        (
            "This Agreement shall be governed by the laws and judicial decisions of the State of Florida applicable to"
            " contracts entered into and performed entirely within the State of Florida.",
            "Florida",
        ),
        (
            "This Agreement shall be governed by, and construed and enforced in accordance with, the laws in force in"
            " the Province of Ontario (excluding any conflict of laws rule).",
            "Ontario, Canada",
        ),
        ("This Agreement shall be construed in accordance with and governed by the laws ofthe State ofTexas.", "Texas"),
    ],
    ids=["page-break-inside-the-sentence", "laws-and-decisions-of", "laws-in-force-in", "ocr-words-run-together"],
)
def test_the_law_chosen_in_the_ways_contracts_write_it(body, place):
    (law, cited), *_ = _read("governing_law", body)
    assert law == place and "governed" in cited


@pytest.mark.parametrize(
    ("label", "places"),
    [
        ("England and Wales, UK", ["England", "Wales"]),
        ("England, United Kingdom", ["England"]),
        ("Federal Republic of Germany", ["Germany"]),
        ("British Columbia", ["British Columbia, Canada"]),
        ("Delaware, Illinois", ["Delaware, Illinois"]),
        ("the state in which the breach occurs", ["the state in which the breach occurs"]),
    ],
)
def test_the_scorer_reads_a_law_label_as_the_places_it_names(label, places):
    from evals.extraction.cuad_facts import governing_law_places

    assert governing_law_places(label) == places


def test_a_period_after_termination_is_not_the_agreements_term():
    body = "During the term of this Agreement and for a period of one (1) year thereafter, Employee shall not solicit."
    assert RULES["term_days"](body) == []


@pytest.mark.parametrize(
    ("body", "parties"),
    [
        (
            "SUPPLY AGREEMENT\nThis Supply Agreement is entered into as of March 3, 2021 by and between Alpha Widgets "
            "LLC and Beta Retail Inc.\n1. Term. The initial term is two (2) years.\n",
            ["Alpha Widgets LLC", "Beta Retail Inc"],
        ),
        (
            'This Sponsorship Agreement ("Agreement") is entered into as of December 18, 1998, by and between Ford '
            'Motor Media, a division of J. Walter Thompson ("FMM") with offices at 300 Renaissance Center, Detroit, '
            'Michigan 48243 and iVillage, Inc., ("iVillage") with offices at 170 Fifth Avenue, New York, New York '
            "10010.\n",
            ["Ford Motor Media", "iVillage, Inc."],
        ),
        (
            "1. This agreement applies only to Confidential Information received during the term of the May 13, "
            "2003\nLicense Agreement between the Parties. 2. Except as provided in the License Agreement, neither "
            "Party shall be obligated by this Agreement to provide any Confidential Information.\n",
            [],
        ),
        (
            "WHEREAS Party A is a wholly foreign-owned enterprise incorporated under the laws of the People's "
            'Republic of China (the "PRC"), and ShenZhen JingWei Communication Co., Ltd. (the "Licensee") ...\n',
            ["ShenZhen JingWei Communication Co., Ltd."],
        ),
    ],
    ids=["list-ends-before-a-numbered-heading", "name-written-as-brands-are", "parties-named-elsewhere", "no-place"],
)
def test_the_parties_a_preamble_names(body, parties):
    """A list of parties ends before the first numbered section on the next line (an outside probe's own contract:
    before, the second party was "Beta Retail Inc. 1. Term"); "iVillage, Inc." (one small letter before a capital)
    is a party (before, only "Ford Motor Media" was); "... between the Parties. 2. Except ..." names none; a
    country given a defined term is no party (a user's list of the parties "covering staff ... the other party's
    people" was the People's Republic of China's contract)."""
    assert [value for value, _ in _read("parties", body)] == parties


@pytest.mark.parametrize(
    ("body", "parties"),
    [
        (
            "RESELLER AGREEMENT\n\nBY AND BETWEEN\n\nNORTHWIND CORPORATION\n\nAND\n\nBLUE HERON SYSTEMS\n\n"
            "This Reseller Agreement is entered into as of May 1, 2004 by and between Northwind Corporation, a "
            'California corporation ("Northwind") and Blue Heron Systems, a Washington corporation ("Blue Heron").\n',
            ["Northwind Corporation", "Blue Heron Systems"],
        ),
        (
            "DISTRIBUTOR AGREEMENT   BETWEEN   GRANITE MICRO     AND     NETSTAR\n\nAgreement Number: N115\n",
            ["GRANITE MICRO", "NETSTAR"],
        ),
        (
            "This Development Agreement is made on April 15, 2010 by and between Harvest, Incorporated and Verdant "
            "S.A.S.\n\n1. Scope.",
            ["Harvest, Incorporated", "Verdant S.A.S."],
        ),
        (
            "This Development Agreement is made on April 15, 2010 by and between Harvest, Incorporated through its "
            "Technology Center, having its principal place of business at 15 Main Road, Wayzata, Minnesota 55391 USA "
            '("Harvest") and Verdant S.A.S., having a place of business at Route de Reims, Pomacle France '
            '("Verdant").',
            ["Harvest, Incorporated", "Verdant S.A.S."],
        ),
        (
            'This ENDORSEMENT AGREEMENT (the "Agreement") is made this 1st day of November, 2003 by and between '
            'Jane Runner, Individual ("CELEBRITY"), with her offices located in California; and The Right Choice, a '
            "Nevada Corporation (the COMPANY), with its offices in Las Vegas.\n\nENGAGEMENT\nThe COMPANY engages "
            "CELEBRITY.",
            ["Jane Runner", "The Right Choice"],
        ),
        (
            "This Agreement is entered into between OCEAN LINER, INC .\n(“Ocean”) and HARBOR EXHIBITS, INC . "
            "(“Harbor”).",
            ["OCEAN LINER, INC.", "HARBOR EXHIBITS, INC."],
        ),
        (
            "This Agreement is made as of November 6, 2016 by and between Northwind Semiconductor (UK) Ltd., a "
            'corporation organized under the laws of England and Wales ("NORTHWIND") and Blue Heron Corporation, a '
            'Delaware corporation ("HERON").',
            ["Northwind Semiconductor (UK) Ltd.", "Blue Heron Corporation"],
        ),
        (
            "This Agreement is made as of May 1, 2020 between Harbor Partnership d/b/a Harbor Wireless, a Delaware "
            'general partnership ("Harbor"), and Glen Mobile, Inc. f/k/a Sorrel, Inc. ("Licensee").',
            ["Harbor Partnership d/b/a Harbor Wireless", "Glen Mobile, Inc. f/k/a Sorrel, Inc."],
        ),
        (
            "1. Hosting Agreement. This Agreement is entered into by Northwind Communications Corporation "
            '("Northwind") and Heron Corporation ("Customer") for the purpose of hosting.\n',
            ["Northwind Communications Corporation", "Heron Corporation"],
        ),
        (
            "This Co-Branding Agreement is entered into as of March 1, 1999 by and between theheron.com, Inc., with "
            'its principal place of business at 31 West 21st Street, New York, NY 10010 ("theheron"), and The '
            'Northwind Company, with its principal place of business at 12 High Drive, San Diego ("Northwind").\n',
            ["theheron.com, Inc.", "The Northwind Company"],
        ),
        (
            "SUPPLY AGREEMENT\n\nbetween\n\nNORTHWIND OLEO GmbH & Co KG, Main Street 3, 20095 Hamburg,\n\nGermany\n\n"
            "— hereinafter referred to as Northwind —\n\nand\n\nHeron Pharmaceutical Inc, 60 Leveroni Court, Novato, "
            "California 94949\n\n— hereinafter referred to as Heron —\n",
            ["NORTHWIND OLEO GmbH & Co KG", "Heron Pharmaceutical Inc"],
        ),
    ],
    ids=[
        "cover-page-then-preamble",
        "cover-page-names-joined-by-and",
        "two-bare-names-with-suffixes",
        "defined-term-after-an-address",
        "defined-term-after-a-word",
        "full-stop-spaced-off-a-suffix",
        "bracketed-place-before-a-suffix",
        "trade-names",
        "entered-into-by",
        "brand-in-small-letters",
        "suffixes-joined-by-ampersand",
    ],
)
def test_each_party_of_a_preamble_is_read_apart(body, parties):
    """Users' reports: a cover page's "NORTHWIND CORPORATION AND BLUE HERON SYSTEMS" was one party, though the
    preamble below names both apart (the preamble's list is read); "GRANITE MICRO AND NETSTAR" with no preamble
    below was one party; "between Harvest, Incorporated and Verdant S.A.S." gave none, nor did "Harvest,
    Incorporated through its Technology Center, … ("Harvest")"; "Jane Runner, Individual ("CELEBRITY")" gave only
    the heading "ENGAGEMENT The COMPANY"; "OCEAN LINER, INC ." lost its suffix's full stop; and "Northwind
    Semiconductor (UK) Ltd." was "Northwind Semiconductor"; a party's trade name ("d/b/a Harbor Wireless"), part of
    its name as CUAD's lawyers write it, was dropped; "This Agreement is entered into by A ("A") and B ("B")" named
    none; nor did a list opening with a brand in small letters ("theheron.com, Inc."); and "NORTHWIND OLEO GmbH & Co
    KG" was "NORTHWIND OLEO GmbH"."""
    assert [value for value, _ in _read("parties", body)] == parties


@pytest.mark.parametrize(
    ("body", "parties"),
    [
        (
            'SPEAKER AGREEMENT\n\nNorthwind Events, Inc. (the "Company") and Jane Runner ("Speaker") agree as '
            "follows.\n\n1.   ENGAGEMENT      The COMPANY agrees to engage the Speaker for one year.\n",
            ["Northwind Events, Inc.", "Jane Runner"],
        ),
        (
            "Cooperation Agreement   Party A: Northwind Energy Co., Ltd. Legal Representative: Ku Li   Northwind "
            "Energy Co., Ltd. is a subsidiary of Eastern Power.   Party B: Boxing Gas Supply Co., Ltd. Legal "
            "Representative: Li Xun   Boxing Gas Supply Co., Ltd. supplies gas.\n",
            ["Northwind Energy Co., Ltd.", "Boxing Gas Supply Co., Ltd."],
        ),
        (
            "JOINT FILING AGREEMENT\n\nThe undersigned agree that the Schedule 13G is filed on behalf of each of "
            "them.\n\nDATED: April 8, 2020 NORTHWIND CAPITAL LP\n\nBy: /s/ Jane Roe Jane Roe Chief Financial Officer "
            "NORTHWIND HOLDING CORPORATION\n\nBy: /s/ Jane Roe Jane Roe Chief Financial Officer NORTHWIND MANAGEMENT, "
            "INC.\n\nBy: /s/ Jane Roe Jane Roe Chief Financial Officer\n",
            ["NORTHWIND CAPITAL LP", "NORTHWIND HOLDING CORPORATION", "NORTHWIND MANAGEMENT, INC."],
        ),
    ],
    ids=["heading-before-the-company", "columns-of-a-layout", "signature-blocks"],
)
def test_the_opening_lines_of_a_contract_with_no_list_of_parties(body, parties):
    """A heading run into a party's defined term ("1. ENGAGEMENT The COMPANY agrees") was a third party; a
    representative's name in the column before the company's ("Ku Li   Northwind Energy Co., Ltd.") was read as part
    of it; a signatory's name and title ran into the company signing below ("Jane Roe Chief Financial Officer
    NORTHWIND HOLDING CORPORATION")."""
    assert [value for value, _ in _read("parties", body)] == parties


def test_kleister_forms_of_party_names_and_terms():
    assert kleister_party("Leonard Green & Partners, L.P.") == "Leonard Green and Partners LP"
    assert kleister_party("ALTIMO HOLDINGS & INVESTMENTS LIMITED") == "ALTIMO HOLDINGS and INVESTMENTS Ltd."
    assert kleister_party("Tyco Healthcare Group LP d/b/a Covidien") == "Tyco Healthcare Group LP"
    (found,) = RULES["term_days"](PREAMBLE)
    assert kleister_term(PREAMBLE, found) == "2 years"


def test_tally_counts_a_prediction_without_a_label_as_a_false_positive():
    tally = Tally()
    tally.add(["New York"], [])
    tally.add([], [])
    tally.add(["Delaware"], ["Delaware"])
    figures = tally.figures()
    assert (figures["precision"], figures["recall"], figures["accuracy"]) == (0.5, 1.0, round(2 / 3, 4))


@pytest.mark.parametrize(
    "body",
    [
        "",
        "\x00" * 1000,
        "laws of " * 200_000,
        "Texas law " * 200_000,
        "between " + "Acme Corp, " * 100_000,
        "January 1, 2001 " * 500_000,
        "for a period of two years " * 300_000,
        "x" * 10_000_000,
    ],
    ids=["empty", "nul", "laws-of", "place-law", "names", "dates", "lengths", "10MB-line"],
)
def test_hostile_text_gives_nothing_quickly(body):
    began = time.perf_counter()
    for rule in RULES.values():
        assert isinstance(rule(body), list)
    assert time.perf_counter() - began < 5


def test_no_choice_of_law_and_no_dates_give_nothing():
    body = "The parties met to discuss a possible transaction and agreed to talk again."
    assert all(RULES[field](body) == [] for field in ("governing_law", "effective_date", "agreement_date", "term_days"))


@pytest.mark.skipif(not (shared_data_dir() / "kleister_nda").is_dir(), reason="Kleister-NDA data not present")
def test_kleister_train_scores_above_the_floor_it_was_tuned_to():
    from evals.extraction.kleister import score

    assert score("train")["all"]["f1"] >= 0.75
