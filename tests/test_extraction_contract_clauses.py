"""The CUAD clause and term rules: the value a user sees for a contract, and the sentence it cites."""

from __future__ import annotations

import time

import pytest

from retrievers.extraction.found import Found
from retrievers.extraction.rules import contract_clauses, contract_kind, contract_terms
from retrievers.loaders import dataset_path

RULES = {**contract_terms.RULES, **contract_kind.RULES, **contract_clauses.RULES}
FILLER = "The parties shall cooperate in good faith in all matters relating to the services described herein. " * 30

CONTRACT = (
    "Exhibit 10.1\n\nEXCLUSIVE DISTRIBUTOR AGREEMENT\n\n"
    'This Distributor Agreement is made as of June 1, 2004 (the "Effective Date") between Acme Inc. and Beta LLC.\n\n'
    "1. Appointment. Acme hereby grants Beta the exclusive right to sell the Products in the Territory.\n\n"
    "2. Term. The initial term of this Agreement will be for two (2) years commencing on the Effective Date. "
    "Thereafter, this Agreement shall automatically renew for successive one (1) year periods unless either party "
    "gives written notice of non-renewal at least sixty (60) days prior to the end of the then current term.\n\n"
    "3. Termination. Either party may terminate this Agreement for convenience upon ninety (90) days prior written "
    "notice to the other party.\n\n"
    "4. Non-Competition. During the term of this Agreement, Beta shall not sell any products that compete with the "
    "Products.\n\n"
    "5. Records. Acme shall have the right to audit the books and records of Beta relating to its sales.\n\n"
    "6. Assignment. Neither party may assign this Agreement without the prior written consent of the other party.\n\n"
    "7. Change of Control. Acme may terminate this Agreement upon notice if Beta undergoes a change of control.\n\n"
    "8. Pricing. Acme warrants that the prices charged to Beta shall be no less favorable than those charged to any "
    "other distributor.\n\n" + FILLER
)


def cited(body: str, found: Found) -> str:
    return body[found.start : found.end]


def test_every_field_of_a_contract_is_read_with_its_sentence():
    found = {field: rule(CONTRACT) for field, rule in RULES.items()}
    assert [f.value for f in found["contract_type"]] == ["Distributor Agreement"]
    assert [f.value for f in found["expiration_date"]] == ["2006-06-01"]
    assert "two (2) years" in cited(CONTRACT, found["expiration_date"][0])
    assert [f.value for f in found["perpetual"]] == [False]
    assert [f.value for f in found["renewal_term_days"]] == [365]
    assert [f.value for f in found["notice_period_days"]] == [60]
    assert "sixty (60) days" in cited(CONTRACT, found["notice_period_days"][0])
    assert [f.value for f in found["auto_renewal"]] == [True]
    assert "shall automatically renew" in cited(CONTRACT, found["auto_renewal"][0])
    quotes = {
        "exclusivity": "exclusive right to sell",
        "termination_for_convenience": "for convenience",
        "non_compete": "shall not sell any products that compete",
        "audit_rights": "right to audit",
        "anti_assignment": "Neither party may assign",
        "change_of_control": "change of control",
        "most_favored_nation": "no less favorable",
    }
    for field, words in quotes.items():
        assert [f.value for f in found[field]] == [True], field
        assert words in cited(CONTRACT, found[field][0]), field


def test_a_contract_without_the_clauses_says_no_and_cites_nothing():
    body = (
        "SERVICES AGREEMENT\n\nThis Agreement shall continue in effect until terminated as provided herein. " + FILLER
    )
    for field in contract_clauses.RULES:
        assert RULES[field](body) == [Found(False, 0, 0)], field
    assert [f.value for f in RULES["perpetual"](body)] == [True]
    assert RULES["expiration_date"](body) == []
    assert RULES["renewal_term_days"](body) == []


