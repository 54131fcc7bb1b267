"""Contract questions: CUAD, Kleister-NDA and the sample contracts (how their labels are read: `labels`)."""

from __future__ import annotations

from collections import Counter

from evals.natural_questions.corpus import CORPUS, in_bucket
from evals.natural_questions.labels import (
    K,
    flag,
    is_nda,
    iso,
    label,
    laws,
    notice,
    of_type,
    on,
    party,
    renewal,
    under,
    years_before,
)
from evals.natural_questions.recorders import (
    ask_count,
    ask_extreme,
    ask_grouping,
    ask_label_mean,
    ask_list,
    ask_lookup,
    ask_max,
    ask_mean,
    ask_nothing,
    ask_relative,
    ask_too_many,
    expect,
    matching,
)


def contract_questions() -> None:
    """CUAD, Kleister-NDA and the sample contracts."""
    ask_count("how many NDAs are there?", K, is_nda)
    ask_count("How many NDAs are under New York law?", K, lambda d: is_nda(d) and under(d, "New York"))
    ask_count("number of contracts goverened by California law", K, lambda d: under(d, "California"))
    ask_count("how many agreemnts are under delaware law", K, lambda d: under(d, "Delaware"))
    ask_count("How many contracts have a non-compete?", K, lambda d: flag(d, "non_compete"))
    ask_count(
        "how many contracts can be terminated for convenience", K, lambda d: flag(d, "termination_for_convenience")
    )
    ask_count("how many contracts renew for a year or longer?", K, lambda d: renewal(d, lambda v: v >= 365))
    ask_count(
        "contracts needing at least 90 days notice to stop renewal - how many?",
        K,
        lambda d: notice(d, lambda v: v >= 90),
    )
    ask_count("how many 2-year NDAs do we have", K, lambda d: is_nda(d) and d.props.get("term_days") == 730)
    ask_count(
        "NDAs lasting a year or longer, how many?", K, lambda d: is_nda(d) and (d.props.get("term_days") or 0) >= 365
    )
    ask_count("How many license agreements are there?", K, lambda d: of_type(d, "license"))
    ask_count("how many distribution agreements do we have", K, lambda d: of_type(d, "distribution"))
    ask_count(
        "contracts with a liability cap but no audit rights: how many?",
        K,
        lambda d: flag(d, "cap_on_liability") and flag(d, "audit_rights", False),
    )
    ask_count(
        "How many contracts don't have an anti-assignment clause?", K, lambda d: flag(d, "anti_assignment", False)
    )
    ask_count("how many contracts never expire", K, lambda d: flag(d, "perpetual"))
    ask_count("How many NDAs took effect in 2007?", K, lambda d: is_nda(d) and on(d, "effective_date", "2007"))
    ask_count("how many contracts expire in 2020", K, lambda d: on(d, "expiration_date", "2020"))
    ask_count("how many contracts have we got with Kestrel Analytics?", K, lambda d: party(d, "Kestrel Analytics"))
    ask_count("contracts under english law, how many", K, lambda d: under(d, "England"))
    ask_count("How many contracts have a most favoured nation clause?", K, lambda d: flag(d, "most_favored_nation"))

    ask_list("show me the NDAs we signed with Nike", K, lambda d: is_nda(d) and party(d, "Nike"), expect_size=7)
    ask_list("contracts with microsoft", K, lambda d: party(d, "Microsoft"), expect_size=4)
    ask_list("any agreements with Bank of America?", K, lambda d: party(d, "Bank of America"), expect_size=5)
    ask_list("Intel NDAs", K, lambda d: is_nda(d) and party(d, "Intel"), expect_size=3)
    ask_list("NDAs under Delaware law", K, lambda d: is_nda(d) and under(d, "Delaware"))
    ask_list("which contracts have a 30 day notice period?", K, lambda d: notice(d, lambda v: v == 30))
    ask_list(
        "which delaware contracts have audit rights", K, lambda d: under(d, "Delaware") and flag(d, "audit_rights")
    )
    ask_list("contracts with a notice period under 30 days", K, lambda d: notice(d, lambda v: v < 30))
    ask_list("NDAs that last less than a year", K, lambda d: is_nda(d) and (d.props.get("term_days") or 10**9) < 365)
    ask_list(
        "source code escrow contracts under NY law",
        K,
        lambda d: flag(d, "source_code_escrow") and under(d, "New York"),
    )
    ask_list(
        "distribution agreements without exclusivity",
        K,
        lambda d: of_type(d, "distribution") and flag(d, "exclusivity", False),
    )
    ask_list(
        "hosting agreements governed by California or New York law",
        K,
        lambda d: of_type(d, "hosting") and under(d, "California", "New York"),
    )
    ask_list("supply agreements signed in 2019", K, lambda d: of_type(d, "supply") and on(d, "agreement_date", "2019"))
    ask_list("which contracts expire in 2029?", K, lambda d: on(d, "expiration_date", "2029"))
    ask_list("Contracts under Israeli law", K, lambda d: under(d, "Israel"))
    ask_list("which contracts are governed by dutch law", K, lambda d: under(d, "Netherlands"))
    ask_list("license agreements that never expire", K, lambda d: of_type(d, "license") and flag(d, "perpetual"))
    ask_list("franchise agreemnts under texas law", K, lambda d: of_type(d, "franchise") and under(d, "Texas"))
    ask_list(
        "contracts that auto-renew for a year or more and need 90 days notice",
        K,
        lambda d: renewal(d, lambda v: v >= 365) and notice(d, lambda v: v == 90),
    )
    ask_list(
        "consulting agreements w/o a non-compete",
        K,
        lambda d: of_type(d, "consulting") and flag(d, "non_compete", False),
    )
    ask_list(
        "joint venture agreements with a change of control clause",
        K,
        lambda d: of_type(d, "joint venture") and flag(d, "change_of_control"),
    )
    ask_extreme("what's our longest NDA?", K, is_nda, lambda d: d.props.get("term_days"), high=True)
    ask_extreme(
        "oldest NDA we have",
        K,
        lambda d: is_nda(d) and bool(d.props.get("effective_date")),
        lambda d: d.props["effective_date"],
        high=False,
    )
    ask_extreme(
        "most recently signed contract",
        K,
        lambda d: bool(d.props.get("agreement_date")),
        lambda d: d.props["agreement_date"],
        high=True,
    )
    ask_relative(
        "list",
        "Which contracts expire in the next two years?",
        K,
        lambda day: [
            d for d in in_bucket(K) if iso(day) < d.props.get("expiration_date", "") <= iso(years_before(day, -2))
        ],
    )

    ask_mean("what's the average NDA term in days?", K, lambda d: is_nda(d), "term_days")
    ask_label_mean(
        "avg notice period (days) for delaware law contracts", K, lambda d: under(d, "Delaware"), "notice_period_days"
    )
    ask_max("longest NDA term, in days?", K, is_nda, "term_days")
    ask_max("shortest NDA term in days", K, is_nda, "term_days", high=False)

    bank_of_america = [d for d in matching(K, lambda d: party(d, "Bank of America")) if laws(d)]
    ask_lookup(
        "Which state's law applies to our agreement with Bank of America?",
        K,
        bank_of_america,  # five contracts name Bank of America; one of them (cuad_081) names a governing law
        "North Carolina",
        "governing_law",
    )
    nike = matching(K, lambda d: party(d, "Nike"))
    ask_lookup("what state law covers the nike NDAs", K, nike, "Oregon", "governing_law")
    ask_lookup("what kind of contract is cuad_042?", K, [CORPUS["cuad_042"]], label("cuad_042", "contract_type"))
    nimbus = [CORPUS["sample-contract-010"]]
    ask_lookup("effective date of the Nimbus hosting agreement?", K, nimbus, "2023-06-01", "effective_date")
    ask_lookup(
        "who's the other party on sample-contract-007 besides Kestrel?",
        K,
        [CORPUS["sample-contract-007"]],
        "Alder & Finch",
        "parties",
    )
    contracts = in_bucket(K)
    # Exact labels: a compound label ("Delaware, Illinois") would add one to a state, far from closing the gap.
    by_law = Counter(law for d in contracts for law in laws(d))
    (_, first), (_, second) = by_law.most_common(2)
    expect(first - second > 20, f"the governing-law lead is only {first - second}")
    ask_grouping("contracts by governing law - which law comes up most?", K, by_law, "New York", "New York", contracts)
    ndas = [d for d in contracts if is_nda(d)]
    ndas_by_year = Counter(d.props["effective_date"][:4] for d in ndas if d.props.get("effective_date"))
    ask_grouping("NDAs per year - which year did the most of them start?", K, ndas_by_year, "2007", "2007", ndas)

    ask_nothing("contracts with a notice period over 2 years", [K], {K: lambda d: notice(d, lambda v: v > 730)})
    ask_nothing("which leases expire in 2025?", [K], {K: lambda d: "lease" in d.props.get("contract_type", "").lower()})
    ask_nothing("NDAs governed by Alaska law", [K], {K: lambda d: is_nda(d) and under(d, "Alaska")})
    ask_too_many("contracts with audit rights", K, lambda d: flag(d, "audit_rights"), 25)
    ask_too_many("all our NDAs", K, is_nda, 100)
    ask_too_many("everything under new york law", K, lambda d: under(d, "New York"), 50)
