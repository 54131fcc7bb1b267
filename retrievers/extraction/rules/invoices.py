"""Issuer, invoice number, date, amount, currency and VAT number read from an invoice's text (bucket `invoices`).

Invoices come in many languages and layouts (text from PDFs, columns kept by spaces), so each rule looks for the
field's label in English, French, German, Dutch or Polish on one line and reads the value printed after it on that
line. When a line holds no label the rules know, they return nothing: a wrong number that looks right is worse than
none. Values come with the line they were read from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from retrievers.extraction.found import FieldRule, Found
from retrievers.loaders.normalize import parse_amount, parse_date

MAX_LINE_CHARS = 400
"""PDF text keeps a table row on one line, padded with spaces; a longer line is no invoice's."""
MAX_INVOICE_LINES = 5_000
"""An invoice runs to a few hundred lines; past this many, the body is no invoice and the rules stop reading."""

_LINE_RE = re.compile(r"[^\n]+")


def _lines(body: str) -> Iterator[tuple[int, int, str]]:
    """The body's lines that an invoice could print (start, end, text), at most `MAX_INVOICE_LINES` of them."""
    for count, match in enumerate(_LINE_RE.finditer(body)):
        if count >= MAX_INVOICE_LINES:
            return
        if len(match.group()) <= MAX_LINE_CHARS:
            yield match.start(), match.end(), match.group()


def _first(body: str, read) -> list[Found]:
    """The first line `read` finds a value on, as a Found citing that line."""
    for start, end, text in _lines(body):
        value = read(text)
        if value is not None:
            return [Found(value, start, end)]
    return []


# --- invoice number ----------------------------------------------------------------------------------------------

_NUMBER_RE = re.compile(
    r"(?:\binvoice\s*(?:number|no\.?|n[o°º]\.?)|\bfacture\s*n[°oº]\.?|\brechnungs?-?\s*(?:nr\.?|nummer)|"
    r"\bfactuurnummer|\bfaktura\s*(?:vat\s*)?nr\.?)\s*[:#]?\s*(?P<value>[A-Z0-9][A-Z0-9/_.-]*[A-Z0-9])",
    re.IGNORECASE,
)
# "Invoice INV/2023/03/0008": the word and a number with letters and separators, as accounting software prints it.
_TITLED_NUMBER_RE = re.compile(r"^\s*invoice\s+(?P<value>[A-Z]{2,}[/-][A-Z0-9/-]*\d)\s*$", re.IGNORECASE)


def _invoice_number(text: str) -> str | None:
    match = _NUMBER_RE.search(text) or _TITLED_NUMBER_RE.search(text)
    if match is None or not any(c.isdigit() for c in match.group("value")):
        return None
    return match.group("value")


def invoice_number(body: str) -> list[Found]:
    """The invoice's number as printed after its label ("Invoice Number:", "Facture n°", "Factuurnummer:")."""
    return _first(body, _invoice_number)


# --- date --------------------------------------------------------------------------------------------------------

# Month names of the languages the labels are in, as the English name dateutil reads.
_MONTHS = {
    "janvier": "january", "février": "february", "fevrier": "february", "mars": "march", "avril": "april",
    "mai": "may", "juin": "june", "juillet": "july", "août": "august", "aout": "august", "septembre": "september",
    "octobre": "october", "novembre": "november", "décembre": "december", "decembre": "december",
    "januar": "january", "februar": "february", "märz": "march", "juni": "june", "juli": "july",
    "oktober": "october", "dezember": "december", "januari": "january", "februari": "february",
    "maart": "march", "mei": "may", "augustus": "august",
}  # fmt: skip
_MONTH_WORD = r"[A-Za-zÀ-ÿ]{3,10}\.?"
_DATE_RE = re.compile(
    r"(?<![\d.])(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}"
    rf"|\d{{1,2}}\.?\s+{_MONTH_WORD}\s+\d{{4}}|{_MONTH_WORD}\s+\d{{1,2}}\s*,\s*\d{{4}})(?![\d])"
)
# Labels of the invoice's date, the invoice's own first: "Order Date" comes before "Invoice Date" on some invoices.
_DATE_LABELS = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\b(?:invoice\s*date|date\s*of\s*issue|factuur\s*datum|factuurdatum|rechnungsdatum|data\s*wystawienia|"
        r"facture\s*n[°oº]?\s*\S+\s+du)\b",
        r"\bdate\b",
    )
]
COLUMN_SLACK = 20
"""How far (in characters) a value printed under its label in a PDF's column may start from the label."""


