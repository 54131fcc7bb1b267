"""A contract's effective date, expiration date and governing law where the text names them in words rather than
writing a date or a single place: the value a user gets and the sentence they open to check it."""

from __future__ import annotations

import time

import pytest

from retrievers.extraction.found import Found
from retrievers.extraction.rules import contract_facts, contract_terms

RULES = {**contract_facts.RULES, **contract_terms.RULES}
PREAMBLE = "SUPPLY AGREEMENT\n\nThis Supply Agreement is dated as of June 8, 1999 between Acme Inc. and Beta LLC.\n\n"
FILLER = "The parties shall cooperate in good faith in all matters relating to the services described herein. " * 30


def _read(field: str, body: str) -> list[tuple[object, str]]:
    return [(found.value, body[found.start : found.end]) for found in RULES[field](body)]


@pytest.mark.parametrize(
    "sentence",
    [
        "This Agreement shall be effective from the date first above written and shall continue until terminated.",
        "The Term shall commence on the date of this Agreement and shall end on December 31, 2003.",
        '"Effective Date" means the date first written above.',
        "This Agreement shall have an initial term of one (1) year from the date first above written.",
        "This Amendment shall enter into force on the date of its signature by both Parties.",
        "18.1 This Agreement shall become effective on the date and year first above written.",
        "This Agreement takes effect upon the signatures and seals of both Parties in triplicate.",
        "The Agreement shall become effective upon the completion of the execution by both Parties (hereinafter "
        'referred to as the "Effective Date").',
        "17.1 This Agreement shall come into force on the Date of the Agreement, and shall remain in force for an "
        "initial period of two years.",
    ],
    ids=["effective-from", "term-commences", "defined", "term-counted-from", "enters-into-force", "date-and-year",
         "takes-effect-upon-both-signatures", "named-on-execution-by-both", "comes-into-force-on-the-agreements-date"],
)  # fmt: skip
def test_a_contract_taking_effect_on_its_own_date_has_that_effective_date(sentence):
    body = PREAMBLE + FILLER + sentence + " " + FILLER
    ((value, cited),) = _read("effective_date", body)
    assert value == "1999-06-08"
    assert cited == sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first above written.",
        "Each party represents and warrants to the other as of the date hereof that it is duly organised.",
        "The Bylaws of the Company, as in effect on the date hereof, shall apply.",
        "At all times during the period commencing on the date hereof, Beta shall not acquire any shares.",
        "Any notice shall be effective upon the effective date hereof.",
    ],
    ids=["signed-as-of", "represents", "in-effect", "covenant-period", "effective-date-hereof"],
)
def test_other_things_said_of_the_contracts_own_date_give_no_effective_date(sentence):
    assert RULES["effective_date"](PREAMBLE + FILLER + sentence + " " + FILLER) == []


def test_takes_effect_on_its_date_without_a_dated_opening_gives_nothing():
    body = FILLER + "This Agreement shall be effective from the date first above written. " + FILLER
    assert RULES["effective_date"](body) == []


def test_a_commencement_date_is_the_effective_date_but_not_the_agreement_date():
    body = PREAMBLE + 'The services shall start on September 1, 1999 (the "Commencement Date"). ' + FILLER
    assert [value for value, _ in _read("effective_date", body)] == ["1999-09-01"]
    assert [value for value, _ in _read("agreement_date", body)] == ["1999-06-08"]


def test_two_laws_chosen_in_one_sentence_are_both_the_answer():
    sentence = (
        "This Agreement shall be construed in accordance with and governed by the laws of the State of New York, "
        "except Section 25 below, which shall be governed by the laws of the Commonwealth of Massachusetts."
    )
    found = _read("governing_law", FILLER + sentence + " " + FILLER)
    assert sorted(value for value, _ in found) == ["Massachusetts", "New York"]
    assert all(cited == sentence for _, cited in found)


def test_the_laws_thereof_are_those_of_the_place_named_before():
    sentence = (
        "This Agreement is accepted by Company in the State of West Virginia and shall be governed by and "
        "construed in accordance with the laws thereof."
    )
    assert _read("governing_law", FILLER + sentence + " " + FILLER) == [("West Virginia", sentence)]


