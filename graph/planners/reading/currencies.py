"""Currencies: a currency named ("US dollars", "€", "rupees") as a condition on the bucket's currency field; over a
bucket whose amounts carry no currency field, only what the amounts are in, and taken so only when that can be
true: a figure "in yen" over amounts in ringgit would be a wrong answer that looks like one."""

from __future__ import annotations

from english.currencies import CurrencyMention, currency_mentions, currency_words
from graph.decomposition import Unmapped
from graph.planners.reading.claims import Claims, Found, equal_or_in, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords

CURRENCY_SHARE = 0.05
"""Share of a bucket's documents whose text must write a currency before amounts recorded without one are taken to
be in it: SROIE's receipts write "RM" on 734 of 973, while "euro" (a street name) is on 6 and "yen" (a name) on 2."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    fields = view.role("currency")
    if not fields and not view.role("money"):
        return []
    held = set(view.values(fields[0]).values) if fields else set()
    mentions = [m for m in currency_mentions(question.text, held) if not claims.taken(m.span)]
    if not fields:
        claims.claim(*(m.span for m in mentions))
        return [Unmapped(text=m.text, why=why) for m in mentions if (why := not_amounts_in(view, m))]
    codes = list(dict.fromkeys(code for m in mentions for code in m.codes))
    if not codes:
        return []
    source = " / ".join(m.text for m in mentions)
    found = say(claims, fields[0], *equal_or_in(codes), mentions[0].span, source)
    claims.claim(*(m.span for m in mentions[1:]))
    return [found]


def not_amounts_in(view: BucketWords, mention: CurrencyMention) -> str | None:
    """Why the amounts of a bucket with no currency field cannot be in the currency named, or None when they may
    be. A currency the catalog gives the money field (`ragent catalog describe ... --unit MYR`) decides; without
    one, the documents' own text must write the currency in at least CURRENCY_SHARE of them (SROIE's receipts print
    "RM" on three in four; "euro" is on six of 973, in a street name)."""
    units = {f.unit for f in view.role("money") if f.unit}
    if units:
        return None if units & set(mention.codes) else f"the amounts of {view.name} are in {', '.join(sorted(units))}"
    documents = view.catalog.buckets[view.name].documents
    written = view.catalog.text_hits(view.name, " ".join(currency_words(mention.codes)))
    if written is None or written >= CURRENCY_SHARE * documents:
        return None  # written in it, or the keyword index cannot say
    return (
        f"no currency is recorded with the amounts of {view.name}, and their text does not say they are in "
        f"{mention.text} ({', '.join(mention.codes)}); amounts are not converted"
    )