def _parsed(written: str) -> str | None:
    """An ISO date from a date as printed, month names in French, German or Dutch included."""
    words = [_MONTHS.get(word.lower().rstrip("."), word) for word in re.split(r"\s+", written.replace(" ,", ","))]
    parsed = parse_date(" ".join(words), day_first=True)
    return parsed.isoformat() if parsed else None


def _labelled_date(body: str, label: re.Pattern) -> list[Found]:
    """The first date printed after `label` on its line, or under it in the next line's column."""
    lines = list(_lines(body))
    for index, (start, end, text) in enumerate(lines):
        found = label.search(text)
        if found is None:
            continue
        after = _DATE_RE.search(text, found.end())
        if after is not None:
            value = _parsed(after.group())
            if value:
                return [Found(value, start, end)]
            continue
        if index + 1 < len(lines):
            below_start, below_end, below = lines[index + 1]
            column = [m for m in _DATE_RE.finditer(below) if abs(m.start() - found.start()) <= COLUMN_SLACK]
            value = _parsed(column[0].group()) if column else None
            if value:
                return [Found(value, start, below_end)]
    return []


def invoice_date(body: str) -> list[Found]:
    """The invoice's date: the first date printed after, or under, the invoice's date label ("Invoice Date: August 3,
    2014"), else after a plain "Date" label."""
    for label in _DATE_LABELS:
        found = _labelled_date(body, label)
        if found:
            return found
    return []


# --- amount ------------------------------------------------------------------------------------------------------

# Labels of the amount to pay, in the order a reader trusts them: what is due first, a plain total last.
_AMOUNT_LABELS = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"amount\s*due|balance\s*due|grand\s*total|somme\s*à\s*payer|total\s*ttc|należność\s*ogółem|"
        r"factuur\s*totaal|te\s*betalen|gesamtbetrag|rechnungsbetrag",
        r"\b(?:total|totaal)\b(?!\s*(?:ht|hors|excl|exkl|net|before|sub))",
    )
]
_MONEY_RE = re.compile(
    r"(?:(?P<before>[$€£₹]|\b(?:USD|EUR|GBP|INR|PLN|Rs\.?))\s?)?"
    r"(?P<number>\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{2})?|\d+[.,]\d{2}|\d+)"
    r"(?:\s?(?P<after>[€$£]|\b(?:USD|EUR|GBP|INR|PLN|zł)\b))?"
)


def _last_amount(text: str) -> float | None:
    """The last amount on a line: a number with cents, or one written with its currency ("Rs 1939")."""
    value = None
    for match in _MONEY_RE.finditer(text):
        number = match.group("number")
        if re.search(r"[.,]\d{2}$", number) or match.group("before") or match.group("after"):
            value = parse_amount(number.replace(" ", ""))
    return value


def _amount_reader(label: re.Pattern):
    """Reads the last amount after `label` on a line, None on a line without the label."""

    def read(text: str) -> float | None:
        match = label.search(text)
        return _last_amount(text[match.end() :]) if match else None

    return read


def amount(body: str) -> list[Found]:
    """The total to pay: the last amount on the line of the most trusted total label (what is due, then a total)."""
    for label in _AMOUNT_LABELS:
        found = _first(body, _amount_reader(label))
        if found:
            return found
    return []


# --- currency ----------------------------------------------------------------------------------------------------