@pytest.mark.parametrize(
    ("sentence", "renews"),
    [
        ("This Agreement shall renew automatically each year thereafter, unless either party serves written notice "
         "of its intention not to renew at least 90 days prior to the expiration of the then current term.", True),
        ("The Term of this Agreement shall be extended for additional one year periods unless either party gives "
         "notice of non-renewal.", True),
        ("Thereafter, this Agreement may be renewed for such periods as are mutually agreed to in writing.", False),
        ("The Term of this Agreement shall be extended for subsequent one year periods upon the mutual agreement of "
         "the parties.", False),
        ("At the expiration of the term, the Licensee may, at its option, renew this Agreement for one additional "
         "term of five years.", False),
        ("If any delay occurs, any applicable time period will be automatically extended for a period equal to the "
         "time lost.", None),
        ("This time limit may be extended by agreement of the parties or by the arbitrators, if necessary.", None),
        # "automatically renewed" far after the agreement's word (an outside probe's Cybergy affiliate agreement)
        ("This agreement shall begin upon the date of its execution by MA and acceptance in writing by Company and "
         "shall remain in effect until the end of the current calendar year and shall be automatically renewed for "
         "successive one (1) year periods unless otherwise terminated.", True),
        # a word between "automatic" and the renewal, and a contract named by what it is (two of a user's folder)
        ("The term of this Agreement shall be for a period of five (5) years (the \"Initial Term\"); provided, "
         "however, the Initial Term shall be subject to automatic successive renewal terms of three (3) years each.",
         True),
        ("After the initial period of two years, the maintenance and support contract shall be automatically renewed "
         "for a period of one year on each renewal date, unless one of the parties terminates it.", True),
        # a period extended as far after it is no renewal
        ("Whenever the action is required to be taken under this Agreement within a specified period of time and "
         "the taking of such action is materially affected by a matter submitted to arbitration, such period shall "
         "automatically be extended by the number of days taken.", None),
    ],
)  # fmt: skip
def test_whether_the_term_renews_by_itself_is_read_from_the_renewal_sentence(sentence, renews):
    """Automatic renewal, which CUAD does not label, asked of a user's own contracts ("How many of my agreements
    renew automatically?"): by the wording of the sentence that renews this agreement or its term; a delay's
    extension or an arbitration's time limit says nothing of it."""
    found = contract_terms.RULES["auto_renewal"](sentence + " " + FILLER)
    assert [f.value for f in found] == ([] if renews is None else [renews])
    assert all(cited(sentence + " " + FILLER, f) == sentence for f in found)


def test_a_term_that_renews_by_itself_unless_noticed_renews_automatically_though_agreement_may_renew_it_too():
    """2TheMart's term: renewal by mutual agreement first, then "shall be automatically renewed" when no notice is
    given (an outside probe read False from the first sentence)."""
    body = (
        "The term of this Agreement shall continue for one (1) year following the Launch Date. This Agreement may be "
        "renewed for any number of successive one (1) year terms by mutual written agreement of the parties prior to "
        "the conclusion of the term of this Agreement. A party wishing to renew this Agreement shall give the other "
        "party notice thereof no less than thirty (30) days before the expiration of the term then in effect. In the "
        "event that either party does not give such notice, the term of this Agreement shall be automatically "
        "renewed for another one (1) year. "
    )
    (found,) = contract_terms.RULES["auto_renewal"](body + FILLER)
    assert found.value is True
    assert cited(body, found).startswith("In the event that either party does not give such notice")


def test_a_stated_end_date_is_read_as_written():
    body = "The term of this Agreement shall commence on March 1, 2003 and shall terminate on December 31, 2020. "
    found = contract_terms.RULES["expiration_date"](body + FILLER)
    assert [f.value for f in found] == ["2020-12-31"]
    assert cited(body, found[0]).startswith("The term of this Agreement")


def test_a_term_the_contract_defines_with_its_dates_ends_on_the_last_one():
    """'"Contract Period" shall mean ... commencing on January 1, 2000 and concluding December 31, 2003': the
    contract's own name for its term, so the user asking when it ends gets that date, cited to the definition."""
    body = (
        '1. DEFINITIONS. (a) "Contract Period" shall mean that period of time commencing on January 1, 2000 and '
        "concluding December 31, 2003, unless terminated sooner as provided herein. "
    )
    found = contract_terms.RULES["expiration_date"](body + FILLER)
    assert [f.value for f in found] == ["2003-12-31"]
    assert "concluding December 31, 2003" in cited(body, found[0])
    year = '(b) "Contract Year" shall mean the period commencing on January 1, 2000 and ending December 31, 2000.'
    assert contract_terms.RULES["expiration_date"](year + FILLER) == []


def test_a_term_counted_from_an_undatable_event_gives_no_date():
    body = "The term of this Agreement shall continue for five (5) years from the Launch Date. " + FILLER
    assert contract_terms.RULES["expiration_date"](body) == []