def test_the_legislation_of_a_place_that_shall_apply_is_a_choice_of_law():
    sentence = "Effective legislation of the Republic of Kazakhstan shall apply to any relations of the Parties."
    assert _read("governing_law", sentence) == [("Republic of Kazakhstan", sentence)]


def test_controlled_by_the_laws_of_is_a_choice_of_law():
    sentence = "This AGREEMENT is controlled by the laws of the State of Texas, and venue shall be in Pecos County."
    assert _read("governing_law", sentence) == [("Texas", sentence)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("This Agreement continues in effect for an initial term of seven (7) years.", "2006-06-08"),
        (
            "This Agreement shall become effective on the date first written above and shall continue in effect for a "
            "period of Three (3) years.",
            "2002-06-08",
        ),  # fmt: skip
        ("The term of this Agreement shall end on the seventh anniversary of the date hereof.", "2006-06-08"),
        (
            'The "Term" shall begin on the date hereof and will continue until the earlier of (i) December 31, 2022, '
            "(ii) the termination of the Studio Lease.",
            "2022-12-31",
        ),  # fmt: skip
        ("This contract shall remain in effect for the five (5) year term from the date signed.", "2004-06-08"),
    ],
    ids=["continues", "becomes-effective", "anniversary-of-date-hereof", "earlier-of", "the-five-year-term"],
)
def test_the_expiration_date_is_read_from_the_term_sentence(sentence, expected):
    body = PREAMBLE + sentence + " " + FILLER
    ((value, cited),) = _read("expiration_date", body)
    assert value == expected
    assert cited == sentence


@pytest.mark.parametrize(
    ("sentences", "expected", "cited"),
    [
        (
            "The commencement date for this contract will be 16th June 2004. The initial term of the contracted "
            "agreement is 5 years from the commencement date.",
            "2009-06-16",
            "The initial term of the contracted agreement is 5 years from the commencement date.",
        ),
        (
            'TERM & TERMINATION. This Agreement is for a term (the "Term") of 12 months from the Effective Date on '
            "June 1st 2020 and expiring May 31st 2021.",
            "2021-05-31",
            'This Agreement is for a term (the "Term") of 12 months from the Effective Date on June 1st 2020 and '
            "expiring May 31st 2021.",
        ),
        (
            "The term of this Agreement for the Hosted Site shall commence upon April 1, 1999 and shall continue for a "
            "period of six (6) months, unless earlier terminated in accordance with provisions hereof.",
            "1999-10-01",
            "The term of this Agreement for the Hosted Site shall commence upon April 1, 1999 and shall continue for a "
            "period of six (6) months, unless earlier terminated in accordance with provisions hereof.",
        ),
        (
            "Term: (a) This Agreement shall have an Initial Term of three (3) years. The Term shall commence on July "
            "23, 2013 and shall expire on July 22, 2016, unless otherwise terminated earlier.",
            "2016-07-22",
            "The Term shall commence on July 23, 2013 and shall expire on July 22, 2016, unless otherwise terminated "
            "earlier.",
        ),
    ],
    ids=["term-of-the-contracted-agreement", "is-for-a-term", "commence-upon", "next-sentence-states-the-end"],
)
def test_the_expiration_date_is_read_from_more_ways_of_writing_the_term(sentences, expected, cited):
    body = PREAMBLE + sentences + " " + FILLER
    assert _read("expiration_date", body) == [(expected, cited)]


