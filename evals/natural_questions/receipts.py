"""Receipt questions: SROIE and the sample receipts.

Receipts carry no currency field: SROIE's are Malaysian ringgit, the sample's US dollars. Totals across both are
never asked; "RM" appears only where the shop already restricts the question to SROIE.
"""

from __future__ import annotations

from collections import Counter

from evals.natural_questions.corpus import CORPUS, in_bucket
from evals.natural_questions.labels import MR_DIY, R, company, iso, label, on, total, years_before
from evals.natural_questions.recorders import (
    ask_count,
    ask_extreme,
    ask_grouping,
    ask_list,
    ask_lookup,
    ask_max,
    ask_mean,
    ask_nothing,
    ask_relative,
    ask_sum,
    ask_too_many,
)


def receipt_questions() -> None:
    """SROIE and the sample receipts."""
    ask_count("How many receipts do we have from Mr DIY?", R, lambda d: company(d, MR_DIY))
    ask_count("how many recipts from gardenia", R, lambda d: company(d, "Gardenia"))
    ask_count("no. of receipts in 2017?", R, lambda d: on(d, "date", "2017"))
    ask_count("how many receipts are from march 2018", R, lambda d: on(d, "date", "2018-03"))
    ask_count("How many receipts came to more than 100?", R, lambda d: (total(d) or 0) > 100)
    ask_count(
        "99 speedmart receipts in 2017 - how many?", R, lambda d: company(d, "99 Speed Mart") and on(d, "date", "2017")
    )
    ask_count(
        "how many Popular bookstore receipts were under 10 ringgit",
        R,
        lambda d: company(d, "Popular Book") and (total(d) or 0) < 10,
    )
    ask_relative(
        "count",
        "How many receipts are older than five years?",
        R,
        lambda day: [d for d in in_bucket(R) if d.props.get("date") and d.props["date"] < iso(years_before(day, 5))],
    )

    ask_list("receipts from december 2018", R, lambda d: on(d, "date", "2018-12"))
    ask_list("show me the receipts from 2019", R, lambda d: on(d, "date", "2019"))
    ask_list(
        "Which Sanyu Stationery receipts were over RM 40?", R, lambda d: company(d, "Sanyu") and (total(d) or 0) > 40
    )
    ask_list("mr diy receipts above 100 ringgit", R, lambda d: company(d, MR_DIY) and (total(d) or 0) > 100)
    ask_list("receipts for more than RM 1,000", R, lambda d: (total(d) or 0) > 1000)
    ask_list("gardenia receipts from july 2017", R, lambda d: company(d, "Gardenia") and on(d, "date", "2017-07"))
    ask_list(
        "Popular or Sanyu receipts from Dec 2017",
        R,
        lambda d: company(d, "Popular Book", "Sanyu") and on(d, "date", "2017-12"),
    )
    ask_list("aik huat hardware receipts", R, lambda d: company(d, "Aik Huat Hardware"))
    ask_list("Domino's pizza receipts", R, lambda d: company(d, "Domino"))
    ask_list("receipts from Boston", R, lambda d: "boston" in d.props.get("address", "").lower())
    ask_extreme("biggest receipt?", R, lambda d: True, total, high=True)
    ask_extreme("which Mr DIY receipt was the most expensive", R, lambda d: company(d, MR_DIY), total, high=True)
    ask_extreme("largest gardenia bill", R, lambda d: company(d, "Gardenia"), total, high=True)

    ask_sum("How much did we spend at Mr DIY in total?", R, lambda d: company(d, MR_DIY), "total")
    ask_sum("total spent at Sanyu stationery", R, lambda d: company(d, "Sanyu"), "total")
    ask_sum(
        "how much did we spend at 99 Speed Mart in 2018?",
        R,
        lambda d: company(d, "99 Speed Mart") and on(d, "date", "2018"),
        "total",
    )
    ask_sum("what did the 2019 receipts add up to", R, lambda d: on(d, "date", "2019"), "total")
    ask_sum("sum of all Kedai Papan Yew Chuan receipts", R, lambda d: company(d, "Kedai Papan Yew Chuan"), "total")
    ask_sum("Gin Kee total spend?", R, lambda d: company(d, "Gin Kee"), "total")
    ask_mean("average receipt at mr diy", R, lambda d: company(d, MR_DIY), "total")
    ask_mean("what's the avg gardenia receipt", R, lambda d: company(d, "Gardenia"), "total")
    ask_mean("average total of receipts from december 2017", R, lambda d: on(d, "date", "2017-12"), "total")
    ask_max("how much was our biggest receipt", R, lambda d: True, "total")
    ask_max("smallest Sanyu receipt, how much?", R, lambda d: company(d, "Sanyu"), "total", high=False)
    ask_max("what's the most we spent in one go at popular book co", R, lambda d: company(d, "Popular Book"), "total")

    x51005361907, x00016469612 = [CORPUS["X51005361907"]], [CORPUS["X00016469612"]]
    ask_lookup("What was the total on receipt X51005361907?", R, x51005361907, "153.35", "total")
    address = label("X51005361907", "address")
    ask_lookup("Where is the shop that issued receipt X51005361907 located?", R, x51005361907, address)
    ask_lookup("which shop is receipt X00016469612 from?", R, x00016469612, label("X00016469612", "company"))
    ask_lookup("what did we pay at Sunrise Pharmacy?", R, [CORPUS["sample-receipt-004"]], "49.86", "total")

    receipts = in_bucket(R)
    by_shop = Counter(d.props["company"] for d in receipts)
    ask_grouping(
        "receipts per shop - which shop do we have the most receipts from?",
        R,
        by_shop,
        "GARDENIA BAKERIES (KL) SDN BHD",
        "GARDENIA BAKERIES",
        receipts,
    )
    spend_by_shop: Counter = Counter()
    for doc in receipts:
        spend_by_shop[doc.props["company"]] += total(doc) or 0
    ask_grouping(
        "which shop did we spend the most at?",
        R,
        spend_by_shop,
        "KAISON FURNISHING SDN BHD",
        "KAISON FURNISHING",
        receipts,
    )
    by_year = Counter(d.props["date"][:4] for d in receipts if d.props.get("date"))
    ask_grouping("breakdown of receipts by year: which year has the most?", R, by_year, "2018", "2018", receipts)

    ask_nothing(
        "Which Sanyu Stationery receipts came to more than RM 50?",
        [R],
        {R: lambda d: company(d, "Sanyu") and (total(d) or 0) > 50},
    )
    ask_nothing("starbucks receipts", [R], {R: lambda d: company(d, "Starbucks") or "starbucks" in d.body.lower()})
    ask_nothing("How much did we spend at KFC?", [R], {R: lambda d: company(d, "KFC") or "kfc" in d.body.lower()})
    ask_nothing("mr diy receipts from 2015", [R], {R: lambda d: company(d, MR_DIY) and on(d, "date", "2015")})
    ask_too_many("list all receipts", R, lambda d: True, 50)
    ask_too_many("receipts from 2018", R, lambda d: on(d, "date", "2018"), 100)