def test_negated_exclusivity_and_jurisdiction_are_not_exclusivity():
    body = (
        "Acme grants Beta a non-exclusive license to the Software. This appointment is not exclusive. "
        "The courts of New York shall have exclusive jurisdiction. " + FILLER
    )
    assert contract_clauses.RULES["exclusivity"](body) == [Found(False, 0, 0)]


@pytest.mark.parametrize(
    ("sentence", "clause"),
    [
        (  # a change of control that frees the assignment needs no consent, notice or right to end
            "Neither party may assign this Agreement without the other party's consent, provided that either party "
            "may assign it in connection with a change of control of that party.",
            False,
        ),
        (  # ... unless a proviso binds it again
            "Notwithstanding the foregoing, either party may assign this Agreement in connection with a change of "
            "control, provided that it gives the other party prior written notice of the assignment.",
            True,
        ),
        (  # a company's name is no consolidation
            "Consolidated Widgets Inc. shall have the right to terminate this Agreement upon thirty days written "
            "notice to the Distributor.",
            False,
        ),
    ],
)
def test_a_change_of_control_is_the_clause_only_when_it_binds_a_party(sentence, clause):
    body = FILLER + sentence + " " + FILLER
    assert [f.value for f in contract_clauses.RULES["change_of_control"](body)] == [clause]


def test_survival_for_any_reason_is_not_termination_for_convenience():
    body = "Sections 5 and 6 shall survive termination of this Agreement for any reason. " + FILLER
    assert contract_clauses.RULES["termination_for_convenience"](body) == [Found(False, 0, 0)]


def test_a_definition_alone_leaves_the_clause_unanswered():
    body = (
        '1.4 "Change of Control" means the acquisition by any person of a majority of the voting shares of a Party, '
        "and the right to appoint its board. " + FILLER
    )
    assert contract_clauses.RULES["change_of_control"](body) == []


def test_a_competitor_named_before_an_unrelated_restraint_is_no_non_compete():
    body = (
        "The Company shall report on Licensor Competitors (as defined in the License Agreement), and neither Party "
        "shall undertake any act that would constitute a breach of the License Agreement. " + FILLER
    )
    assert contract_clauses.RULES["non_compete"](body) == [Found(False, 0, 0)]


@pytest.mark.parametrize(
    "sentence",
    [  # keeping information from a competitor, not soliciting staff for one, hiring a third party, a word that
        # only begins like a forbidden business ("developed"): restrictions, but no non-compete
        "During the term and for two years thereafter, the Recipient shall not use the Confidential Information of "
        "the Company to compete with the Company.",
        "For one year after termination, Consultant shall not solicit any employee of the Company to join a "
        "competitor.",
        "During the Term, Reseller shall not engage any third party to modify the Products installed at customer "
        "sites.",
        "During the Term, the Supplier will not circumvent the customer relationships developed by the Distributor.",
    ],
)
def test_other_restrictions_during_the_term_are_no_non_compete(sentence):
    """A user's folder of 40 contracts got a non-compete for 13 where CUAD counts 6: a confidentiality or
    non-solicitation covenant that names a competitor, or any "shall not" over the term, was taken for one."""
    body = FILLER + sentence + " " + FILLER
    assert contract_clauses.RULES["non_compete"](body) == [Found(False, 0, 0)]


@pytest.mark.parametrize(
    ("field", "sentence"),
    [
        (  # a restraint over the term is a non-compete
            "non_compete",
            "During the term of this Agreement and for one (1) year thereafter, neither party shall, directly or "
            "indirectly, engage in the manufacture of any fast food product.",
        ),
        (  # so is a prohibition worded with a gerund
            "non_compete",
            "For a period of two years after this Agreement ends, the Seller shall be prohibited from owning or "
            "operating any business that sells fast food.",
        ),
        (  # not dealing with anyone else during the term is exclusivity
            "exclusivity",
            "During the Term, North agrees not to enter into an agreement with another company for the purpose of "
            "endorsing products similar to the Endorsed Products.",
        ),
    ],
)
def test_a_clause_said_in_other_words_is_found_and_cites_its_sentence(field, sentence):
    body = FILLER + sentence + " " + FILLER
    found = contract_clauses.RULES[field](body)
    assert [f.value for f in found] == [True]
    assert cited(body, found[0]) == sentence