@pytest.mark.parametrize(
    "sentences",
    [
        "During the Term of this Agreement, Premier shall be required to purchase a Minimum Annual Order Volume"
        " for the twelve-month period commencing July 1, 2018 and ending June 30, 2019.",
        "This Agreement will be effective as of the date of its execution, and term of the Cooperation will be four "
        "years from the date on which the channel is uploaded.",
    ],
    ids=["during-the-term-a-party-shall", "from-the-date-an-event-happens"],
)
def test_a_period_within_the_term_or_counted_from_an_undated_event_gives_no_expiration(sentences):
    assert RULES["expiration_date"](PREAMBLE + sentences + " " + FILLER) == []


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        ('a. "Contract Period" shall mean that period of time from February 21, 2011 through December 31, 2012.',
         "2012-12-31"),
        ('1.5 "Service Period" means April. 1st 2019 through to March 30, 2020.', "2020-03-30"),
    ],
    ids=["from-through", "dates-through-to"],
)  # fmt: skip
def test_a_term_defined_by_its_first_and_last_days_ends_on_the_last(definition, expected):
    body = PREAMBLE + "1. Definitions. " + definition + " " + FILLER
    ((value, cited),) = _read("expiration_date", body)
    assert value == expected
    assert definition.split('"')[1] in cited and cited in definition


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("TERM OF EXECUTION From January 30, 2012 until July 29, 2012.", "2012-07-29"),
        ("Terms of the project: 12 weeks from February 8, 2018 to May 3, 2018.", "2018-05-03"),
        (
            "The Joint Venture is a fixed term Joint Venture beginning November 27, 2018 and ending November 30th, "
            "2019 or as otherwise provided in this Agreement.",
            "2019-11-30",
        ),  # fmt: skip
    ],
    ids=["from-until", "weeks-from-to", "beginning-and-ending"],
)
def test_a_term_given_as_its_first_and_last_days_ends_on_the_last(sentence, expected):
    assert _read("expiration_date", PREAMBLE + sentence + " " + FILLER) == [(expected, sentence)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The term of this Agreement will commence on the date hereof, and unless earlier terminated, will end "
            "automatically upon the end of Year 3.",
            "2002-06-08",
        ),
        (
            "This agreement shall begin upon the date of its execution by MA and acceptance in writing by Company and "
            "shall remain in effect until the end of the current calendar year.",
            "1999-12-31",
        ),
        (
            "Hydron agrees that this Agreement shall continue for the entire four (4) year term unless earlier "
            "terminated.",
            "2003-06-08",
        ),
    ],
    ids=["end-of-year-n", "end-of-the-current-calendar-year", "the-entire-n-year-term"],
)  # fmt: skip
def test_a_term_running_to_the_end_of_a_year_or_for_its_entire_length_is_counted(sentence, expected):
    assert _read("expiration_date", PREAMBLE + sentence + " " + FILLER) == [(expected, sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "This Agreement shall take effect on December 1st, 2015 and shall expire on November 30, 2016.",
        "This Agreement shall enter into force on December 1, 2015 and shall terminate on November 30, 2016.",
    ],
    ids=["take-effect-then-expire", "enter-into-force-then-terminate"],
)
def test_a_term_sentence_with_its_first_and_last_days_expires_on_the_day_its_end_verb_governs(sentence):
    """The first date of the sentence is the day it starts: a user reading 2015-12-01 as the expiration would
    think the contract ended before it began."""
    assert _read("expiration_date", PREAMBLE + sentence + " " + FILLER) == [("2016-11-30", sentence)]


def test_a_term_of_a_length_ends_the_day_before_the_renewal_the_contract_dates():
    """'Begins January 1, 2000 ... five (5) years' ends on January 1, 2005 as CUAD counts a length, unless the
    contract dates its renewal from that day: then the initial term's last day is December 31, 2004."""
    term = (
        "1.1 The term of this Agreement shall begin on January 1, 2000 and continue for an initial period of five (5) "
        "years unless earlier terminated in accordance with Section 7 hereof."
    )
    renewal = (
        "8.1 The Company may renew this Agreement on the same terms and conditions for one (1) additional five year "
        "period that shall begin on January 1, 2005 and end on December 31, 2009."
    )
    assert _read("expiration_date", PREAMBLE + term + " " + FILLER) == [("2005-01-01", term)]
    assert _read("expiration_date", PREAMBLE + term + " " + FILLER + renewal) == [("2004-12-31", term)]


def test_a_span_of_dates_that_is_not_said_of_a_term_gives_no_expiration():
    sentence = (
        "Sponsor agrees that during the period beginning October 1, 2009 and ending March 31, 2010, Sponsor shall "
        "not enable another program sponsorship."
    )
    assert RULES["expiration_date"](PREAMBLE + sentence + " " + FILLER) == []