# The currencies the shipped languages' invoices are written in, by the symbols and codes that print them.
_CURRENCY_RE = re.compile(r"[$€£₹]|\b(?:USD|EUR|GBP|INR|PLN|CHF|Rs\.?|zł|euros?)(?![A-Za-z])", re.IGNORECASE)
_CURRENCY_CODES = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "rs": "INR", "rs.": "INR", "zł": "PLN"}


def _code(mention: str) -> str:
    lowered = mention.lower()
    if lowered.startswith("euro"):
        return "EUR"
    return _CURRENCY_CODES.get(lowered, mention.upper())


def currency(body: str) -> list[Found]:
    """The invoice's currency (ISO 4217): the one its symbols and codes name most often; "$" is read as US dollars."""
    counts: Counter[str] = Counter()
    first_line: dict[str, tuple[int, int]] = {}
    for start, end, text in _lines(body):
        for match in _CURRENCY_RE.finditer(text):
            code = _code(match.group())
            counts[code] += 1
            first_line.setdefault(code, (start, end))
    if not counts:
        return []
    ranked = counts.most_common(2)
    if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
        return []
    code = ranked[0][0]
    return [Found(code, *first_line[code])]


# --- VAT number --------------------------------------------------------------------------------------------------

_VAT_RE = re.compile(
    r"(?:\bVAT\s*(?:number|no\.?|id|reg(?:istration)?\.?\s*no\.?)?|\bBTW(?:\s*(?:nummer|nr\.?))?|\bUSt-?Id(?:Nr)?\.?|"
    r"\bTVA\s*intra\s*communautaire|\bN°\s*de\s*TVA(?:\s*intra\s*communautaire)?|\bNIP)\s*[:.]?\s*"
    r"(?P<value>(?:[A-Z]{2}\s?)?\d[\d .-]{5,}\d(?:[A-Z]\d{2})?)",
    re.IGNORECASE,
)
# Lines that give the buyer's VAT number, not the issuer's ("Uw BTW nummer", "Nabywca").
_BUYER_RE = re.compile(r"\b(?:uw|your|customer|client|buyer|nabywca|acheteur|kunde)\b", re.IGNORECASE)


def _vat(text: str) -> str | None:
    match = _VAT_RE.search(text)
    if match is None or _BUYER_RE.search(text, 0, match.start()):
        return None
    return match.group("value").strip()


def vat(body: str) -> list[Found]:
    """The issuer's VAT (or tax) number as printed after its label; the buyer's, on a line saying so, is skipped."""
    return _first(body, _vat)


# --- issuer ------------------------------------------------------------------------------------------------------

_LEGAL_FORM_RE = re.compile(
    r"\b(?:B\.V\.|N\.V\.|AG|GmbH|S\.A\.S?|SAS|SARL|S\.?p\.?A\.|Ltd\.?|Limited|Inc\.?|LLC|spółka\s+akcyjna)(?!\w)"
)
_ISSUER_LINES = 15
"""The issuer prints its name in the invoice's head."""


def issuer(body: str) -> list[Found]:
    """The company issuing the invoice: the first name in the invoice's head that ends in a legal form ("Coolblue
    B.V."), read from the column it is printed in; nothing when the head names no company so."""
    for count, (start, end, text) in enumerate(_lines(body)):
        if count >= _ISSUER_LINES:
            break
        if _BUYER_RE.search(text) or re.search(r"bill\s*to|attn|sold\s*by", text, re.IGNORECASE):
            continue
        legal = _LEGAL_FORM_RE.search(text)
        if legal is None:
            continue
        column_start = text.rfind("  ", 0, legal.start()) + 2 if "  " in text[: legal.start()] else 0
        name = re.sub(r"^\w+\s?:\s*", "", text[column_start : legal.end()].strip(" -,"))
        if len(name) > len(legal.group()):
            return [Found(name, start, end)]
    return []


RULES: dict[str, FieldRule] = {
    "issuer": issuer,
    "invoice_number": invoice_number,
    "date": invoice_date,
    "amount": amount,
    "currency": currency,
    "vat": vat,
}