def test_ownership_and_negated_grants_are_not_exclusivity():
    body = (
        "All goodwill associated with the Marks shall inure exclusively to the benefit of Licensor. "
        "The Franchisee has no right to any exclusive territory in the area of the Restaurant. " + FILLER
    )
    assert contract_clauses.RULES["exclusivity"](body) == [Found(False, 0, 0)]


def test_a_term_running_until_terminated_on_notice_is_left_unanswered():
    body = (
        "This Agreement shall continue in full force and effect thereafter until terminated by either Party by "
        "providing thirty (30) days' prior written notice of termination to the other Party. " + FILLER
    )
    assert contract_clauses.RULES["termination_for_convenience"](body) == []


@pytest.mark.parametrize("body", ["", "\x00" * 5000, "a" * 3000, "Agreement. " * 10])
def test_empty_or_meaningless_text_gives_no_values(body):
    for field, rule in RULES.items():
        assert all(found.value is False for found in rule(body)), field


def test_a_huge_single_line_is_read_quickly():
    body = ("shall not compete exclusive audit assign term renew " * 200_000)[:10_000_000]
    started = time.perf_counter()
    for rule in RULES.values():
        rule(body)
    assert time.perf_counter() - started < 10


def test_real_contracts_read_without_error():
    folder = dataset_path("cuad")
    if folder is None or not (folder / "derived_contracts.jsonl").is_file():
        pytest.skip("CUAD is not in the shared data folder")
    from retrievers.loaders import cuad

    for source in cuad.load(folder, limit=5):
        body = source.document.body
        for rule in RULES.values():
            for found in rule(body):
                assert 0 <= found.start <= found.end <= len(body)


ESCROW = (
    "Within sixty (60) days of the Effective Date, Acme shall deposit a copy of the source code of the Software with "
    "a mutually acceptable escrow agent, to be released to Beta if Acme ceases to support the Software."
)


BENEFICIARY = (
    "The parties agree that Franchisor is an intended third-party beneficiary of this Agreement with the right to "
    "enforce it."
)


@pytest.mark.parametrize(
    ("field", "sentence"),
    [
        ("source_code_escrow", ESCROW),
        (
            "source_code_escrow",
            "Acme will keep the Deposit Materials in escrow and ensure on a quarterly basis that the information "
            "relating to the Deposit Materials in escrow is current.",
        ),
        (
            "source_code_escrow",
            "After the Source Code Access Conditions are met, Beta shall have the right to use and modify the Licensed "
            "Source Code to maintain and support the Licensed Technology.",
        ),
        ("third_party_beneficiary", BENEFICIARY),
    ],
)
def test_a_clause_users_asked_about_says_yes_citing_its_sentence(field, sentence):
    """Before, source code escrow and third-party beneficiaries had no rule: a user's own contract got no value,
    and "which of my contracts have a source code escrow?" asked back."""
    body = CONTRACT + sentence + " " + FILLER
    found = contract_clauses.RULES[field](body)
    assert [f.value for f in found] == [True]
    assert cited(body, found[0]) == sentence


@pytest.mark.parametrize(
    "sentence",
    [  # funds held in escrow, and a representation that no source code is
        "The Company and the Agent shall transmit all funds received from subscribers to the Escrow Agent by noon of "
        "the next business day following receipt thereof.",
        "None of the Seller Entities is a party to any Contract requiring the deposit of any Source Code with an "
        "escrow agent or escrow service.",
        "Distributor shall not attempt to derive the source code of the Products, which are supplied in object code "
        "form only.",
    ],
)
def test_other_escrows_and_source_code_without_one_are_no_source_code_escrow(sentence):
    body = CONTRACT + sentence + " " + FILLER
    assert contract_clauses.RULES["source_code_escrow"](body) == [Found(False, 0, 0)]


@pytest.mark.parametrize(
    "sentence",
    [
        "There are no third-party beneficiaries of this Agreement.",
        "Nothing in this Agreement shall make any person other than the parties a third party beneficiary hereof.",
        "Section 12.4 Entire Agreement; Third-Party Beneficiaries; Counterparts",
    ],
)
def test_denying_beneficiaries_or_a_heading_naming_them_is_no_third_party_beneficiary(sentence):
    body = CONTRACT + sentence + "\n\n" + FILLER
    assert contract_clauses.RULES["third_party_beneficiary"](body) == [Found(False, 0, 0)]