def test_a_full_stop_typed_between_the_day_and_the_year_does_not_cut_the_term_sentence():
    sentence = "This Agreement shall be in effect until March 18. 2021, unless sooner terminated by either party."
    assert _read("expiration_date", PREAMBLE + sentence + " " + FILLER) == [("2021-03-18", sentence)]


def test_a_defined_expiration_date_is_the_expiration_date():
    body = (
        PREAMBLE + "This Agreement shall be effective as of the Effective Date and shall expire on the Expiration "
        "Date set forth below.\n\nExpiration Date: August 31, 2006\n\n" + FILLER
    )
    ((value, cited),) = _read("expiration_date", body)
    assert (value, cited) == ("2006-08-31", "Expiration Date: August 31, 2006")


def test_a_cover_sheets_termination_date_is_the_expiration_date_and_a_defined_one_without_a_date_is_none():
    cover = "Effective Date: January 1, 2019\nTermination Date: December 31, 2023\n\n"
    ((value, cited),) = _read("expiration_date", PREAMBLE + cover + FILLER)
    assert value == "2023-12-31" and "Termination Date: December 31, 2023" in cited
    defined = '"Termination Date" means the date on which this Agreement is terminated. It may end earlier. '
    assert _read("expiration_date", PREAMBLE + defined + FILLER) == []


def test_an_anniversary_counts_from_the_date_it_names_not_a_later_effective_date():
    body = (
        'This Agreement is dated as of November 28, 2001 and shall be effective December 1, 2001 (the "Effective '
        'Date"). The term of this Agreement shall end on the seventh anniversary of the date hereof. ' + FILLER
    )
    assert [value for value, _ in _read("expiration_date", body)] == ["2008-11-28"]


@pytest.mark.parametrize(
    "sentence",
    [
        'This Agreement shall be effective as of that date (the "Effective Date") the Site becomes fully operational '
        "and shall continue for a period of one (1) year from the Effective Date.",
        "Licensee's term of exclusivity shall expire on October 29, 2005.",
        "The Company will not, at any time prior to the expiration of three years after the date of this Agreement, "
        'be an "investment company," as such term is defined in the Investment Company Act.',
        "In the event this Agreement is terminated, the Party in default shall not compete for a period of six (6) "
        "months from the effective date of termination.",
    ],
    ids=["undated-effective-date", "exclusivity", "such-term-is-defined", "after-termination"],
)
def test_lengths_and_dates_that_are_not_the_contracts_term_give_no_expiration(sentence):
    assert RULES["expiration_date"](PREAMBLE + sentence + " " + FILLER) == []


TERM_FIELDS = ("effective_date", "governing_law", "expiration_date", "perpetual")


@pytest.mark.parametrize(
    ("fields", "body"),
    [
        (TERM_FIELDS, ""),
        (TERM_FIELDS, "\x00" * 10_000),
        (TERM_FIELDS, "effective as of the date hereof " * 300_000),
        (TERM_FIELDS, "This Agreement is dated as of May 1, 2001. "
         + "shall be effective from the date first above written " * 150_000),
        (TERM_FIELDS, "governed by the laws thereof in the State of " * 200_000),
        (TERM_FIELDS, "The term of this Agreement shall continue until the earlier of (i) " * 100_000),
        (TERM_FIELDS, "x" * 10_000_000),
        (("agreement_date",), "day of " * 700_000),
        (("agreement_date",), "this first (1st) day of " * 200_000),
        (("agreement_date",), "Date: 1/2/03 /s/ " * 300_000),
        (("agreement_date",), "1-2-" * 2_000_000),
        (("agreement_date",), "This Agreement is dated " * 300_000),
        (("agreement_date",), "/s/ 1/9/02 " + "- _ Name " * 500_000 + "Dates"),
    ],
    ids=["empty", "nul", "effective-hereof", "dated-effective", "laws-thereof", "earlier-of", "10MB-line",
         "5MB-day-of", "ordinal-days", "signature-dates", "dashes", "this-agreement-is-dated", "caption-row"],
)  # fmt: skip
def test_hostile_text_gives_a_list_quickly(fields, body):
    began = time.process_time()  # CPU seconds: a loaded machine does not stretch them
    for field in fields:
        found = RULES[field](body)
        assert isinstance(found, list)
        assert all(isinstance(f, Found) and 0 <= f.start <= f.end <= len(body) for f in found)
    assert time.process_time() - began < 10, "linear in the text, not quadratic"


