"""Invoice questions: invoice2data and the sample invoices.

Duplicates are separate documents: the sample corpus's sample-invoice-008 restates sample-invoice-003 (same invoice
number) and both are indexed, so both count in totals over US-dollar or Harbor Point invoices.
"""

from __future__ import annotations

from evals.natural_questions.corpus import CORPUS, in_bucket
from evals.natural_questions.labels import INV, currency, iso, num, on, years_before
from evals.natural_questions.recorders import (
    ITEMS,
    Item,
    ask_count,
    ask_extreme,
    ask_list,
    ask_lookup,
    ask_mean,
    ask_nothing,
    ask_relative,
    ask_sum,
    matching,
)


def invoice_questions() -> None:
    """invoice2data and the sample invoices."""
    ask_count("how many invoices do we have", INV, lambda d: True)
    ask_count("How many invoices are in euros?", INV, lambda d: currency(d, "EUR"))
    ask_count("number of invoices from 2014", INV, lambda d: on(d, "date", "2014"))
    ask_count("how many bills were in US dollars or pounds?", INV, lambda d: currency(d, "USD", "GBP"))

    ask_list("invoices in Indian rupees", INV, lambda d: currency(d, "INR"))
    ask_list("Which invoices are in euros or pounds?", INV, lambda d: currency(d, "EUR", "GBP"))
    ask_list("any invoices in £?", INV, lambda d: currency(d, "GBP"))
    ask_list("bills from coolblue", INV, lambda d: "coolblue" in d.props.get("issuer", "").lower())
    ask_list(
        "which invoices went to Harbor Point Foods?", INV, lambda d: d.props.get("customer") == "Harbor Point Foods Co."
    )
    ask_list("invoices dated march 2014", INV, lambda d: on(d, "date", "2014-03"))
    ask_list("$ invoices over 5000", INV, lambda d: currency(d, "USD") and (num(d, "amount") or 0) > 5000)
    ask_list(
        "invoices from Kestrel or Silverleaf",
        INV,
        lambda d: d.props.get("issuer", "").startswith(("Kestrel", "Silverleaf")),
    )
    ask_extreme(
        "which euro invoice is the largest?", INV, lambda d: currency(d, "EUR"), lambda d: num(d, "amount"), high=True
    )
    ask_extreme("cheapest dollar invoice", INV, lambda d: currency(d, "USD"), lambda d: num(d, "amount"), high=False)

    ask_sum("What do the dollar invoices add up to?", INV, lambda d: currency(d, "USD"), "amount")
    ask_sum("How much did we pay in Indian rupees in total?", INV, lambda d: currency(d, "INR"), "amount")
    ask_sum("total of the € invoices", INV, lambda d: currency(d, "EUR"), "amount")
    ask_sum(
        "How much was Harbor Point Foods billed altogether?",
        INV,
        lambda d: d.props.get("customer") == "Harbor Point Foods Co.",
        "amount",
    )
    ask_mean("average invoice amount in euros", INV, lambda d: currency(d, "EUR"), "amount")
    ask_mean("avg rupee invoice?", INV, lambda d: currency(d, "INR"), "amount")
    azure_lines = [row["subtotal"] for row in CORPUS["AzureInterior"].items if "subtotal" in row]
    azure_total = {"value": round(sum(azure_lines), 2)}
    ITEMS.append(Item("sum", "add up the line items on the Azure Interior bill", azure_total, [INV], {"invoices"}))

    ask_lookup(
        "What's the invoice number on the bill from Nimbus Hosting?",
        INV,
        [CORPUS["sample-invoice-005"]],
        "NH-000512",
        "invoice_number",
    )
    ask_lookup("what currency is the orlen invoice in", INV, [CORPUS["Orlen"]], "PLN", "currency")
    ask_lookup("how much was the AWS invoice", INV, [CORPUS["AmazonWebServices"]], "4.11", "amount")
    ask_lookup("when is KA-INV-10432 due?", INV, [CORPUS["sample-invoice-002"]], "2022-08-14", "date_due")
    ask_lookup("VAT number on the Free fibre invoice?", INV, [CORPUS["free_fiber"]], "FR60421938861", "vat")
    tp_88213 = matching(INV, lambda d: d.props.get("invoice_number") == "TP-88213")
    ask_lookup("who sent invoice TP-88213", INV, tp_88213, "Tamarack Packaging Inc.", "issuer")

    ask_nothing("invoices paid in swiss francs", [INV], {INV: lambda d: currency(d, "CHF")})
    ask_relative(
        "list",
        "any invoices from the last 12 months?",
        INV,
        lambda day: [d for d in in_bucket(INV) if d.props.get("date", "") >= iso(years_before(day, 1))],
    )
    if not ITEMS[-1].expected["doc_ids"]:  # nothing in the window: the honest answer is a no_low clarification
        ITEMS[-1].kind, ITEMS[-1].expected = "clarify", {"clarify": "no_low"}