def test_a_short_contract_has_the_clauses_it_states_and_no_answer_for_the_others():
    """A contract of a few lines (an outside probe's 1,240 characters with an explicit non-compete got no clause):
    what it states is there; what it does not state says nothing, as for a fragment."""
    body = (
        "CONSULTING AGREEMENT\n\nThis Agreement is made on June 1, 2016 between Harbor Point LLC and Dana Reyes.\n\n"
        "4. NON-COMPETITION. During the term, Consultant shall not compete with the Company in the State of Oregon."
    )
    assert [f.value for f in RULES["non_compete"](body)] == [True]
    assert RULES["audit_rights"](body) == []


OWN_AUDITORS = (
    "Either party may disclose the Confidential Information of the other to its attorneys, auditors and financial "
    "advisors who are bound by duties of confidentiality."
)


@pytest.mark.parametrize(
    "sentence",
    [  # a party's own auditors receiving information, information kept out of confidence, auditing fees, an
        # examination of a party's own taxes: an audit named near "may" or "available", but no right to audit
        OWN_AUDITORS,
        "Confidential Information shall not include information that is available to the public or that the "
        "recipient must produce in a tax audit.",
        "The Company shall reimburse the Agent for its fees relating to auditing and accounting advisors, as the "
        "Agent may reasonably incur.",
        "No examination of any tax return of the Seller is in progress, and the Seller may file its returns on time.",
        "Customer reserves the right to keep its pricing confidential, which is not available for any type of audit.",
    ],
)
def test_an_audit_the_contract_only_mentions_is_no_audit_right(sentence):
    """An outside tester's 25 contracts got 10 audit rights of which 5 were wrong, one citing a party's leave to
    disclose Confidential Information to its own auditors, another what Confidential Information does not
    include."""
    body = FILLER + sentence + " " + FILLER
    assert contract_clauses.RULES["audit_rights"](body) == [Found(False, 0, 0)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Licensor may, at its own expense, have an independent accountant examine the books and records of "
        "Licensee relating to the royalties.",
        "Distributor shall keep complete records of its sales, which shall be available during normal business "
        "hours for inspection by Supplier's representatives.",
        "Each party shall have the right, upon thirty (30) days' notice and not more than once a year, to visit "
        "the premises of the other for the purpose of examining its books of account.",
    ],
)
def test_an_audit_right_after_a_mere_mention_of_auditors_is_the_one_cited(sentence):
    body = FILLER + OWN_AUDITORS + " " + sentence + " " + FILLER
    found = contract_clauses.RULES["audit_rights"](body)
    assert [f.value for f in found] == [True]
    assert cited(body, found[0]) == sentence


@pytest.mark.parametrize(
    ("field", "sentence", "clause"),
    [
        (  # the lead-in of a list says what its items do
            "change_of_control",
            "Licensor may terminate this Agreement upon written notice upon the occurrence of any of the following:"
            "\n\n(a) Licensee fails to pay any amount when due;\n\n(b) a change of control of Licensee;",
            True,
        ),
        (
            "change_of_control",
            "Licensor may terminate this Agreement:\n\n(1) Upon thirty (30) days prior written notice if Licensee "
            "enters into an agreement relating to the merger of Licensee with another entity.",
            True,
        ),
        (  # a change of ownership named among other changes
            "change_of_control",
            "In the event of any material change in the organization, ownership, management or control of the "
            "business of the Agent, the Company may, at its option, terminate this Agreement upon written notice.",
            True,
        ),
        (
            "change_of_control",
            "Either party may terminate this Agreement upon thirty days written notice if the other party has "
            "undergone a material ownership change.",
            True,
        ),
        (
            "non_compete",
            "The Distributor shall not:\n\n(a) alter the packaging of the Product; or\n\n(b) act as the agent for "
            "any person for any goods which are competitive with the Product.",
            True,
        ),
        (  # a restraint for a span the contract names ("the two year period"), not only "the term"
            "non_compete",
            "During the two year period following the Effective Date, Acme shall not commercially offer any web "
            "service similar to the Co-Branded Service.",
            True,
        ),
        (
            "non_compete",
            "The Distributor agrees that during the term of this Agreement the Distributor shall handle no products "
            "that are competitive with the Products within the Territory.",
            True,
        ),
        (  # a licence granted subject to a covenant elsewhere is no covenant
            "non_compete",
            "Subject to Beta's compliance with the covenant not to compete in Section 8.3 of the Asset Purchase "
            "Agreement, Acme hereby grants to Beta a worldwide, non-exclusive license under the Patents.",
            False,
        ),
        ("exclusivity", "Acme grants Beta a Non Exclusive license to use the Software for an initial period.", False),
        (  # owning a mark exclusively is no exclusive dealing
            "exclusivity",
            "Beta shall not use any imitation of the Marks which is likely to dilute Acme's exclusive rights in and "
            "to the Marks.",
            False,
        ),
        (
            "exclusivity",
            "The Corporation appoints the Agents as the exclusive agents of the Corporation to offer the Shares for "
            "sale in the Selling Jurisdictions.",
            True,
        ),
        (
            "most_favored_nation",
            "Prices shall not exceed the lowest price charged to others for the same Product.",
            True,
        ),
    ],
)
def test_clauses_written_in_lists_spans_and_ownership(field, sentence, clause):
    body = FILLER + sentence + " " + FILLER
    assert [f.value for f in contract_clauses.RULES[field](body)] == [clause]