SIGNATURES = (
    "IN WITNESS WHEREOF, the parties have executed this Agreement.\n\n"
    "ACME INC.                        BETA LLC\n\nBy: /s/ Jane Roe                 By: /s/ John Doe\n"
    "Name: Jane Roe                   Name: John Doe\nTitle: President                 Title: CEO\n"
)


@pytest.mark.parametrize(
    ("sentence", "expected", "written"),
    [
        ("This Manufacturing Agreement is made this first (1st) day of July, 2017 between Acme and Beta.", "2017-07-01",
         "first (1st) day of July, 2017"),
        ("This Development Agreement is entered into on April 15 , 2010 by and between Acme and Beta.", "2010-04-15",
         "April 15 , 2010"),
        ("THIS AGREEMENT, dated for reference March 13, 1996, is made between Acme and Beta.", "1996-03-13",
         "March 13, 1996"),
        ("This Agreement is made the 20 March day of 1998 between Acme and Beta.", "1998-03-20",
         "20 March day of 1998"),
        ("This Agreement is made on the 15t h day of January 2018 between Acme and Beta.", "2018-01-15",
         "15t h day of January 2018"),
        ("This Agreement shall be effective as of May 1, 2020 and is made and entered into this 10th day of January, "
         "2020 between Acme and Beta.", "2020-01-10", "January, 2020"),
    ],
    ids=["ordinal-words", "space-before-comma", "dated-for-reference", "day-month-day-of-year", "ocr-split",
         "dated-not-effective"],
)  # fmt: skip
def test_the_opening_dates_the_agreement(sentence, expected, written):
    body = "SUPPLY AGREEMENT\n\n" + sentence + "\n\n" + FILLER
    ((value, cited),) = _read("agreement_date", body)
    assert value == expected
    assert cited in sentence and written in cited


@pytest.mark.parametrize(
    "sentence",
    [
        "Amendment No. 1 to the Global Maintenance Agreement ref. DS/C-3957/14 Issue 7 dated March 9, 2015",
        "ELEPHANT TALK has confirmed by letter dated November 30, 2007 that it agrees to the proposal.",
        "WHEREAS, Acme Inc. and Beta Inc. have entered into a Separation and Distribution Agreement, dated as of "
        "July 29, 2019, pursuant to which Beta is separated.",
        'This Schedule is made to that Software License Agreement, by and between Acme, Inc. ("Supplier") and Bank '
        "of America, N. A, dated November 5, 2010.",
        "THIS AGREEMENT is dated this ____ day of ________, 20__ between Acme Inc. and Beta LLC.",
        "The undersigned hereby agree that the Schedule 13G/A with respect to the shares of Class A Common Stock, "
        "$0.001 par value per share, of The RMR Group Inc., dated as of December 31, 2019, is filed on behalf of each.",
    ],
    ids=["other-agreement-ref", "letter-dated", "named-agreement-dated", "to-that-agreement", "blank", "sec-filing"],
)
def test_a_date_of_another_document_or_a_blank_dates_nothing(sentence):
    assert RULES["agreement_date"]("SCHEDULE\n\n" + sentence + "\n\n" + FILLER) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "This Network Build and Maintenance Agreement is entered into as of the 31 day of July, 2019 by and between "
        "Acme and Beta.",
        "14.6 This Agreement is dated April 29, 2010.",
        "IN WITNESS WHEREOF, the duly authorized representative of each Party has signed this Contract in Baoding, "
        "People's Republic of China on November 8, 2002.",
    ],
    ids=["after-a-long-contents", "closing-clause", "signed-in-a-place"],
)
def test_a_sentence_about_the_agreements_own_making_dates_it_wherever_it_stands(sentence):
    body = "TABLE OF CONTENTS\n\n" + FILLER * 3 + sentence + "\n\n" + FILLER
    ((value, cited),) = _read("agreement_date", body)
    assert value in {"2019-07-31", "2010-04-29", "2002-11-08"}
    assert cited == sentence


