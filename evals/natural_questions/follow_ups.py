"""Follow-up questions.

Follow-ups are conversations of two turns on one thread (`"turns": [first, second]`, `question` being the second):
the second turn refines the first's result set ("which of those ...", "only the Delaware ones", "how many of them
...", "and in 2018?"), and only the second is scored. Its gold is computed by the same helpers over the first
turn's set refined (the documents passing both turns' conditions); the one other shape is a swap, "invoices in
euros" then "and in dollars?", whose gold is the first turn's scope (all invoices) under the new condition. The
item's context holds for both turns, so a follow-up whose first turn lists more than 25 documents carries
`max_hits` 1000 like any big list.
"""

from __future__ import annotations

from evals.natural_questions.labels import (
    DS,
    INV,
    MR_DIY,
    K,
    R,
    company,
    currency,
    flag,
    is_nda,
    num,
    of_type,
    on,
    party,
    total,
    under,
)
from evals.natural_questions.recorders import ask_count, ask_extreme, ask_follow_up, ask_list, ask_sum


def follow_up_questions() -> None:
    """Two turns on one thread, the second refining the first's result set; scored on the second turn."""
    # Contracts: CUAD, Kleister-NDA and the sample contracts.
    ask_follow_up(
        ("Which contracts are under New York law?", "which of those have audit rights?"),
        ask_list,
        K,
        lambda d: under(d, "New York"),
        lambda d: flag(d, "audit_rights"),
    )
    ask_follow_up(
        ("NDAs with a 2 year term", "only the Delaware ones"),
        ask_list,
        K,
        lambda d: is_nda(d) and d.props.get("term_days") == 730,
        lambda d: under(d, "Delaware"),
    )
    ask_follow_up(
        ("license agreements", "how many of those never expire?"),
        ask_count,
        K,
        lambda d: of_type(d, "license"),
        lambda d: flag(d, "perpetual"),
    )
    ask_follow_up(
        ("contracts with a non-compete", "without the ones under California law"),
        ask_list,
        K,
        lambda d: flag(d, "non_compete"),
        lambda d: not under(d, "California"),  # a contract with no governing law label is not under California law
    )
    ask_follow_up(
        ("delaware contracts", "how many of them can be terminated for convenience?"),
        ask_count,
        K,
        lambda d: under(d, "Delaware"),
        lambda d: flag(d, "termination_for_convenience"),
    )
    ask_follow_up(
        ("nike ndas", "which of them started before 2005?"),
        ask_list,
        K,
        lambda d: is_nda(d) and party(d, "Nike"),
        lambda d: bool(d.props.get("effective_date")) and d.props["effective_date"] < "2005",
    )
    ask_follow_up(
        ("NDAs from 2007", "how many of them are under delaware law"),
        ask_count,
        K,
        lambda d: is_nda(d) and on(d, "effective_date", "2007"),
        lambda d: under(d, "Delaware"),
    )
    ask_follow_up(
        ("contracts with Kestrel Analytics", "which ones are governed by delaware law?"),
        ask_list,
        K,
        lambda d: party(d, "Kestrel Analytics"),
        lambda d: under(d, "Delaware"),
    )

    # Receipts: SROIE and the sample receipts.
    ask_follow_up(
        ("mr diy receipts", "and in 2018?"), ask_list, R, lambda d: company(d, MR_DIY), lambda d: on(d, "date", "2018")
    )
    ask_follow_up(
        ("receipts from gardenia", "how many in sept 2017?"),
        ask_count,
        R,
        lambda d: company(d, "Gardenia"),
        lambda d: on(d, "date", "2017-09"),
    )
    ask_follow_up(
        ("sanyu stationery receipts", "what do the november ones add up to?"),
        ask_sum,
        R,
        lambda d: company(d, "Sanyu"),
        lambda d: on(d, "date", "2017-11"),
        "total",
    )
    ask_follow_up(
        ("receipts from december 2017", "just the popular bookstore ones"),
        ask_list,
        R,
        lambda d: on(d, "date", "2017-12"),
        lambda d: company(d, "Popular Book"),
    )
    ask_follow_up(
        ("receipts from 2023", "which of those were over $50?"),  # only the sample's (US dollar) receipts are 2023
        ask_list,
        R,
        lambda d: on(d, "date", "2023"),
        lambda d: (total(d) or 0) > 50,
    )

    # Invoices: invoice2data and the sample invoices.
    ask_follow_up(
        ("invoices in euros", "which of them is the biggest?"),
        ask_extreme,
        INV,
        lambda d: currency(d, "EUR"),
        lambda d: True,
        lambda d: num(d, "amount"),
        high=True,
    )
    ask_follow_up(
        ("how many euro invoices do we have", "and in dollars?"),
        ask_count,
        INV,
        lambda d: currency(d, "EUR"),
        lambda d: currency(d, "USD"),
        swap=True,
    )
    ask_follow_up(
        ("invoices billed to Harbor Point Foods", "how much do the 2021 ones come to?"),
        ask_sum,
        INV,
        lambda d: d.props.get("customer") == "Harbor Point Foods Co.",
        lambda d: on(d, "date", "2021"),
        "amount",
    )
    ask_follow_up(
        ("invoices from 2014", "which ones are in euros?"),
        ask_list,
        INV,
        lambda d: on(d, "date", "2014"),
        lambda d: currency(d, "EUR"),
    )

    # The sample datasheets.
    ask_follow_up(
        ("northwind datasheets", "which of those are resistors?"),
        ask_list,
        DS,
        lambda d: d.props.get("manufacturer", "").startswith("Northwind"),
        lambda d: d.props.get("category") == "resistor",
    )