def test_a_definition_that_includes_rather_than_means_leaves_the_clause_unanswered():
    body = (
        '"Change in control" shall include without limitation the sale, assignment or other transfer of more than '
        "fifty percent (50%) of the voting securities of Premier, or Premier being a party to a merger. " + FILLER
    )
    assert contract_clauses.RULES["change_of_control"](body) == []


@pytest.mark.parametrize(
    "sentence",
    [  # a limit or a consent's reasonableness is written "not to", but restrains no one
        "During the Term, the Licensee may keep the Samples for a period not to exceed thirty days, after which the "
        "Licensor may acquire them at cost.",
        "During the Term, Acme may request changes to the Schedule, such approval not to be unreasonably withheld, "
        "and Beta may then develop the revised Deliverables.",
        # an anti-corruption covenant forbids offering, not a business
        "During the term of this Agreement, the Consultant will not offer or pay any bribe to a government official "
        "to obtain business.",
        # that sales are not counted as competing is no restraint
        "Sales of the Garden Products through retail channels shall not be deemed to compete with the Licensed "
        "Products for purposes of the royalty calculation.",
        # selling only with the other party's consent, as with "the prior written consent"
        "During the Term, Beta agrees not to sell the Compound to any third party without Acme's prior written "
        "consent.",
    ],
)
def test_limits_consents_and_anti_bribery_covenants_are_no_non_compete(sentence):
    body = FILLER + sentence + " " + FILLER
    assert contract_clauses.RULES["non_compete"](body) == [Found(False, 0, 0)]


def test_a_restraint_is_read_in_its_own_list_item_beside_a_non_solicit():
    """A non-solicit in another item of the sentence does not unmake the restraint in the first one."""
    sentence = (
        "During the Term, neither party may (a) sell any product that is the same as or similar to the Products, "
        "or (b) solicit any employee of the other party."
    )
    body = FILLER + sentence + " " + FILLER
    found = contract_clauses.RULES["non_compete"](body)
    assert [f.value for f in found] == [True]
    assert cited(body, found[0]) == sentence


@pytest.mark.parametrize(
    ("sentence", "clause"),
    [  # "exclusively" as "only", in a limit or a cause, is no exclusive dealing
        (
            "The Seller's liability under this Agreement is limited exclusively to the amounts stated in Schedule B.",
            False,
        ),
        (
            "The Customer shall pay for any enhancement resulting exclusively from the Customer's own specifications.",
            False,
        ),
        # a right said to be exclusive, and buying from one source only, are
        ("Subject to Section 9, the Reseller's right to sell the Software in the Territory shall be exclusive.", True),
        ("The Distributor shall purchase all of its requirements of the Products solely from the Manufacturer.", True),
    ],
)
def test_exclusivity_said_of_a_right_or_a_source_and_not_of_a_limit(sentence, clause):
    body = FILLER + sentence + " " + FILLER
    assert [f.value for f in contract_clauses.RULES["exclusivity"](body)] == [clause]


@pytest.mark.parametrize(
    ("sentence", "clause"),
    [
        (
            "Any merger or consolidation of the Licensee with another company shall be deemed an assignment of this "
            "Agreement requiring the Licensor's prior written consent.",
            True,
        ),
        ("A merger or reorganization of the Licensee shall not be deemed an assignment of this Agreement.", False),
    ],
)
def test_a_merger_counted_as_an_assignment_is_a_change_of_control(sentence, clause):
    body = FILLER + sentence + " " + FILLER
    assert [f.value for f in contract_clauses.RULES["change_of_control"](body)] == [clause]