def test_a_date_later_in_the_text_of_another_agreement_is_not_this_ones():
    body = FILLER * 3 + "This Agreement is entered into pursuant to the Merger Agreement dated as of May 5, 2009. "
    assert RULES["agreement_date"](body) == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("EXHIBIT 10.43 Dated 29/3/18", "2018-03-29"),
        ("Effective Date:  11/4/10", "2010-11-04"),
        ("03/01/05", "2005-03-01"),
    ],
    ids=["day-first", "two-digit-year", "letter-line"],
)
def test_a_date_in_figures_in_the_opening_dates_the_agreement(line, expected):
    body = line + "\n\nThis agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER
    assert _read("agreement_date", body) == [(expected, line)]


def test_a_line_near_the_top_ending_in_a_date_after_a_place_dates_the_agreement():
    line = "Date Bogota D.C. January 30, 2012"
    body = "EXHIBIT 10.6\n\n" + line + "\n\nThis agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER
    ((value, cited),) = _read("agreement_date", body)
    assert value == "2012-01-30" and cited in line


def test_a_place_without_label_or_comma_before_a_date_dates_nothing():
    line = "Astana                                         January 31, 2000"
    body = "EXHIBIT 10.6\n\n" + line + "\n\nThis agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER
    assert RULES["agreement_date"](body) == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            'THIS STRATEGIC ALLIANCE AGREEMENT (this "Agreement") is made as of 31 December,'
            + " " * 43 + "---------" + " " * 30 + "1996, between NORTHERN TELECOM LIMITED and Beta LLC.",
            "1996-12-31",
        ),
        (
            'This ENDORSEMENT AGREEMENT (the "Agreement") is made this 1st day of' + " " * 64
            + "--- November, 2003 by and between Bruce Jenner and Beta LLC.",
            "2003-11-01",
        ),
    ],
    ids=["between-month-and-year", "between-day-and-month"],
)  # fmt: skip
def test_a_date_split_by_a_flattened_underline_dates_the_agreement(sentence, expected):
    body = "SUPPLY AGREEMENT\n\n" + sentence + "\n\n" + FILLER
    assert [value for value, _ in _read("agreement_date", body)] == [expected]


def test_an_ambiguous_date_in_figures_is_read_day_first_where_the_document_writes_so():
    body = "Dated: 03/04/11\n\nThis agreement is made between Acme and Beta.\n\n" + FILLER + "Invoices of 13/07/05."
    assert [value for value, _ in _read("agreement_date", body)] == ["2011-04-03"]


def test_signatures_dated_alike_date_an_agreement_whose_opening_does_not():
    body = "This agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER + SIGNATURES
    body += "Date: 24 OCT 2011                Date: 24 OCT 2011\n"
    ((value, cited),) = _read("agreement_date", body)
    assert (value, cited) == ("2011-10-24", "Date: 24 OCT 2011                Date: 24 OCT 2011")


def test_signatures_dated_differently_date_the_agreement_by_the_last_of_them():
    dates = "Date: 13/07/05                   Date: 18/07/05\n"
    body = "This agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER + SIGNATURES + dates
    assert _read("agreement_date", body) == [("2005-07-18", dates.strip())]


def test_the_place_and_date_of_signing_above_the_signatures_date_the_agreement():
    line = "Hamburg, November 19t h, 2012"
    body = (
        "This agreement is made between Acme Inc. and Beta LLC. It may be executed in counterparts by original "
        "signature.\n\n" + line + "\n\n  /s/ Thomas Kassberg   /s/ R. Stephan\n\nACME INC.   BETA LLC\n"
    )
    assert _read("agreement_date", body) == [("2012-11-19", line)]


@pytest.mark.parametrize(
    ("block", "expected", "line"),
    [
        (
            "MMI\n\n\\s\\ John Dick                          General Manager - -----------------------           "
            "19 Jan. 1998\n\nDRAGON SYSTEMS, INC.\n\n\\s\\ Janet M. Baker,                         President - "
            "----------------------           12 Jan. 1998\n",
            "1998-01-19",
            "19 Jan. 1998",
        ),
        (
            "Party A: Didi Chuxing Technology Co., Ltd. /s/ Didi Chuxing Technology Co., Ltd. [signature authenticated "
            "by third party document depository on December 17, 2018] Party B: Hunan Ruixi Financial Leasing Co., Ltd."
            "\n",
            "2018-12-17",
            "December 17, 2018",
        ),
    ],
    ids=["ending-each-signatures-line", "signature-made-on"],
)
def test_a_date_on_a_signatures_line_or_said_to_be_its_day_dates_the_agreement(block, expected, line):
    body = "This agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER + "IN WITNESS WHEREOF.\n\n" + block
    ((value, cited),) = _read("agreement_date", body)
    assert value == expected
    assert line in cited and cited in body


@pytest.mark.parametrize(
    ("block", "expected", "line"),
    [
        (
            "/s/ Patrick C. Barry                        /s/ Maura Lynch Gray\n"
            "Patrick C. Barry         1/9/02                  Maura Lynch Gray        1/14/02 "
            "-------------------------------                  ------------------------------- "
            "Name (type or print)      Date                   Name (type or print)       Date\n",
            "2002-01-14",
            "1/14/02",
        ),
        (
            "Acme Inc.           JOHN CECIL     Signature           John Cecil     Name           Chairman & CEO     "
            "Title           Markham, ON 24 OCT 2011     Place Date\n",
            "2011-10-24",
            "24 OCT 2011",
        ),
        ("/s/ Geno Auriemma\n\n     5/17/12    GENO AURIEMMA\n\n     Date                   BETA BANK\n", "2012-05-17",
         "5/17/12"),
        (
            "03/24/06                           03/24/06 ______________________________     "
            "_____________________________ Date                               Date\n\n"
            "/s/  Heim  Brecht                  /s/  Stefan  Meyes ______________________________ Signature\n",
            "2006-03-24",
            "03/24/06",
        ),
    ],
    ids=["caption-row-after-lines", "place-date-captions", "name-between", "date-row-above-the-signatures"],
)  # fmt: skip
def test_a_date_captioned_in_the_row_under_a_signature_dates_the_agreement(block, expected, line):
    body = "This agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER + "IN WITNESS WHEREOF.\n\n" + block
    ((value, cited),) = _read("agreement_date", body)
    assert value == expected
    assert line in cited and cited in body


@pytest.mark.parametrize(
    "block",
    [
        "ADDENDUM Effective Date: March 21, 2014 (closing date)     Franchisor Name: HOMEWOOD SUITES LLC\n",
        "Version: 01     Date: 10/09/2010     Reviewed by:     Jose David Roldan\n",
        "The term ends on March 3, 2011 Termination Date and Beta shall sign. /s/ John Doe\n",
    ],
    ids=["effective-date-over-a-name", "reviewed-by", "another-dates-name"],
)
def test_a_date_labelled_otherwise_near_a_name_or_signature_dates_nothing(block):
    body = "This agreement is made between Acme Inc. and Beta LLC.\n\n" + FILLER * 2 + block + FILLER
    assert RULES["agreement_date"](body) == []


@pytest.mark.parametrize(
    ("opening", "dates"),
    [
        (
            "This Agreement is effective as of the last date provided for on the signature page and is entered into "
            "by and between Acme Corporation and Beta LLC.",
            "Date: 13/07/05                   Date: 18/07/05\n",
        ),
        (
            'This Agreement is entered into as of the date last written below ("the Effective Date") by Acme '
            "and Beta LLC.",
            "Date: 13/07/05                   Date: 18/07/05\n",
        ),
        (
            'This Agreement is entered into and effective as of the date first written above ("Effective Date") by '
            "and among Acme Corporation and Beta LLC.",
            "Date: 18/07/05                   Date: 18/07/05\n",
        ),
    ],
    ids=["effective-as-of-last-signature", "named-effective-date", "only-signatures-date-it"],
)
def test_a_contract_taking_effect_on_the_date_of_its_signatures_has_that_effective_date(opening, dates):
    body = opening + "\n\n" + FILLER + SIGNATURES + dates
    ((value, cited),) = _read("effective_date", body)
    assert (value, cited) == ("2005-07-18", opening)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ('This Development Agreement is entered into on April 15, 2010 ("EffectiveDate") by Acme', "2010-04-15"),
        (
            "This Agreement, made and entered into this 2nd day of September 1998, hereinafter called the Effective "
            "Date, between Acme Corporation and Beta LLC.",
            "1998-09-02",
        ),
        ('(xxix) "EFFECTIVE DATE" - January 21st, 2002', "2002-01-21"),
        (
            "The Existing Agreement shall terminate and be replaced by this Agreement, with effect from 25 September "
            '2018 (the "Effective Date").',
            "2018-09-25",
        ),
    ],
    ids=["no-space", "hereinafter-called", "definitions-list-dash", "replacing-another"],
)
def test_a_date_the_text_names_the_effective_date_is_the_effective_date(sentence, expected):
    body = PREAMBLE + sentence + "\n\n" + FILLER
    ((value, cited),) = _read("effective_date", body)
    assert value == expected and sentence.removeprefix("(xxix) ") in cited


def test_this_contract_shall_be_effective_as_of_a_date_late_in_the_text_is_the_effective_date():
    sentence = (
        "This contract shall be effective as of November 1, 2002, and shall remain in force until October 31, 2012."
    )
    body = PREAMBLE + FILLER * 2 + sentence + "\n\n" + FILLER
    ((value, cited),) = _read("effective_date", body)
    assert value == "2002-11-01" and cited in sentence


def test_an_effective_date_defined_as_a_time_on_a_day_is_that_day():
    body = PREAMBLE + '"EFFECTIVE DATE" means 12:01 a.m. Eastern Standard Time on March 3, 2003.\n\n' + FILLER
    ((value, cited),) = _read("effective_date", body)
    assert value == "2003-03-03" and "March 3, 2003" in cited


def test_this_agreement_effective_on_the_day_of_a_date_after_the_opening_is_the_effective_date():
    sentence = "3.1.1 This Agreement is effective on the day of May 1, 2013 and the term is two years."
    body = PREAMBLE + FILLER * 2 + sentence + " " + FILLER
    assert _read("effective_date", body) == [("2013-05-01", sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "If the term hereof extends beyond Licensee's fiscal year beginning April 1, 2003, the advance shall increase.",
        'Under the term of this Agreement, "Option Starting Date" means February 1, 2020.',
    ],
    ids=["fiscal-year", "option"],
)
def test_the_start_of_another_span_of_time_is_no_effective_date(sentence):
    assert RULES["effective_date"](PREAMBLE + FILLER + sentence + " " + FILLER) == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("TERM OF EXECUTION From January 30, 2012 until July 29, 2012", "2012-01-30"),
        ("The Cooperation Term of the parties shall be two years from May 1, 2013 to April 30, 2015.", "2013-05-01"),
    ],
    ids=["heading", "sentence"],
)
def test_a_term_given_as_the_span_from_one_date_to_another_takes_effect_on_the_first(sentence, expected):
    ((value, cited),) = _read("effective_date", PREAMBLE + FILLER + sentence + "\n\n" + FILLER)
    assert value == expected and cited in sentence


def test_a_span_of_another_period_within_the_term_is_no_effective_date():
    sentence = "During the term, fees for the year from January 1, 2013 to December 31, 2013 are due monthly."
    assert RULES["effective_date"](PREAMBLE + FILLER + sentence + " " + FILLER) == []


def test_a_date_followed_by_the_next_headings_effective_date_is_not_it():
    terms = "General Terms\nTrade Date: 27 April 2006\nEffective Date 01 April 2006\nTermination Date: 1 April 2009\n"
    ((value, cited),) = _read("effective_date", PREAMBLE + terms)
    assert value == "2006-04-01" and "Effective Date 01 April 2006" in cited
